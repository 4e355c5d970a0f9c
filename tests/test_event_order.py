"""The partial order events and executions are compared by (ENG-138, ENG-139).

One small run: a fence, a batch of two calls (call 0 with a detection), a
fence. Every rearrangement threads could give passes; each broken relation
fails with the relation named; a detection of other content is a content
difference, not an order one.
"""

from __future__ import annotations

from typing import Any

import pytest
from doomloop_kit.vectorset.event_order import event_differences, execution_differences


def _event(hook: str, call: str | None = None, **payload: Any) -> dict[str, Any]:
    if call is not None:
        payload = {"toolName": "read", "callId": call, **payload}
    return {"hook": hook, "payload": payload}


START = _event("SessionStart")
DETECTED = _event("DoomLoopDetected", None, detector="tool-fingerprint", toolName="read", streak=2)
PRE_A, POST_A = _event("PreToolUse", "a"), _event("PostToolUse", "a")
PRE_B, POST_B = _event("PreToolUse", "b"), _event("PostToolUse", "b")
END = _event("SessionEnd", None, reason="complete")
EXPECTED = [START, DETECTED, PRE_A, POST_A, PRE_B, POST_B, END]
SLOTS = [None, [1, 0], [1, 0], [1, 0], [1, 1], [1, 1], None]


@pytest.mark.parametrize(
    "actual",
    [
        EXPECTED,
        [START, DETECTED, PRE_A, PRE_B, POST_A, POST_B, END],  # the SDK's own interleaving
        [START, PRE_B, DETECTED, POST_B, PRE_A, POST_A, END],  # call b first
        [START, PRE_B, POST_B, DETECTED, PRE_A, POST_A, END],
    ],
)
def test_orders_threads_could_give_pass(actual: list[Any]) -> None:
    assert event_differences("run 0, ", EXPECTED, actual, SLOTS) == []


@pytest.mark.parametrize(
    ("actual", "relation"),
    [
        ([START, PRE_A, DETECTED, POST_A, PRE_B, POST_B, END], "per-call order broken"),
        ([START, DETECTED, POST_A, PRE_A, PRE_B, POST_B, END], "per-call order broken"),
        ([START, DETECTED, PRE_A, PRE_B, POST_B, END, POST_A], "batch boundary broken"),
        ([DETECTED, START, PRE_A, POST_A, PRE_B, POST_B, END], "different"),
    ],
)
def test_a_broken_relation_is_named(actual: list[Any], relation: str) -> None:
    (difference,) = event_differences("run 0, ", EXPECTED, actual, SLOTS)
    assert relation in difference.reason


def test_detections_keep_their_order() -> None:
    second = _event(
        "DoomLoopDetected", None, detector="tool-fingerprint", toolName="grep", streak=2
    )
    expected = [START, DETECTED, second, END]
    slots = [None, [1, 0], [1, 1], None]
    (difference,) = event_differences("run 0, ", expected, [START, second, DETECTED, END], slots)
    assert "checkpoint order broken (ENG-139)" in difference.reason


def test_a_detection_of_other_content_is_a_content_difference() -> None:
    other = {**DETECTED, "payload": {**DETECTED["payload"], "streak": 3}}
    actual = [START, other, PRE_A, POST_A, PRE_B, POST_B, END]
    (difference,) = event_differences("run 0, ", EXPECTED, actual, SLOTS)
    assert difference.path == "run 0, /events/1/payload/streak"
    assert "order" not in difference.reason


def test_executions_of_a_batch_in_any_order() -> None:
    a, b, c = ({"callId": name, "name": "read", "arguments": {}, "round": 1} for name in "abc")
    batches = [1, 1, None]
    assert execution_differences("run 0, ", [a, b, c], [b, a, c], batches) == []
    (difference,) = execution_differences("run 0, ", [a, b, c], [a, c, b], batches)
    assert "batch boundary broken" in difference.reason


# -- calls of one batch sharing a call id (ENG-152) -----------------------------------------


SHARED_PRE = _event("PreToolUse", "c")
SHARED_POST_1, SHARED_POST_2 = (
    _event("PostToolUse", "c", result=1),
    _event("PostToolUse", "c", result=2),
)
SHARED = [SHARED_PRE, SHARED_POST_1, SHARED_PRE, SHARED_POST_2]
SHARED_SLOTS = [[1, 0], [1, 0], [1, 1], [1, 1]]


@pytest.mark.parametrize(
    "actual",
    [
        [SHARED_PRE, SHARED_POST_2, SHARED_PRE, SHARED_POST_1],  # call 1 whole, then call 0
        [SHARED_PRE, SHARED_PRE, SHARED_POST_2, SHARED_POST_1],
        [SHARED_PRE, SHARED_PRE, SHARED_POST_1, SHARED_POST_2],
    ],
)
def test_calls_sharing_an_id_are_matched_whatever_the_first_tie(actual: list[Any]) -> None:
    """The first PreToolUse fits both calls; only taking it for call 1 keeps per-call order
    in the first order: the matching must find it, not stop at the first choice."""
    assert event_differences("run 0, ", SHARED, actual, SHARED_SLOTS) == []


def test_calls_sharing_an_id_still_keep_per_call_order() -> None:
    actual = [SHARED_PRE, SHARED_POST_2, SHARED_POST_1, SHARED_PRE]  # one Post before its Pre
    (difference,) = event_differences("run 0, ", SHARED, actual, SHARED_SLOTS)
    assert "per-call order broken (ENG-139)" in difference.reason


def test_many_calls_sharing_an_id_are_matched_without_a_blow_up() -> None:
    """Twelve calls, one id, all alike but the last: of interchangeable calls one is tried
    (trying each tie would take some 11! steps to refuse the order)."""
    expected, slots = [], []
    for call in range(12):
        expected += [SHARED_PRE, SHARED_POST_2 if call == 11 else SHARED_POST_1]
        slots += [[1, call], [1, call]]
    # the one PostToolUse of result 2 comes before the last PreToolUse: whichever call
    # each PreToolUse is given to, one call has its Post first
    refused = [SHARED_PRE] * 11 + [SHARED_POST_2] + [SHARED_POST_1] * 11 + [SHARED_PRE]
    (difference,) = event_differences("run 0, ", expected, refused, slots)
    assert "per-call order broken (ENG-139)" in difference.reason
    accepted = [SHARED_PRE] * 12 + [SHARED_POST_1] * 5 + [SHARED_POST_2] + [SHARED_POST_1] * 6
    assert event_differences("run 0, ", expected, accepted, slots) == []
