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
of different calls interleaved. The actual entries pass when *some* one-to-one
matching to the expected ones keeps every relation: calls of one batch may share
a call id (ENG-152), so an entry can fit more than one call, and each fit is tried
(:func:`_interleaving`). Otherwise the first broken relation is reported as one
:class:`~.files.Difference` that names it.
"""

from __future__ import annotations

import copy
import itertools
import json
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
            found = _fence(path, expected, segment.indices[0], actual, cursor)
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


def _fence(
    path: str, expected: Sequence[Any], position: int, actual: Sequence[Any], index: int
) -> Difference | None:
    """The fence ``expected[position]`` at ``actual[index]``: None when it is there; fence
    order broken when another expected entry is there instead; else how they differ."""
    want = expected[position]
    differences = compare(want, actual[index], f"{path}/{index}", pointer=True)
    if not differences:
        return None
    first = differences[0]
    misplaced = f"entry {index} should be {_label(want)}, got {_label(actual[index])}"
    if any(_equal(other, actual[index]) for other in expected):
        return Difference(
            f"{path}/{index}", want, actual[index], f"fence order broken ({STATEMENT}): {misplaced}"
        )
    return Difference(first.path, first.expected, first.actual, f"{first.reason}; {misplaced}")


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
    """None when the window of actual entries is an order of the batch that keeps every
    relation (:func:`_interleaving`); else the first broken relation (:func:`_diagnosis`)."""
    batch = _BatchShape.of(segment, expected, order, key, chains)
    if _interleaving(batch, expected, actual, window, key):
        return None
    found = _diagnosis(path, segment, batch, expected, order, actual, window, key)
    assert found is not None, "the walk accepts only what the search accepts"
    return found


@dataclass(frozen=True)
class _BatchShape:
    """The expected entries of one batch, as the matching needs them."""

    chains: bool
    """Events (detections and calls to keep in order), not executions."""
    bit: dict[int, int]
    """Expected index -> its bit in a set of matched entries."""
    by_key: dict[tuple[str, str], list[int]]
    """The entries other than detections, by :func:`_event_key` / :func:`_execution_key`."""
    detections: tuple[int, ...]
    """The ``DoomLoopDetected`` events, in checkpoint order (events only)."""
    previous: dict[int, int]
    """Expected index -> the entry before it in its call (events only)."""
    tail: dict[int, str]
    """Expected index -> the JSON text of it and the rest of its call: two entries with
    the same tail are interchangeable in a matching."""

    @classmethod
    def of(
        cls,
        segment: _Segment,
        expected: Sequence[Any],
        order: Sequence[Any],
        key: Callable[[Any], tuple[str, str]],
        chains: bool,
    ) -> _BatchShape:
        detections = tuple(i for i in segment.indices if chains and _is_detection(expected[i]))
        skipped = frozenset(detections)
        by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
        for i in segment.indices:
            if i not in skipped:
                by_key[key(expected[i])].append(i)
        previous: dict[int, int] = {}
        calls: dict[int, list[int]] = defaultdict(list)
        for i in segment.indices:
            call = calls[int(order[i][1])] if chains else []
            if call:
                previous[i] = call[-1]
            call.append(i)
        tail: dict[int, str] = {}
        for call in calls.values() if chains else [[i] for i in segment.indices]:
            rest = ""
            for i in reversed(call):
                rest = _text(expected[i]) + "\n" + rest
                tail[i] = rest
        bit = {i: 1 << n for n, i in enumerate(segment.indices)}
        return cls(chains, bit, dict(by_key), detections, previous, tail)


def _text(entry: Any) -> str:
    try:
        return json.dumps(entry, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(entry)


def _interleaving(
    batch: _BatchShape,
    expected: Sequence[Any],
    actual: Sequence[Any],
    window: list[int],
    key: Callable[[Any], tuple[str, str]],
) -> bool:
    """Whether the window can be matched one to one to the batch's expected entries, equal
    in content, keeping checkpoint order and per-call order.

    A depth-first search over the window, position by position: an actual entry may take
    an unmatched expected entry of equal content whose call's earlier entries are matched
    (and, for a detection, the next one in checkpoint order). Calls may share an id
    (ENG-152), so an entry may fit more than one call: each choice is tried, except one of
    two whose calls' remaining entries are the same (the choices are interchangeable),
    and a set of matched entries that failed once is not searched again. A batch holds a
    few calls, so the search is small.
    """
    equal: dict[tuple[int, int], bool] = {}

    def fits(i: int, position: int, matched: int) -> bool:
        if matched & batch.bit[i]:
            return False
        before = batch.previous.get(i)
        if before is not None and not matched & batch.bit[before]:
            return False
        if (i, position) not in equal:
            equal[i, position] = _equal(expected[i], actual[window[position]])
        return equal[i, position]

    def choices(position: int, matched: int, detected: int) -> Iterator[tuple[int, int]]:
        checkpoint = batch.chains and _is_detection(actual[window[position]])
        if checkpoint:
            options: Sequence[int] = batch.detections[detected : detected + 1]
        else:
            options = batch.by_key.get(key(actual[window[position]]), ())
        tails: set[str] = set()
        for i in options:
            if fits(i, position, matched) and batch.tail[i] not in tails:
                tails.add(batch.tail[i])
                yield i, detected + checkpoint

    if not window:
        return True
    failed: set[int] = set()
    stack = [(0, choices(0, 0, 0))]
    while stack:
        matched, options = stack[-1]
        step = next(options, None)
        if step is None:
            failed.add(matched)
            stack.pop()
            continue
        i, detected = step
        now = matched | batch.bit[i]
        if len(stack) == len(window):
            return True
        if now not in failed:
            stack.append((now, choices(len(stack), now, detected)))
    return False


def _diagnosis(
    path: str,
    segment: _Segment,
    batch: _BatchShape,
    expected: Sequence[Any],
    order: Sequence[Any],
    actual: Sequence[Any],
    window: list[int],
    key: Callable[[Any], tuple[str, str]],
) -> Difference | None:
    """The first broken relation of a window :func:`_interleaving` refused: a walk that
    matches each actual entry to the first expected entry it can take, then checks
    per-call order on that matching. An entry that no entry of the batch can take breaks
    the batch boundary when it is an entry expected outside the batch, and differs in
    content otherwise."""
    free = {k: list(members) for k, members in batch.by_key.items()}
    matched: dict[int, int] = {}  # expected index -> actual index
    pending_detections = iter(batch.detections)
    inside = frozenset(segment.indices)

    def elsewhere(entry: Any) -> bool:
        return any(_equal(e, entry) for i, e in enumerate(expected) if i not in inside)

    for index in window:
        entry = actual[index]
        if batch.chains and _is_detection(entry):
            want = next(pending_detections, None)
            if want is not None and _equal(expected[want], entry):
                matched[want] = index
                continue
            later = [i for i in batch.detections if i not in matched and i != want]
            if want is not None and any(_equal(expected[i], entry) for i in later):
                return _stray(path, index, entry, segment, expected, want, matched)
            if want is None or elsewhere(entry):
                return _stray(path, index, entry, segment, expected, None, matched)
            return compare(expected[want], entry, f"{path}/{index}", pointer=True)[0]
        candidates = free.get(key(entry), [])
        equal = [i for i in candidates if _equal(expected[i], entry)]
        if not equal and (not candidates or elsewhere(entry)):
            return _stray(path, index, entry, segment, expected, None, matched)
        if not equal:  # same call, other content: show the difference
            return compare(expected[candidates[0]], entry, f"{path}/{index}", pointer=True)[0]
        # calls may share an id: prefer the call whose earlier events have been seen
        ready = [i for i in equal if i not in batch.previous or batch.previous[i] in matched]
        chosen = (ready or equal)[0]
        candidates.remove(chosen)
        matched[chosen] = index
    return _chains(path, segment, expected, order, actual, matched) if batch.chains else None


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


# -- an order for another transcript ----------------------------------------------------


def order_like(
    runs: Sequence[Any], expected_runs: Sequence[Any], expected_order: Sequence[Any]
) -> list[dict[str, list[Any]]]:
    """A partial order for ``runs``, the runs of a transcript that may differ from
    ``expected_runs`` (whose order is ``expected_order``), under which ``runs`` passes
    against itself: the order a vector needs to expect another engine's answer
    (``conformance fuzz --against``).

    Per run, each event and execution takes the slot of the first expected entry of
    equal content not yet taken (None, a fence, when none is left); a run whose
    borrowed slots do not fit (:func:`order_problem`) or under which it would fail
    against itself gets the exact order (every entry a fence). Runs past the expected
    ones get the exact order too.
    """
    order: list[dict[str, list[Any]]] = []
    for number, run in enumerate(runs):
        events, executions = _entries(run, "events"), _entries(run, "executions")
        exact: dict[str, list[Any]] = {
            "events": [None] * len(events),
            "executions": [None] * len(executions),
        }
        if number >= min(len(expected_runs), len(expected_order)):
            order.append(exact)
            continue
        like, slots = expected_runs[number], expected_order[number]
        borrowed: dict[str, list[Any]] = {
            "events": _borrowed(events, _entries(like, "events"), slots.get("events")),
            "executions": _borrowed(
                executions, _entries(like, "executions"), slots.get("executions")
            ),
        }
        fits = order_problem([borrowed], [{"events": events, "executions": executions}]) is None
        passes = fits and not (
            event_differences("", events, events, borrowed["events"])
            or execution_differences("", executions, executions, borrowed["executions"])
        )
        order.append(borrowed if passes else exact)
    return order


def _entries(run: Any, member: str) -> list[Any]:
    found = run.get(member) if isinstance(run, dict) else None
    return list(found) if isinstance(found, list) else []


def _borrowed(entries: list[Any], expected: list[Any], slots: Any) -> list[Any]:
    """Each entry's slot: that of the first untaken expected entry with the same JSON
    text, else None."""
    if not isinstance(slots, list) or len(slots) != len(expected):
        return [None] * len(entries)
    free: dict[str, list[int]] = defaultdict(list)
    for index, entry in enumerate(expected):
        free[_text(entry)].append(index)
    found: list[Any] = []
    for entry in entries:
        same = free.get(_text(entry))
        found.append(copy.deepcopy(slots[same.pop(0)]) if same else None)
    return found
