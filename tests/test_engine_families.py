"""Properties of the generated engine families (generators/engine_families.py, spec §15).

Every property is read from the spec's statements, not from the engine's
output: the expected values (which calls run, which dispatches are
escalated, what a decision resume leaves pending, how often a ``loopKey``
runs) are computed here from the scenario and the statements cited.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from doomloop_kit.engine import Scenario, run_scenario
from doomloop_kit.generators import engine_families
from doomloop_kit.generators.curated.engine.builders import call, turn
from doomloop_kit.generators.engine_families import (
    ENGINE_FAMILIES,
    ESCALATION_MODEL,
    MAX_DISPATCHES,
    scenarios,
)
from hypothesis import given, settings

Json = dict[str, Any]
SPEC_IDS = set()
for _path in __import__("pathlib").Path(__file__).resolve().parents[1].glob("spec/*.md"):
    SPEC_IDS |= {
        line.split('"')[1] for line in _path.read_text().splitlines() if line.startswith('<a id="')
    }


def transcript_of(scenario: Json) -> Json:
    result: Json = run_scenario(Scenario.from_json(scenario)).to_json()
    return result


def runs_with_previous(scenario: Json) -> Iterator[tuple[Json, Json, Json | None]]:
    """Each run's scenario entry, transcript and the state it loaded."""
    previous: Json | None = scenario.get("initialState")
    for spec, run in zip(scenario["runs"], transcript_of(scenario)["runs"], strict=True):
        yield spec, run, previous
        if run["state"] is not None:
            previous = run["state"]


def detections(run: Json) -> list[Json]:
    return [event for event in run["events"] if event["hook"] == "DoomLoopDetected"]


# -- the registry -----------------------------------------------------------------------


def test_families_are_named_engine_and_cite_existing_statements() -> None:
    assert ENGINE_FAMILIES
    seeds = [family.seed for family in ENGINE_FAMILIES.values()]
    assert len(set(seeds)) == len(seeds)
    for name, family in ENGINE_FAMILIES.items():
        assert name == family.name and name.startswith("engine-")
        assert family.count > 0 and family.description
        assert family.spec and set(family.spec) <= SPEC_IDS, set(family.spec) - SPEC_IDS


# -- every family -------------------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(ENGINE_FAMILIES))
def test_drawn_scenarios_are_well_formed_small_and_deterministic(family: str) -> None:
    """ENG-17 (same scenario, same observable run), ENG-23 (well formed), ENG-121 (plain
    JSON), ENG-19 (responses consumed in order), ENG-124 (a fresh turn's first dispatch
    sends the loaded conversation followed by the new input)."""

    @settings(max_examples=12)
    @given(scenarios(family, with_shape=True))
    def check(pair: tuple[str, Json]) -> None:
        shape, scenario = pair
        assert shape.startswith(family.removeprefix("engine-").split("-")[0])
        Scenario.from_json(scenario)
        assert sum(len(run["model"]) for run in scenario["runs"]) <= MAX_DISPATCHES
        first = transcript_of(scenario)
        assert transcript_of(json.loads(json.dumps(scenario))) == first
        assert json.loads(json.dumps(first, allow_nan=False)) == first
        for spec, run, loaded in runs_with_previous(scenario):
            answered = [d["responseId"] for d in run["dispatches"] if d["responseId"]]
            assert answered == [f"resp_{i + 1}" for i in range(len(answered))]
            if "input" in spec and run["dispatches"]:
                given_input = spec["input"]
                items = (
                    [{"role": "user", "content": given_input}]
                    if isinstance(given_input, str)
                    else given_input
                )
                messages = (loaded or {}).get("messages", [])
                assert run["dispatches"][0]["kind"] == "initial"
                assert run["dispatches"][0]["request"]["input"] == messages + items

    check()


# -- resume at every pause point, stop with approvals pending -------------------------------


