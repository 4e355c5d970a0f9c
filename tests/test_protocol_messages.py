"""The protocol's typed messages (conformance/protocol/messages.py) are the schema's.

Operations, error codes, features, the id bound and the handshake are named
once in Python and once in spec/schema/protocol/; these tests hold the two
together, and check the client's raw mode, through which the SDK replay sends
recorded lines with their own ids (PROT-24).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from doomloop_kit.conformance.protocol import Connection, messages
from doomloop_kit.conformance.protocol.messages import Request
from doomloop_kit.vectorset import vocabulary
from harnesses import support
from harnesses.protocol_schema import SCHEMAS, definitions, validator


def _ops(*families: str) -> set[str]:
    return {
        name.removesuffix("Request")
        for family in families
        for name in definitions(family)
        if name.endswith("Request")
    }


def test_the_operations_are_the_schemas() -> None:
    assert set(vocabulary.MONITOR_OPS) == _ops("monitor")
    assert set(vocabulary.FUNCTION_OPS) == _ops("functions", "engine")
    assert {messages.HELLO, *messages.SESSION_OPS} == _ops("handshake", "session")
    dispatching: Any = json.loads((SCHEMAS / "request.schema.json").read_text())
    listed = dispatching["properties"]["op"]["enum"]  # every operation, once
    assert sorted(listed) == sorted(messages.OPS) and len(set(listed)) == len(listed)


def test_error_codes_features_id_and_version_are_the_schemas() -> None:
    common: Any = definitions("common")
    assert list(messages.ERROR_CODES) == common["error"]["properties"]["code"]["enum"]
    assert messages.ERROR_CODES[: len(vocabulary.EXPECTED_ERRORS)] == vocabulary.EXPECTED_ERRORS
    assert common["id"]["maximum"] == messages.MAX_ID
    hello: Any = definitions("handshake")["helloResult"]
    assert hello["properties"]["protocol"]["const"] == messages.PROTOCOL_VERSION
    assert list(vocabulary.FEATURES) == hello["properties"]["features"]["items"]["enum"]


@pytest.mark.parametrize(
    ("value", "ident"),
    [
        (0, 0),
        (-0.0, 0),
        (1.0, 1),
        (-5, -5),
        (2**53 - 1, 2**53 - 1),
        (-(2**53 - 1), -(2**53 - 1)),
        (2**53, None),
        (2**53 + 1, None),
        (float(2**53), None),
        (2.5, None),
        (math.inf, None),
        (math.nan, None),
        (True, None),
        ("1", None),
        (None, None),
    ],
)
def test_the_id_rule(value: object, ident: int | None) -> None:
    """PROT-24: a safe integer; 1.0 is 1, -0 is 0; anything else is no id."""
    found = messages.request_id(value)
    assert found == ident and (found is None or type(found) is int)


def test_requests_are_written_as_the_schema_says() -> None:
    check = validator("request.schema.json")
    written = [
        Request.hello().message(0),
        Request.create(True).message(1),
        Request.create({"ladder": {"observe": 2}}, None).message(2),
        Request("getState", session="s1").message(3),
        Request("canonicalize", {"value": [1]}).message(4),
        Request.close("s1").message(5),
    ]
    for message in written:
        check.validate(message)
    assert written[0] == {"id": 0, "op": "hello", "protocol": 1}
    assert "state" not in written[1] and written[2]["state"] is None  # null is a state
    assert list(written[3]) == ["id", "op", "session"]


def test_responses_and_the_hello_result_are_the_schemas() -> None:
    envelope = validator("response.schema.json")
    envelope.validate(messages.result_response(3, None))
    envelope.validate(messages.error_response(None, "bad-request", "not JSON"))
    hello = messages.hello_result("p", "python", "1", ["bigint"])
    validator("handshake.schema.json#/$defs/helloResult").validate(hello)
    assert messages.hello_problem(hello) == ""
    assert messages.hello_problem({"protocol": 1, "features": []}) != ""
    assert messages.response_problem({"id": 1, "result": 1, "error": {}}) != ""
    assert messages.response_problem({"id": 1, "error": {"code": "internal"}}) != ""
    assert messages.response_problem(messages.error_response(1, "internal", "x")) == ""


def test_the_client_sends_a_raw_line_with_its_own_id() -> None:
    """The SDK replay's raw mode: the harness answers the recorded id, whatever it is."""
    harness = Connection(support.REFERENCE)
    try:
        harness.start()
        lines = [
            '{"id": 1.0, "op": "canonicalize", "value": 1}',
            '{"id": 9007199254740993, "op": "canonicalize", "value": 1}',
            '{"id": -0, "op": "canonicalize", "value": 1}',
        ]
        answers = [harness.receive(harness.send_raw(line)) for line in lines]
        assert answers[0] == {"id": 1, "result": "1"}
        second = answers[1]
        assert "error" in second and second["id"] is None
        assert second["error"]["code"] == "bad-request"
        assert answers[2] == {"id": 0, "result": "1"}
        assert harness.call(Request("canonicalize", {"value": 2})) == {"id": 1, "result": "2"}
    finally:
        harness.close()
