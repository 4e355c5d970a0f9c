"""The partial order events and executions are compared by (ENG-138, ENG-139).

One small run: a fence, a batch of two calls (call 0 with a detection), a
fence. Every rearrangement threads could give passes; each broken relation
fails with the relation named; a detection of other content is a content
difference, not an order one. Calls sharing an id (ENG-152) are matched
whatever the first tie. And a property over every committed engine run with a
concurrent batch: random interleavings keeping the four relations pass, and
swapping two neighbours fails naming the relation the swap breaks (Hypothesis,
derandomized by the shared profile of conftest.py).
"""

from __future__ import annotations

import json
from typing import Any, Final

import pytest
from doomloop_kit.vectorset.event_order import event_differences, execution_differences
from doomloop_kit.vectorset.files import Difference, iter_vector_files
from harnesses import support
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


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
        ([DETECTED, START, PRE_A, POST_A, PRE_B, POST_B, END], "fence order broken"),
        ([START, DETECTED, PRE_A, POST_A, PRE_B, POST_B, {**END, "payload": {}}], "missing member"),
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


# -- every committed engine vector: what the relations allow passes, what they forbid fails --


def _runs_with_batches() -> list[tuple[str, list[Any], list[Any], bool]]:
    """(label, expected entries, order slots, events?) of every run member of a committed
    engine vector that has a concurrent batch."""
    found = []
    for path in iter_vector_files(support.REPO / "vectors"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not data["family"].startswith("engine-"):
            continue
        for vector in data["vectors"]:
            runs = vector["expect"].get("result", {}).get("runs", [])
            orders = vector["expect"].get("order", [])
            for number, (run, order) in enumerate(zip(runs, orders, strict=True)):
                for member, events in (("events", True), ("executions", False)):
                    if len(run[member]) > 1 and any(s is not None for s in order[member]):
                        label = f"{vector['id']} run {number} {member}"
                        found.append((label, run[member], order[member], events))
    return found


RUNS: Final = _runs_with_batches()


def _batch_number(slot: Any) -> int | None:
    return None if slot is None else int(slot[0]) if isinstance(slot, list) else int(slot)


def _segments_of(slots: list[Any]) -> list[list[int]]:
    """The positions of each fence and of each batch, in order."""
    segments: list[list[int]] = []
    for position, slot in enumerate(slots):
        batch = _batch_number(slot)
        if segments and batch is not None and _batch_number(slots[segments[-1][0]]) == batch:
            segments[-1].append(position)
        else:
            segments.append([position])
    return segments


def _must_precede(entries: list[Any], slots: list[Any], events: bool) -> dict[int, set[int]]:
    """What ENG-139 orders within a batch: a call's events, and the batch's detections."""
    before: dict[int, set[int]] = {i: set() for i in range(len(entries))}
    if not events:
        return before
    last_of_call: dict[tuple[int, int], int] = {}
    last_detection: dict[int, int] = {}
    for i, slot in enumerate(slots):
        if slot is None:
            continue
        call = (int(slot[0]), int(slot[1]))
        if call in last_of_call:
            before[i].add(last_of_call[call])
        last_of_call[call] = i
        if entries[i].get("hook") == "DoomLoopDetected":
            if slot[0] in last_detection:
                before[i].add(last_detection[slot[0]])
            last_detection[slot[0]] = i
    return before


def _interleaving(
    data: st.DataObject, entries: list[Any], slots: list[Any], events: bool
) -> list[int]:
    """A random order of ``entries`` keeping the four relations (as positions)."""
    before = _must_precede(entries, slots, events)
    chosen: list[int] = []
    for segment in _segments_of(slots):
        left, done = list(segment), set(chosen)
        while left:
            ready = [i for i in left if before[i] <= done]
            pick = data.draw(st.sampled_from(ready))
            left.remove(pick)
            done.add(pick)
            chosen.append(pick)
    return chosen


def _text(entry: Any) -> str:
    return json.dumps(entry, sort_keys=True)


def _compare(
    label: str, entries: list[Any], actual: list[Any], slots: list[Any], events: bool
) -> list[Difference]:
    differences = event_differences if events else execution_differences
    return differences(label, entries, actual, slots)


UNSURE: Final = ""
"""What :func:`_swap_breaks` says when entries of equal content leave the outcome open."""


def _swap_breaks(
    entries: list[Any], slots: list[Any], events: bool, order: list[int], position: int
) -> str | None:
    """The relation swapping ``order[position]`` and the next entry breaks (as the
    difference names it), None when it breaks none, :data:`UNSURE` when another entry of
    equal content may take a swapped one's place (calls sharing an id, ENG-152)."""
    first, second = order[position], order[position + 1]
    texts = [_text(entry) for entry in entries]
    if texts[first] == texts[second]:
        return None  # nothing moved
    segments = _segments_of(slots)
    segment_of = {i: n for n, segment in enumerate(segments) for i in segment}
    if segment_of[first] != segment_of[second]:  # the segment first reached gets a stranger
        if texts[second] in {texts[i] for i in segments[segment_of[first]]}:
            return UNSURE
        return "fence order broken" if slots[first] is None else "batch boundary broken"
    if not events:
        return None  # executions of one batch, in any order
    detections = [entries[i].get("hook") == "DoomLoopDetected" for i in (first, second)]
    if all(detections):
        return "checkpoint order broken"
    if slots[first] != slots[second]:
        return None  # two calls interleaved otherwise
    others = {
        texts[i] for i in segments[segment_of[first]] if slots[i] != slots[first]
    }  # fmt: skip
    if others & {texts[first], texts[second]}:
        return UNSURE
    return "per-call order broken"


@given(st.data())
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_committed_runs_pass_in_any_allowed_order_and_fail_by_a_named_swap(
    data: st.DataObject,
) -> None:
    """ENG-139 on the committed engine vectors: an interleaving keeping fence order,
    batch boundaries, checkpoint order and per-call order passes; swapping two neighbours
    of it fails, naming the relation the swap breaks (or passes, when it breaks none)."""
    label, entries, slots, events = data.draw(st.sampled_from(RUNS))
    order = _interleaving(data, entries, slots, events)
    assert _compare(label, entries, [entries[i] for i in order], slots, events) == []
    position = data.draw(st.integers(0, len(order) - 2))
    broken = _swap_breaks(entries, slots, events, order, position)
    order[position], order[position + 1] = order[position + 1], order[position]
    found = _compare(label, entries, [entries[i] for i in order], slots, events)
    if broken is None:
        assert found == [], found
    elif broken is UNSURE:
        assert len(found) <= 1
    else:
        (difference,) = found
        assert broken in difference.reason, (broken, difference)