@pytest.mark.parametrize("family", ["engine-resume", "engine-stop-pending"])
def test_decision_resumes_follow_the_spec(family: str) -> None:
    """ENG-163: only pending approved calls run in the approved batch (ENG-22), undecided
    calls stay pending and the run pauses again, as awaiting approval (ENG-149), without a
    dispatch; a decision resume fires neither SessionStart nor SessionEnd (ENG-99); a
    re-armed stop verdict halts after the batch with no dispatch, status in_progress
    (ENG-158, ENG-120, ENG-87); a rejected call is answered `Rejected by user`. ENG-167: a
    pause ends `complete` (or `max_turns` on the stopWhen path, ENG-147) and persists the
    armed stop verdict (ENG-114)."""

    @settings(max_examples=15)
    @given(scenarios(family))
    def check(scenario: Json) -> None:
        for spec, run, loaded in runs_with_previous(scenario):
            end = run["end"]
            if end["status"].startswith("awaiting_"):
                assert end["reason"] in ("complete", "max_turns")
                blob = run["state"].get("doomLoop", {})
                assert blob.get("stopVerdict") == end["stopVerdict"]
            if "input" in spec or loaded is None:
                continue
            if loaded.get("status") not in ("awaiting_approval", "awaiting_hitl"):
                continue
            hooks = {event["hook"] for event in run["events"]}
            assert not hooks & {"SessionStart", "SessionEnd"}
            pending = [c["callId"] for c in loaded.get("pendingToolCalls", [])]
            approve, reject = spec.get("approve", []), spec.get("reject", [])
            batch = [e["callId"] for e in run["executions"] if e["round"] == 1]
            assert set(batch) <= set(approve) & set(pending)
            undecided = [i for i in pending if i not in approve and i not in reject]
            state = run["state"]
            if undecided:
                assert run["dispatches"] == []
                assert [c["callId"] for c in state["pendingToolCalls"]] == undecided
                assert end["status"] == "awaiting_approval"
                continue
            rejected = [i for i in pending if i in reject and i not in approve]
            answers = {r["callId"]: r.get("error") for r in state.get("unsentToolResults", [])}
            for item in state["messages"]:
                if item.get("type") == "function_call_output" and item["callId"] in rejected:
                    answers[item["callId"]] = json.loads(item["output"]).get("error")
            for call_id in rejected:
                assert answers.get(call_id) == "Rejected by user"
            if isinstance(loaded.get("doomLoop"), dict) and "stopVerdict" in loaded["doomLoop"]:
                assert run["dispatches"] == []
                assert (end["status"], end["reason"]) == ("in_progress", "doom_loop")
                assert end["finalResponseId"] is None

    check()


# -- steer queues -----------------------------------------------------------------------------


def delivered_steers(run: Json) -> list[str]:
    """The steer message of each follow-up dispatch: the user message that comes right
    after the previous dispatch's input (ENG-66, ENG-67)."""
    steers = []
    previous: list[Json] | None = None
    for dispatch in run["dispatches"]:
        items = dispatch["request"]["input"]
        if dispatch["kind"] == "follow-up" and previous is not None:
            assert items[: len(previous)] == previous
            new = items[len(previous)]
            if new.get("role") == "user":
                steers.append(new["content"])
        previous = items
    return steers


def test_steer_messages_are_merged_once_and_never_lost() -> None:
    """ENG-64, ENG-66: a delivery joins distinct queued messages with "\\n"; ENG-63,
    ENG-68, ENG-114: every applied steer is delivered in its run or persisted as
    ``pendingSteer``; ENG-65: only follow-up dispatches carry a steer message."""

    @settings(max_examples=20)
    @given(scenarios("engine-steer-queues"))
    def check(scenario: Json) -> None:
        for _spec, run, _loaded in runs_with_previous(scenario):
            delivered = delivered_steers(run)
            parts: list[str] = []
            for steer in delivered:
                lines = steer.split("\n")
                assert len(lines) == len(set(lines)), steer
                parts += lines
            state = run["state"] if isinstance(run["state"], dict) else {}
            blob = state.get("doomLoop", {})
            persisted = blob.get("pendingSteer", []) if isinstance(blob, dict) else []
            for event in detections(run):
                if event["appliedAction"] == "steer":
                    message = event["payload"]["message"]
                    assert message in parts or message in persisted, message

    check()


# -- escalation budget ----------------------------------------------------------------------


def escalated(dispatch: Json) -> bool:
    request = dispatch["request"]
    advisor = any(
        isinstance(tool, dict) and tool.get("type") == "openrouter:advisor"
        for tool in request.get("tools", [])
    )
    return request["model"] == ESCALATION_MODEL or advisor


def test_escalations_never_exceed_the_budget() -> None:
    """ENG-71, ENG-75: only main-loop follow-ups are escalated, each after an applied
    escalate in the same run (ENG-70; the latch is not persisted, ENG-76); ENG-72: the
    model override drops the fallback ``models``; ENG-77, MON-52: a run spends at most
    the budget (``maxEscalations`` as resolved, ENG-26) left by the ``escalationsUsed``
    it restored (ENG-117). Not over the whole scenario: a unit spent on a dispatch
    that fails is not in the state the run keeps (ENG-77, ENG-20)."""

    @settings(max_examples=25)
    @given(scenarios("engine-escalation-budget"))
    def check(scenario: Json) -> None:
        for _spec, run, loaded in runs_with_previous(scenario):
            escalation = (run["config"] or {}).get("escalation")
            applied = 0
            for dispatch in run["dispatches"]:
                if not escalated(dispatch):
                    continue
                assert dispatch["kind"] == "follow-up"
                if dispatch["request"]["model"] == ESCALATION_MODEL:
                    assert "models" not in dispatch["request"]
                applied += 1
            if escalation is None:
                assert applied == 0
                continue
            escalates = [e for e in detections(run) if e["appliedAction"] == "escalate"]
            assert applied <= len(escalates)
            blob = (loaded or {}).get("doomLoop", {})
            used = blob.get("escalationsUsed", 0) if isinstance(blob, dict) else 0
            assert applied <= max(0, escalation["maxEscalations"] - used)

    check()


# -- malformed arguments -----------------------------------------------------------------------


