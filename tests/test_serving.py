"""The harness library for Python ports: ``doomloop_kit.conformance.serve(port)``.

The in-tree Python harness is served this way (its edges: test_protocol_edges.py)."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any

from doomloop_kit.conformance import PortError, serve


class Toy:
    """A port that knows one function and keeps a counter per monitor."""

    name, language, version, features = "toy", "python", "1", ("bigint",)

    def create(self, request: Mapping[str, Any]) -> object:
        return {"calls": 0}

    def call(self, monitor: object | None, request: Mapping[str, Any]) -> object:
        if request["op"] == "boom":
            raise RuntimeError("the port broke")
        if monitor is None:
            raise PortError("unknown-op", f"unknown op {request['op']!r}")
        assert isinstance(monitor, dict)
        monitor["calls"] += 1
        return monitor["calls"]


def _exchange(*lines: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    assert serve(Toy(), io.BytesIO("".join(f"{line}\n" for line in lines).encode()), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_speaks_the_protocol_for_a_port() -> None:
    answers = _exchange(
        '{"id":0,"op":"hello","protocol":1}',
        '{"id":1,"op":"create","option":true}',
        '{"id":2,"op":"getState","session":"s1"}',
        '{"id":3,"op":"getState","session":"s1"}',
        '{"id":4,"op":"getState","session":"s9"}',
        '{"id":5,"op":"close","session":"s1"}',
        '{"id":6,"op":"canonicalize","value":1}',
        '{"id":7,"op":"boom"}',
        "not json",
        '{"id":8,"op":"hello","protocol":2}',
    )
    assert answers[0]["result"] == {
        "protocol": 1,
        "implementation": {"name": "toy", "language": "python", "version": "1"},
        "features": ["bigint"],
    }
    assert [a.get("result") for a in answers[1:4]] == [{"session": "s1"}, 1, 2]
    assert answers[4]["error"]["code"] == "unknown-session"
    assert answers[5] == {"id": 5, "result": None}
    assert answers[6]["error"]["code"] == "unknown-op"
    assert answers[7]["error"] == {"code": "internal", "message": "RuntimeError: the port broke"}
    assert answers[8]["id"] is None and answers[8]["error"]["code"] == "bad-request"
    assert answers[9]["error"]["code"] == "unsupported-protocol"


def test_served_reference_answers_run_scenario_and_bad_scenario() -> None:
    """Revision 1.2 (PROT-31, PROT-32) through serve(): the transcript, or bad-scenario."""
    from doomloop_kit.conformance.harnesses.python_reference import ReferencePort
    from doomloop_kit.engine import run_scenario

    scenario = {"id": "s", "doomLoop": True, "runs": [{"input": "go", "model": []}]}
    lines = [
        '{"id":0,"op":"hello","protocol":1}',
        json.dumps({"id": 1, "op": "runScenario", "scenario": scenario}),
        json.dumps({"id": 2, "op": "runScenario", "scenario": {"id": "s", "runs": "x"}}),
    ]
    out = io.StringIO()
    stdin = io.BytesIO("".join(f"{line}\n" for line in lines).encode())
    assert serve(ReferencePort(), stdin, out) == 0
    hello, answered, rejected = [json.loads(line) for line in out.getvalue().splitlines()]
    assert "engine" in hello["result"]["features"]
    assert answered == {"id": 1, "result": run_scenario(scenario).to_json()}
    assert answered["result"]["runs"][0]["end"]["error"]["kind"] == "script-exhausted"
    assert rejected["id"] == 2 and rejected["error"]["code"] == "bad-scenario"
    assert "runs" in rejected["error"]["message"]
