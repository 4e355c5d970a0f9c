"""Bad input to the reference engine is a defined outcome, never a hang or a traceback.

ENG-20 (an exhausted scripted model), ENG-21 (a failing tool body), ENG-22
(decisions naming unknown calls), ENG-23 (a malformed scenario), ENG-17
(determinism) and ENG-105 (the output encoding).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from doomloop_kit.engine import ScenarioError, run_scenario
from doomloop_kit.generators.curated.engine.brief import SCENARIOS
from doomloop_kit.generators.curated.engine.builders import call, decide, fresh, text, turn

RISKY = {"name": "risky", "kind": "approval"}


def _run(scenario: Mapping[str, object], index: int = 0) -> dict[str, object]:
    runs = run_scenario({"id": "bad-input", "doomLoop": True, **scenario}).to_json()["runs"]
    assert isinstance(runs, list)
    result: dict[str, object] = runs[index]
    return result


def test_exhausted_script_ends_the_run_with_an_error() -> None:
    """ENG-20: the failed dispatch is recorded, SessionEnd says error, nothing is raised."""
    run = _run({"tools": [{"name": "read"}], "runs": [fresh([turn(call("read", {}, "c1"))])]})
    assert run["end"] == {
        "status": "in_progress",
        "reason": "error",
        "finalResponseId": None,
        "finalText": None,
        "stopVerdict": None,
        "error": {"kind": "script-exhausted", "dispatch": 1},
    }
    dispatches = run["dispatches"]
    assert isinstance(dispatches, list) and dispatches[-1]["responseId"] is None
    hooks = [event["hook"] for event in run["events"]]  # type: ignore[attr-defined]
    assert hooks[-1] == "SessionEnd" and run["events"][-1]["payload"] == {"reason": "error"}  # type: ignore[index]


def test_empty_script_fails_the_first_dispatch() -> None:
    """ENG-20 with no response at all: dispatch 0 fails."""
    run = _run({"runs": [fresh([])]})
    assert run["end"]["error"] == {"kind": "script-exhausted", "dispatch": 0}  # type: ignore[index]


def test_failing_tool_body_answers_with_its_error_and_the_run_goes_on() -> None:
    """ENG-21, EOQ-01: output {"error": message}, PostToolUseFailure, then the next dispatch."""
    run = _run(
        {
            "tools": [{"name": "flaky", "fails": "disk on fire"}],
            "runs": [fresh([turn(call("flaky", {}, "c1")), turn(text("ok"))])],
        }
    )
    follow_up = run["dispatches"][1]["request"]["input"]  # type: ignore[index]
    assert follow_up[-1]["output"] == '{"error":"disk on fire"}'
    hooks = [event["hook"] for event in run["events"]]  # type: ignore[attr-defined]
    assert "PostToolUseFailure" in hooks and "PostToolUse" not in hooks
    assert run["end"]["finalText"] == "ok"  # type: ignore[index]


def test_unknown_approval_is_ignored_and_the_known_one_runs() -> None:
    """ENG-22: an id absent from the pending calls is ignored; the rest is processed."""
    scenario = {
        "tools": [RISKY],
        "runs": [
            fresh([turn(call("risky", {"n": 1}, "r1"))]),
            decide([turn(text("done"))], approve=["nope", "r1"]),
        ],
    }
    run = _run(scenario, 1)
    assert [item["callId"] for item in run["executions"]] == ["r1"]  # type: ignore[attr-defined]
    assert run["end"]["status"] == "complete"  # type: ignore[index]
    resumed = run["dispatches"][0]["request"]["input"]  # type: ignore[index]
    assert "nope" not in {item.get("callId") for item in resumed}  # nothing answers it


def test_rejection_answers_rejected_by_user_and_is_never_recorded() -> None:
    """ENG-163 step 3: the rejected call gets `Rejected by user`, no record, no body."""
    scenario = {
        "tools": [RISKY],
        "runs": [
            fresh([turn(call("risky", {"n": 1}, "r1"))]),
            decide([turn(text("done"))], reject=["r1", "ghost"]),
        ],
    }
    run = _run(scenario, 1)
    resume = run["dispatches"][0]["request"]["input"]  # type: ignore[index]
    assert resume[-1]["output"] == '{"error":"Rejected by user"}'
    assert run["executions"] == []
    assert "risky" not in run["state"]["doomLoop"]["tools"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("scenario", "names"),
    [
        ({"id": "x", "runs": [{"model": []}]}, "runs[0]"),
        ({"id": "x", "tools": [{"name": "t", "kind": "robot"}], "runs": []}, "tools[0].kind"),
        ({"id": "x", "runs": [fresh([{"output": [{"text": "hi"}]}])]}, "runs[0].model[0]"),
        ({"id": "x", "runs": "many"}, "runs"),
        ({"id": "x", "tool": [], "runs": []}, "unknown member"),
        ({"id": "x", "runs": [fresh([], modle=[])]}, "runs[0]: unknown member"),
        (
            {"id": "x", "tools": [{"name": "t", "loopKey": {"function": "guess"}}], "runs": []},
            "loopKey function",
        ),
    ],
)
def test_malformed_scenario_is_rejected_with_its_place(
    scenario: Mapping[str, object], names: str
) -> None:
    """ENG-23: rejected before any run, naming the offending part."""
    with pytest.raises(ScenarioError, match=names.replace("[", r"\[").replace("]", r"\]")):
        run_scenario(scenario)


def test_transcripts_are_deterministic_plain_json() -> None:
    """ENG-17: the same scenario gives the same transcript, which JSON carries unchanged."""
    for entry in SCENARIOS[:10]:
        scenario = entry["scenario"]
        assert isinstance(scenario, dict)
        first = json.dumps(run_scenario(scenario).to_json(), sort_keys=True)
        assert first == json.dumps(run_scenario(scenario).to_json(), sort_keys=True)
        assert json.loads(first) == json.loads(json.dumps(json.loads(first)))


def test_a_damaged_pending_call_in_loaded_state_is_answered_not_raised() -> None:
    """ENG-127 over hand-written state: a pending call without a name is an unknown call."""
    scenario = {
        "tools": [RISKY],
        "initialState": {"status": "awaiting_approval", "pendingToolCalls": [{"callId": "x"}]},
        "runs": [decide([turn(text("done"))], approve=["x"])],
    }
    run = _run(scenario)
    resume = run["dispatches"][0]["request"]["input"]  # type: ignore[index]
    assert resume[-1]["output"] == '{"error":"Tool not found or not executable"}'
    assert run["end"]["finalText"] == "done"  # type: ignore[index]
