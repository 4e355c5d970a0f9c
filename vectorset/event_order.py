"""Comparing a run's events and executions by their partial order (ENG-138, ENG-139).

The calls of a concurrent batch run at the same time (ENG-138), so a port may
interleave their hook events, and start their bodies, in more than one order.
The expected run gives the *order* of its two lists:

* ``events``: one *slot* per event, ``None`` for an event outside a
  concurrent batch (a *fence*, totally ordered with every other event), or
  ``[batch, call]`` for an event of a concurrent batch (the batch's number in
  the run, the emitting call's position in the batch);
* ``executions``: one batch number per execution, ``None`` outside a
  concurrent batch.

The actual lists pass when they hold the expected entries in an order that
keeps every relation of ENG-139:

* *fence order*: fences keep their order, and the entries of a batch lie
  between the fences that surround the batch;
* *batch boundary*: the entries of two batches never interleave;
* *checkpoint order*: the ``DoomLoopDetected`` events of a batch keep their
  order (checkpoints run one after another, in emission order);
* *per-call order*: the events of one call keep their order (its
  ``DoomLoopDetected`` < ``PreToolUse`` < ``PostToolUse`` / ``PostToolUseFailure``).

Within a batch, any other order is allowed: executions in any order, events
of different calls interleaved. The first broken relation is reported as one
:class:`~.files.Difference` that names it.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .files import ABSENT, Difference, compare

DETECTED: Final = "DoomLoopDetected"
"""The hook whose events of one batch form the checkpoint chain."""

STATEMENT: Final = "ENG-139"


def _label(entry: Any) -> str:
    """A short name for an event or execution in a message: ``PreToolUse of call c1``."""
    if not isinstance(entry, dict):
        return repr(entry)[:40]
    if "hook" not in entry:
        return f"the execution of call {entry.get('callId')}"
    payload = entry.get("payload")
    fields = payload if isinstance(payload, dict) else {}
    if fields.get("callId") is not None:
        return f"{entry['hook']} of call {fields['callId']}"
    if fields.get("toolName") is not None:
        return f"{entry['hook']} of {fields['toolName']}"
    return str(entry["hook"])


def _event_key(event: Any) -> tuple[str, str]:
    """How an event of a batch other than a detection is matched: hook and call id."""
    if not isinstance(event, dict):
        return ("", repr(event))
    payload = event.get("payload")
    call = payload.get("callId") if isinstance(payload, dict) else None
    return (str(event.get("hook")), str(call))


def _execution_key(execution: Any) -> tuple[str, str]:
    if not isinstance(execution, dict):
        return ("", repr(execution))
    return (str(execution.get("callId")), str(execution.get("name")))


def _is_detection(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("hook") == DETECTED


def _equal(expected: Any, actual: Any) -> bool:
    return not compare(expected, actual, "", pointer=True)


@dataclass(frozen=True)
class _Segment:
    """A fence (one expected entry) or the expected entries of one batch."""

    indices: tuple[int, ...]
    batch: int | None


def _batch_of(slot: Any) -> int | None:
    if slot is None:
        return None
    return int(slot[0]) if isinstance(slot, list) else int(slot)


def _segments(order: Sequence[Any]) -> Iterator[_Segment]:
    position = 0
    while position < len(order):
        batch = _batch_of(order[position])
        end = position + 1
        if batch is not None:
            while end < len(order) and _batch_of(order[end]) == batch:
                end += 1
        yield _Segment(tuple(range(position, end)), batch)
        position = end


def order_problem(order: Sequence[Any], runs: Sequence[Any]) -> str | None:
    """Why an engine vector's ``order`` does not fit the runs of its transcript (None: it
    fits): one order object per run, one slot per event and per execution, and the slots
    of each batch side by side, batches in ascending order (spec/vectors.md#expect).
    The schema has already checked each slot's shape."""
    if len(order) != len(runs):
        return f"{len(order)} order objects for {len(runs)} runs"
    for number, (run_order, run) in enumerate(zip(order, runs, strict=True)):
        for member in ("events", "executions"):
            slots, entries = run_order[member], run[member]
            if len(slots) != len(entries):
                return f"run {number}: {len(slots)} {member} slots for {len(entries)} {member}"
            batches = [s.batch for s in _segments(slots) if s.batch is not None]
            if any(a >= b for a, b in itertools.pairwise(batches)):
                return (
                    f"run {number}: the {member} slots of a batch are not side by side, "
                    f"or batches are out of order ({batches})"
                )
    return None


def event_differences(
    where: str, expected: Sequence[Any], actual: Sequence[Any], order: Sequence[Any]
) -> list[Difference]:
    """The first broken relation between actual and expected events (empty: none)."""
    return _differences(f"{where}/events", expected, actual, order, _event_key, chains=True)


def execution_differences(
    where: str, expected: Sequence[Any], actual: Sequence[Any], order: Sequence[Any]
) -> list[Difference]:
    """The first difference between actual and expected executions (empty: none)."""
    return _differences(
        f"{where}/executions", expected, actual, order, _execution_key, chains=False
    )


def _differences(
    path: str,
    expected: Sequence[Any],
    actual: Sequence[Any],
    order: Sequence[Any],
    key: Callable[[Any], tuple[str, str]],
    *,
    chains: bool,
) -> list[Difference]:
    if len(order) != len(expected):
        raise ValueError(f"{len(order)} order entries for {len(expected)} expected entries")
    cursor = 0
    for segment in _segments(order):
        size = len(segment.indices)
        if cursor + size > len(actual):
            return [_count(path, expected, actual)]
        if segment.batch is None:
            found = _fence(path, expected[segment.indices[0]], actual, cursor)
        else:
            window = list(range(cursor, cursor + size))
            found = _batch(path, segment, expected, order, actual, window, key, chains)
        if found is not None:
            return [found]
        cursor += size
    if cursor != len(actual):
        return [_count(path, expected, actual)]
    return []


def _count(path: str, expected: Sequence[Any], actual: Sequence[Any]) -> Difference:
    return Difference(
        path, list(expected), list(actual), f"{len(actual)} entries, expected {len(expected)}"
    )


def _fence(path: str, want: Any, actual: Sequence[Any], index: int) -> Difference | None:
    differences = compare(want, actual[index], f"{path}/{index}", pointer=True)
    if not differences:
        return None
    first = differences[0]
    return Difference(
        first.path,
        first.expected,
        first.actual,
        f"{first.reason}; entry {index} should be {_label(want)}, got {_label(actual[index])}",
    )


def _batch(
    path: str,
    segment: _Segment,
    expected: Sequence[Any],
    order: Sequence[Any],
    actual: Sequence[Any],
    window: list[int],
    key: Callable[[Any], tuple[str, str]],
    chains: bool,
) -> Difference | None:
    """Match the batch's expected entries to the window of actual ones, then check order."""
    detections = [i for i in segment.indices if chains and _is_detection(expected[i])]
    others: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i in segment.indices:
        if i not in detections:
            others[key(expected[i])].append(i)
    previous: dict[int, int] = {}  # expected index -> the one before it in its call
    if chains:
        last: dict[int, int] = {}
        for i in segment.indices:
            call = int(order[i][1])
            if call in last:
                previous[i] = last[call]
            last[call] = i
    matched: dict[int, int] = {}  # expected index -> actual index
    pending_detections = iter(detections)
    for index in window:
        entry = actual[index]
        if chains and _is_detection(entry):
            want = next(pending_detections, None)
            if want is not None and not _equal(expected[want], entry):
                later = [i for i in detections if i not in matched and i != want]
                if not any(_equal(expected[i], entry) for i in later):
                    # not another checkpoint's detection: a difference of content
                    return compare(expected[want], entry, f"{path}/{index}", pointer=True)[0]
            if want is None or not _equal(expected[want], entry):
                return _stray(path, index, entry, segment, expected, want, matched)
            matched[want] = index
            continue
        free = [i for i in others.get(key(entry), []) if i not in matched]
        if not free:
            return _stray(path, index, entry, segment, expected, None, matched)
        equal = [i for i in free if _equal(expected[i], entry)]
        # calls may share an id: prefer the call whose earlier events have been seen
        ready = [i for i in equal if previous.get(i) is None or previous[i] in matched]
        if not equal:  # same call, other content: show the difference
            return compare(expected[free[0]], entry, f"{path}/{index}", pointer=True)[0]
        matched[(ready or equal)[0]] = index
    return _chains(path, segment, expected, order, actual, matched) if chains else None


def _chains(
    path: str,
    segment: _Segment,
    expected: Sequence[Any],
    order: Sequence[Any],
    actual: Sequence[Any],
    matched: dict[int, int],
) -> Difference | None:
    """Per-call order: the events of one call keep their expected order."""
    by_call: dict[int, list[int]] = defaultdict(list)
    for i in segment.indices:
        by_call[int(order[i][1])].append(i)
    for call, members in sorted(by_call.items()):
        for before, after in itertools.pairwise(members):
            if matched[before] > matched[after]:
                return Difference(
                    f"{path}/{matched[after]}",
                    expected[after],
                    actual[matched[after]],
                    f"per-call order broken ({STATEMENT}): {_label(expected[after])} "
                    f"(entry {matched[after]}) comes before {_label(expected[before])} "
                    f"(entry {matched[before]}) of the same call "
                    f"(call {call} of batch {segment.batch})",
                )
    return None


def _stray(
    path: str,
    index: int,
    entry: Any,
    segment: _Segment,
    expected: Sequence[Any],
    want: int | None,
    matched: dict[int, int],
) -> Difference:
    """An actual entry that does not fit the batch's window: name the relation it breaks."""
    if want is not None:
        return Difference(
            f"{path}/{index}",
            expected[want],
            entry,
            f"checkpoint order broken ({STATEMENT}): the detections of batch {segment.batch} "
            f"come in emission order; entry {index} should be {_label(expected[want])}",
        )
    missing = [i for i in segment.indices if i not in matched]
    late = f"; {_label(expected[missing[0]])} comes after it" if missing else ""
    return Difference(
        f"{path}/{index}",
        ABSENT,
        entry,
        f"batch boundary broken ({STATEMENT}): {_label(entry)} is not an entry of batch "
        f"{segment.batch}, whose entries are {index - len(matched)}.."
        f"{index - len(matched) + len(segment.indices) - 1}{late}",
    )
