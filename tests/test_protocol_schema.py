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
from harnesses.protocol_schema import SCHEMAS, validator

REQUEST = validator("request.schema.json")


def response_validator(op: str) -> jsonschema.Draft202012Validator:
    return validator(f"response.schema.json#/$defs/{op}")


def test_schemas_are_valid_2020_12() -> None:
    for path in SCHEMAS.glob("*.schema.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(document)


FAMILIES = {
    name.removesuffix("Request"): family
    for family in ("handshake", "session", "monitor", "functions", "engine")
    for name in json.loads((SCHEMAS / f"{family}.schema.json").read_text())["$defs"]
    if name.endswith("Request")
}


def _check_traffic(requests: list[dict[str, Any]], responses: list[dict[str, Any]]) -> set[str]:
    """Validate every line; pair responses to requests by id. Returns the ops seen.

    Requests go to their op's definition directly (the same check as
    request.schema.json, which dispatches on op, but much faster); messages
    that differ only in id or session id are validated once.
    """
    assert len(responses) == len(requests)
    seen: set[str] = set()
    ops: set[str] = set()
    for request, response in zip(requests, responses, strict=True):
        assert response["id"] == request["id"]
        op = request["op"]
        ops.add(op)
        key = json.dumps(
            [{**request, "id": 1, "session": "s"}, {**response, "id": 1}], sort_keys=True
        )
        if key in seen:
            continue
        seen.add(key)
        validator(f"{FAMILIES[op]}.schema.json#/$defs/{op}Request").validate(request)
        response_validator(op).validate(response)
    for request in requests[:200]:  # the dispatching schema agrees
        REQUEST.validate(request)
    return ops


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
    ops = _check_traffic(requests, responses)
    assert {"hello", "create", "close", "getState", "recordToolCall"} <= ops


@pytest.mark.skipif(support.committed_vectors() is None, reason="vectors/ not committed yet")
def test_committed_traffic_validates_and_covers_every_op() -> None:
    status, _, requests, responses = support.committed_reference_run()
    assert status == 0
    ops = _check_traffic(requests, responses)
    monitor = json.loads((SCHEMAS / "monitor.schema.json").read_text())["$defs"]
    functions = json.loads((SCHEMAS / "functions.schema.json").read_text())["$defs"]
    engine = json.loads((SCHEMAS / "engine.schema.json").read_text())["$defs"]
    every = {
        name.removesuffix("Request")
        for name in [*monitor, *functions, *engine]
        if name.endswith("Request")
    }
    assert every | {"hello", "create", "close"} == ops


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
            REQUEST.validate(request)
