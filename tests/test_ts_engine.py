"""The TypeScript port's engine (ports/typescript/src/engine) against the reference engine.

Every brief scenario (generators/engine_scenarios/brief.py) is run through the
built TS harness over the protocol's ``runScenario`` (protocol 1.2, feature
``engine``) and its transcript compared with the reference engine's, naming
the first difference (ENG-14, ENG-15). The ``warnings`` member is informative
(ENG-108): only its length is compared, as the runner does. Malformed
scenarios must be answered ``bad-scenario`` where the reference raises
``ScenarioError`` (ENG-23).

``python tests/test_ts_engine.py DUMP.json`` writes the reference pairs
``[{scenario, transcript}]`` for inspection.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.engine import ScenarioError, run_scenario
from doomloop_kit.generators.engine_scenarios.brief import SCENARIOS

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "ports" / "typescript" / "dist" / "harness.js"

SCENARIO_IDS = [str(entry["scenario"]["id"]) for entry in SCENARIOS]  # type: ignore[index]

# One fact per entry: the part of the format ENG-23 names (spec §15.1.4).
MALFORMED: dict[str, object] = {
    "not-an-object": [],
    "unknown-member": {"id": "x", "runs": [], "colour": 1},
    "unknown-tool-kind": {"id": "x", "tools": [{"name": "t", "kind": "magic"}], "runs": []},
    "unknown-loop-key-function": {
        "id": "x",
        "tools": [{"name": "t", "loopKey": {"function": "guess"}}],
        "runs": [],
    },
    "item-without-type": {"id": "x", "runs": [{"input": "hi", "model": [{"output": [{}]}]}]},
    "call-without-call-id": {
        "id": "x",
        "runs": [
            {
                "input": "hi",
                "model": [{"output": [{"type": "function_call", "name": "t", "arguments": "{}"}]}],
            }
        ],
    },
    "run-without-input-or-decisions": {"id": "x", "runs": [{"model": []}]},
    "runs-missing": {"id": "x"},
    "duplicate-tool-names": {"id": "x", "tools": [{"name": "t"}, {"name": "t"}], "runs": []},
    "non-integer-step-count": {"id": "x", "request": {"stopWhenSteps": 1.5}, "runs": []},
}


def reference_pairs() -> list[dict[str, object]]:
    """The scenario and reference transcript of every brief entry."""
    return [
        {"scenario": entry["scenario"], "transcript": run_scenario(entry["scenario"]).to_json()}  # type: ignore[arg-type]
        for entry in SCENARIOS
    ]


def _serve(requests: list[dict[str, object]]) -> list[dict[str, Any]]:
    assert HARNESS.is_file(), f"{HARNESS} is missing: run make port-typescript"
    lines = "".join(json.dumps(request) + "\n" for request in requests)
    done = subprocess.run(
        ["node", str(HARNESS)],
        input=lines,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    responses = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(responses) == len(requests), done.stderr[-2000:]
    return responses


def first_difference(actual: object, expected: object, path: str = "") -> str | None:
    """The JSON pointer of the first difference (numbers as doubles, members in any order)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return None if actual is expected else path or "/"
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return None if float(actual) == float(expected) else path or "/"
    if isinstance(expected, list) and isinstance(actual, list):
        if len(actual) != len(expected):
            return f"{path}/length ({len(actual)} != {len(expected)})"
        for index, (mine, theirs) in enumerate(zip(actual, expected, strict=True)):
            found = first_difference(mine, theirs, f"{path}/{index}")
            if found is not None:
                return found
        return None
    if isinstance(expected, dict) and isinstance(actual, dict):
        for name in [*expected, *(name for name in actual if name not in expected)]:
            if name not in actual or name not in expected:
                return f"{path}/{name} (present on one side only)"
            found = first_difference(actual[name], expected[name], f"{path}/{name}")
            if found is not None:
                return found
        return None
    return None if actual == expected and type(actual) is type(expected) else path or "/"


def _comparable(transcript: object) -> object:
    """The transcript with each run's warnings reduced to their count (ENG-108)."""
    assert isinstance(transcript, dict)
    runs = [{**run, "warnings": len(run["warnings"])} for run in transcript["runs"]]
    return {**transcript, "runs": runs}


@pytest.fixture(scope="module")
def served() -> dict[str, dict[str, Any]]:
    requests: list[dict[str, object]] = [{"id": 0, "op": "hello", "protocol": 1}]
    requests += [
        {"id": index + 1, "op": "runScenario", "scenario": entry["scenario"]}
        for index, entry in enumerate(SCENARIOS)
    ]
    offset = len(requests)
    requests += [
        {"id": offset + index, "op": "runScenario", "scenario": scenario}
        for index, scenario in enumerate(MALFORMED.values())
    ]
    responses = _serve(requests)
    assert "engine" in responses[0]["result"]["features"]
    named = dict(zip(SCENARIO_IDS, responses[1:offset], strict=True))
    named.update(zip(MALFORMED, responses[offset:], strict=True))
    return named


@pytest.mark.parametrize("scenario_id", SCENARIO_IDS)
def test_transcript_equals_the_reference(
    served: dict[str, dict[str, Any]], scenario_id: str
) -> None:
    """ENG-14, ENG-15: the same observable run as the reference engine."""
    entry = next(e for e in SCENARIOS if e["scenario"]["id"] == scenario_id)  # type: ignore[index]
    expected = run_scenario(entry["scenario"]).to_json()  # type: ignore[arg-type]
    response = served[scenario_id]
    assert "result" in response, response
    difference = first_difference(_comparable(response["result"]), _comparable(expected))
    assert difference is None, f"{scenario_id}: first difference at {difference}"


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_scenario_is_bad_scenario(served: dict[str, dict[str, Any]], name: str) -> None:
    """ENG-23: the reference rejects it, and the TS harness answers bad-scenario."""
    with pytest.raises(ScenarioError):
        run_scenario(MALFORMED[name])  # type: ignore[arg-type]
    assert served[name].get("error", {}).get("code") == "bad-scenario", served[name]


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(reference_pairs(), indent=1) + "\n", encoding="utf-8")
