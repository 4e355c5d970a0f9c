"""The engine campaign's parts: plans, known differences, classes, reduction, a planted class.

The campaign against the SDK itself is tests/test_sdk_engine_campaign.py; here a
mutant of the reference harness stands in for it, so that a planted difference
must be found, classified as new, shrunk and reported.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from doomloop_kit.conformance import campaign, reduction, sdk_differences
from doomloop_kit.conformance.sdk_differences import KNOWN, Observation, classify, neutralised
from doomloop_kit.vectorset.event_order import order_like
from doomloop_kit.vectorset.transcripts import compare_transcripts
from harnesses import support

CALL = {"type": "function_call", "name": "risky", "arguments": "{}", "callId": "c1"}


def _reply(*items: dict[str, Any]) -> dict[str, Any]:
    return {"output": list(items)}


def _text(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


def _plain() -> dict[str, Any]:
    """A scenario none of the known differences can reach."""
    return {
        "id": "plain",
        "doomLoop": True,
        "tools": [{"name": "read"}],
        "runs": [{"input": "go", "model": [_reply(_text("done"))]}],
    }


def _with(**members: Any) -> dict[str, Any]:
    return {**_plain(), **members}


def _boolean_filters_as_strings(scenario: dict[str, Any]) -> None:
    for hook in scenario.get("hooks", []):
        hook["when"] = {
            name: (("true" if value else "false") if isinstance(value, bool) else value)
            for name, value in hook["when"].items()
        }


def _messages_as_array(scenario: dict[str, Any]) -> None:
    state = scenario.get("initialState", {})
    if "messages" in state and not isinstance(state["messages"], list):
        state["messages"] = []


TABLE = (  # two known differences of a test's own, as the campaign's table holds them
    sdk_differences.KnownDifference("B", "a boolean filter", "test", _boolean_filters_as_strings),
    sdk_differences.KnownDifference("M", "messages not an array", "test", _messages_as_array),
)
TRIGGERS: dict[str, dict[str, Any]] = {
    "B": _with(hooks=[{"when": {"streak": True}, "returns": {"overrideAction": "stop"}}]),
    "M": _with(initialState={"status": "complete", "messages": 5}),
}


def test_no_difference_is_left_undecided() -> None:
    """Every class the SDK campaigns found is decided (the module's docstring): a
    difference the bounded campaign meets is new, and fails it."""
    assert KNOWN == ()


@pytest.mark.parametrize("known", TABLE, ids=lambda k: k.key)
def test_each_neutraliser_removes_its_own_trigger_only(
    known: sdk_differences.KnownDifference,
) -> None:
    assert neutralised(_plain(), known) is None  # nothing to remove
    scenario = TRIGGERS[known.key]
    rewritten = neutralised(scenario, known)
    assert rewritten is not None and rewritten != scenario
    assert neutralised(rewritten, known) is None  # a neutralised scenario stays as it is
    assert scenario == TRIGGERS[known.key]  # the original is not touched
    others = [k.key for k in TABLE if k is not known and neutralised(scenario, k) is not None]
    assert others == [], f"{known.key}'s trigger also triggers {others}"


def _observe_when(*triggers: str) -> sdk_differences.Observe:
    """A stand-in for running both sides: they differ while any trigger is left."""
    keys = {k.key: k for k in TABLE}

    def observe(scenario: dict[str, Any]) -> Observation | None:
        left = [t for t in triggers if neutralised(scenario, keys[t]) is not None]
        return Observation("run 0, /end/finalText", "different string") if left else None

    return observe


def test_a_difference_explained_by_one_known_difference() -> None:
    found = Observation("run 0, /end/finalText", "different string")
    classified = classify(TRIGGERS["B"], found, _observe_when("B"), TABLE)
    assert classified.key == "B" and classified.known == ("B",)
    assert classified.scenario == TRIGGERS["B"]


def test_a_difference_explained_by_the_neutralisers_it_needs() -> None:
    both = copy.deepcopy(TRIGGERS["B"])
    both["initialState"] = TRIGGERS["M"]["initialState"]  # M's trigger too
    found = Observation("run 0, /end/finalText", "different string")
    assert classify(both, found, _observe_when("B", "M"), TABLE).key == "B+M"  # table order
    # only one of the two triggers matters: the other neutraliser is left out
    assert classify(both, found, _observe_when("M"), TABLE).key == "M"


def test_a_difference_no_neutraliser_removes_is_new() -> None:
    def always(scenario: dict[str, Any]) -> Observation:
        return Observation("run 1, dispatch 2, /request/input/3/content", "different string (x)")

    found = always(_plain())
    plain = classify(_plain(), found, always, TABLE)
    assert plain.key == "new: dispatch, /request/input/*/content: different string"
    assert plain.known == () and plain.scenario == _plain()
    # with a trigger: the class is named on, and shows, the neutralised scenario
    tagged = classify(TRIGGERS["B"], found, always, TABLE)
    assert tagged.key == plain.key and tagged.scenario["hooks"][0]["when"] == {"streak": "true"}
    # with the campaign's own table, which is empty, every difference is new
    assert classify(TRIGGERS["B"], found, always).key == plain.key


def test_a_signature_drops_indices_numbers_and_quoted_values() -> None:
    found = Observation("run 3, /events/12/payload", 'different string; entry 12 "x" (y)')
    assert found.signature == "/events/*/payload: different string"
    assert Observation("run 0, /state/tools", 'expected "a" got 5 (z)').signature == (
        "/state/tools: expected … got N"
    )


def test_reduce_deletes_everything_the_property_does_not_need() -> None:
    value = {"a": 1, "b": [1, 2, 3], "c": {"d": [2], "e": 1}}
    reduced = reduction.reduce(value, lambda v: 2 in v.get("b", []))
    assert reduced == {"b": [2]}
    assert value["b"] == [1, 2, 3]  # not touched
    # the budget of checks is kept
    calls: list[object] = []

    def always(candidate: object) -> bool:
        calls.append(candidate)
        return True

    reduction.reduce(value, always, max_checks=3)
    assert len(calls) == 3


def test_chunks_spread_the_scenarios_over_families_and_seeds() -> None:
    planned = campaign.chunks(["a", "b"], [1, 2], 7)
    assert [(c.family, c.seed, c.scenarios) for c in planned] == [
        ("a", 1, 2),
        ("b", 1, 2),
        ("a", 2, 2),
        ("b", 2, 1),
    ]
    assert [c.scenarios for c in campaign.chunks(["a", "b", "c"], [1], 2)] == [1, 1]


# -- an order for another engine's answer (fuzz --against) -----------------------------------


def _event(hook: str, call: str) -> dict[str, Any]:
    return {"hook": hook, "payload": {"toolName": "read", "callId": call}}


START = {"hook": "SessionStart", "payload": {}}
EVENTS = [START, _event("PreToolUse", "a"), _event("PreToolUse", "b"), _event("PostToolUse", "a")]
SLOTS: list[Any] = [None, [1, 0], [1, 1], [1, 0]]


def _runs(events: list[Any]) -> list[dict[str, Any]]:
    return [{"events": events, "executions": []}]


def test_an_answer_borrows_the_reference_order_where_its_entries_match() -> None:
    order = [{"events": SLOTS, "executions": []}]
    assert order_like(_runs(EVENTS), _runs(EVENTS), order) == order
    # another interleaving of the batch takes each entry's own slot
    swapped = [START, EVENTS[2], EVENTS[1], EVENTS[3]]
    (borrowed,) = order_like(_runs(swapped), _runs(EVENTS), order)
    assert borrowed["events"] == [None, [1, 1], [1, 0], [1, 0]]
    # an entry the reference does not have is a fence; a batch split by it is exact
    extra = [START, EVENTS[1], _event("PreToolUse", "z"), EVENTS[2], EVENTS[3]]
    (split,) = order_like(_runs(extra), _runs(EVENTS), order)
    assert split["events"] == [None] * 5


def test_the_borrowed_order_passes_the_answer_against_itself() -> None:
    swapped = [START, EVENTS[2], EVENTS[1], EVENTS[3]]
    runs = _runs(swapped)
    order = order_like(runs, _runs(EVENTS), [{"events": SLOTS, "executions": []}])
    transcript = {"scenario": "s", "runs": runs}
    assert compare_transcripts(transcript, transcript, order) == []
    # and it still compares by the partial order: the reference's own order passes
    assert compare_transcripts(transcript, {"scenario": "s", "runs": _runs(EVENTS)}, order) == []


# -- a planted difference, found, shrunk and reduced ------------------------------------------


def test_a_planted_difference_is_a_new_class_with_a_minimal_scenario() -> None:
    side = campaign.start(support.mutant("engine-dispatch-perturbed"))
    try:
        runner = campaign.Campaign(side)
        runner.max_checks = 60
        for chunk in campaign.chunks(["engine-edge-batches"], [3], 30):
            runner.run(chunk)
        report = runner.report()
    finally:
        side.supervisor.stop()
    assert report["scenarios"] == 30 and report["differing"] > 0
    (found,) = [entry for entry in report["classes"] if not entry["known"]]
    assert found["key"] == "new: dispatch, /request/model: different string"
    assert found["known"] == [] and found["shrunk"]
    assert (found["reference"], found["sdk"]) == ("cheap-model", "mutant-model")
    scenario = found["scenario"]
    assert len(scenario["runs"]) == 1 and len(scenario["runs"][0]["model"]) == 1, scenario
    assert "hooks" not in scenario and "initialState" not in scenario
    seen = {name for entry in report["classes"] for name in entry["known"]}
    assert report["knownUnseen"] == [k.key for k in KNOWN if k.key not in seen]


def test_the_reference_harness_shows_no_difference() -> None:
    report = campaign.run_campaign(
        support.REFERENCE, campaign.chunks(["engine-edge-state"], [5], 20), shrink=False
    )
    assert report["scenarios"] == 20 and report["compared"] > 0
    assert report["classes"] == []
