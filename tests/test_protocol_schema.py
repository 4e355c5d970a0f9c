"""Real traffic of the Python harness validates against spec/schema/protocol/*.json."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from harnesses import support
from harnesses.protocol_schema import SCHEMAS, check_traffic, response_validator, validator


def test_schemas_are_valid_2020_12() -> None:
    for path in SCHEMAS.glob("*.schema.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(document)


def _capture(tmp_path: Path, root: list[str]) -> tuple[list[Any], list[Any]]:
    """Run the runner with a tee on both sides of the reference harness."""
    sent, received = tmp_path / "sent.jsonl", tmp_path / "received.jsonl"
    port = f"tee {shlex.quote(str(sent))} | {support.REFERENCE} | tee {shlex.quote(str(received))}"
    status, _ = support.run([*root, "--port", port])
    assert status == 0
    requests = [json.loads(line) for line in sent.read_text(encoding="utf-8").splitlines()]
    responses = [json.loads(line) for line in received.read_text(encoding="utf-8").splitlines()]
    return requests, responses


def test_fixture_traffic_validates(tmp_path: Path) -> None:
    root = support.fixture_root(tmp_path / "vectors")
    requests, responses = _capture(tmp_path, ["--vectors", str(root)])
    ops = check_traffic(requests, responses)
    assert {"hello", "create", "close", "getState", "recordToolCall"} <= ops


def test_error_responses_validate() -> None:
    lines = [
        '{"id":0,"op":"hello","protocol":2}',
        '{"id":0,"op":"hello","protocol":1}',
        "junk",
        '{"id":"x","op":"hello"}',
        '{"id":1,"op":"frobnicate"}',
        '{"id":2,"op":"getState","session":"nope"}',
        '{"id":3,"op":"canonicalize","value":{"$js":"bigint","value":"1"}}',
        '{"id":4,"op":"create","option":false}',
        '{"id":5,"op":"recordToolCall","toolName":1}',
        '{"id":6,"op":"canonicalize"}',
        '{"id":7,"op":"runScenario","scenario":{"id":"x","runs":[{"model":[]}]}}',
        '{"id":8,"op":"runScenario"}',
        '{"id":9,"op":"canonicalize","value":{"$js":"void"}}',
    ]
    done = subprocess.run(
        shlex.split(support.REFERENCE),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    responses = [json.loads(line) for line in done.stdout.splitlines()]
    codes = [r.get("error", {}).get("code") for r in responses]
    assert codes == [
        "unsupported-protocol",
        None,
        "bad-request",
        "bad-request",
        "unknown-op",
        "unknown-session",
        "canonicalization",
        "bad-request",
        "bad-request",
        "bad-request",
        "bad-scenario",
        "bad-request",
        "bad-request",
    ]
    assert [r["id"] for r in responses] == [0, 0, None, None, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    envelope = validator("response.schema.json")
    for response in responses:
        envelope.validate(response)


@pytest.mark.parametrize(
    ("op", "response"),
    [
        (
            "recordToolCall",
            {"id": 1, "result": {"fingerprint": "0" * 64, "duplicateInRound": False}},
        ),
        (
            "recordToolCall",
            {"id": 1, "result": {"fingerprint": "XYZ", "streak": 1, "duplicateInRound": False}},
        ),
        ("hello", {"id": 0, "result": {"protocol": 1, "features": []}}),
        ("canEscalate", {"id": 1, "result": "yes"}),
        ("close", {"id": 1, "result": None, "error": {"code": "internal", "message": ""}}),
        ("canonicalize", {"id": 1, "error": {"code": "oops", "message": ""}}),
        ("resolveLadderAction", {"id": 1, "result": "panic"}),
        ("runScenario", {"id": 1, "result": {"scenario": "x"}}),
        ("runScenario", {"id": 1, "result": {"scenario": "x", "runs": [{"index": 0}]}}),
    ],
)
def test_schemas_reject_wrong_responses(op: str, response: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        response_validator(op).validate(response)


def test_schemas_reject_wrong_requests() -> None:
    for request in (
        {"id": 1, "op": "recordToolCall", "toolName": "t", "round": 0},
        {"id": 1, "op": "getState"},
        {"id": -1, "op": "canonicalize", "value": 1},
        {"id": 1, "op": "nope"},
        {"id": 1, "op": "runScenario"},
        {"id": 1, "op": "runScenario", "scenario": {}, "session": "s1"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            validator("request.schema.json").validate(request)