def malformed_text(name: str, raw: str) -> str:
    """ENG-104, written from the statement."""
    return (
        f'Failed to parse tool call arguments for "{name}": The model provided invalid JSON. '
        f'Raw arguments received: "{raw}". Please provide valid JSON arguments for this tool call.'
    )


def test_malformed_and_blank_arguments() -> None:
    """ENG-45: a malformed call never runs, and its output is the ENG-104 text (or the
    ENG-106 seal when a stop halted the run first); ENG-38: blank arguments run as
    ``{}``; ENG-90: ``toolInput`` only for object arguments."""

    @settings(max_examples=25)
    @given(scenarios("engine-malformed-arguments"))
    def check(scenario: Json) -> None:
        (run,) = transcript_of(scenario)["runs"]
        raw_calls = {
            item["callId"]: item["arguments"]
            for response in scenario["runs"][0]["model"]
            for item in response["output"]
            if item.get("name") == "raw"
        }
        assert not {e["callId"] for e in run["executions"]} & set(raw_calls)
        for item in run["state"]["messages"]:
            if item.get("type") == "function_call_output" and item["callId"] in raw_calls:
                error = json.loads(item["output"])["error"]
                expected = malformed_text("raw", raw_calls[item["callId"]])
                assert error == expected or error.startswith("Run halted by doom-loop detection")
        for execution in run["executions"]:
            if execution["name"] == "blank":
                assert execution["arguments"] == {}
        for event in detections(run):
            name = event["payload"].get("toolName")
            if name in ("raw", "odd"):
                assert "toolInput" not in event["payload"]
            if name in ("blank", "good"):
                assert isinstance(event["payload"]["toolInput"], dict)

    check()


@pytest.mark.parametrize(
    ("raw", "malformed"),
    [("\u3000", False), ("\ufeff", False), (" \u2028\t", False), ("\x1c", True), ("\x85", True)],
)
def test_blank_means_javascript_whitespace(raw: str, malformed: bool) -> None:
    """ENG-38 with TXT-04: JS ``trim`` whitespace only; U+001C and U+0085 are not (the
    engine used Python's ``str.strip`` before, which has the opposite answer for all
    of U+FEFF, U+001C and U+0085)."""
    scenario = {
        "id": "blank",
        "doomLoop": True,
        "tools": [{"name": "read"}],
        "runs": [{"input": "go", "model": [turn(call("read", raw, "c1")), turn()]}],
    }
    (run,) = transcript_of(scenario)["runs"]
    assert (run["executions"] == []) is malformed
    output = json.loads(run["dispatches"][1]["request"]["input"][-1]["output"])
    assert output == ({"error": malformed_text("read", raw)} if malformed else {"ok": True})


def test_non_finite_arguments_are_null_in_the_transcript() -> None:
    """ENG-105, ENG-121: ``1e400`` parses to Infinity, which JSON writes as ``null``."""
    scenario = {
        "id": "infinite",
        "doomLoop": True,
        "tools": [{"name": "read"}],
        "runs": [{"input": "go", "model": [turn(call("read", '{"n":1e400}', "c1")), turn()]}],
    }
    (run,) = transcript_of(scenario)["runs"]
    assert run["executions"][0]["arguments"] == {"n": None}
    json.dumps(run, allow_nan=False)


# -- duplicate call ids ----------------------------------------------------------------------


def test_loop_key_runs_once_per_call_and_again_for_shared_ids() -> None:
    """ENG-41: the declaration's resolution is reused by the call's checkpoint; ENG-42:
    not when the call id occurs twice in the batch, whose checkpoints resolve afresh;
    ENG-37: malformed calls are not resolved. With no stop and no pause every response
    with calls runs one normal round (ENG-126), so the count follows from the script.
    ENG-54: identical calls of one round all run or none does."""

    @settings(max_examples=25)
    @given(scenarios("engine-duplicate-call-ids", with_shape=True))
    def check(pair: tuple[str, Json]) -> None:
        shape, scenario = pair
        (run,) = transcript_of(scenario)["runs"]
        expected = 0
        responses = [r for r in scenario["runs"][0]["model"] if r["output"]]
        for response in responses:
            calls = [item for item in response["output"] if item["type"] == "function_call"]
            ids = Counter(item["callId"] for item in calls)
            for item in calls:
                if item["name"] == "read" and item["arguments"] != "{oops":
                    expected += 1 + (ids[item["callId"]] > 1)
        assert run["loopKeyInvocations"].get("read", 0) == expected
        if shape.endswith("identical"):
            for number, response in enumerate(responses, start=1):
                for name in ("read", "grep"):
                    issued = sum(item.get("name") == name for item in response["output"])
                    ran = sum(e["name"] == name and e["round"] == number for e in run["executions"])
                    assert ran in (0, issued), (number, name)

    check()


def test_generator_module_is_plain_data() -> None:
    """The building blocks the families share are JSON (the vectors store them)."""
    for table in (engine_families.LOOP_KEYS, engine_families.MAX_ESCALATIONS):
        json.dumps(list(table), allow_nan=False)
