"""How an engine vector's transcript is judged (spec/vectors.md#engine-vectors).

The expected and the actual transcript (``{"scenario", "runs": [...]}``,
ENG-156) are compared run by run with the comparison rule of
:func:`~.files.compare`. Within a run the members are compared in a fixed
order, so that the first difference reported is the earliest thing that went
wrong: the dispatches by index, then ``events``, ``executions``, ``end``,
``state``, ``loopKeyInvocations``, ``config``, ``configWarnings``, and the
remaining members. ``warnings`` is informative (ENG-108) except for the
loop-key fallback warning, whose text must be present (ENG-168). When the
expected run comes with its order (an engine vector's ``order``), ``events``
and ``executions`` are compared by their partial order (:mod:`.event_order`,
ENG-139); without, in their exact order. ``end.error``
is compared by its ``kind`` (and ``dispatch``), its ``message`` being
informative (ENG-141). A difference is named ``run R, dispatch D, /json/pointer``
(or ``run R, /member/...`` outside the dispatches).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from .event_order import event_differences, execution_differences
from .files import ABSENT, Difference, compare

RUN_ORDER: Final = (
    "events",
    "executions",
    "end",
    "state",
    "loopKeyInvocations",
    "config",
    "configWarnings",
)
"""The run members compared after the dispatches, in this order."""

WARNINGS: Final = "warnings"
REQUIRED_WARNING: Final = '[DoomLoop] tool "'
"""How the one warning text a statement requires starts: a loop-key fallback (ENG-168).
Every expected warning of that form must be among the actual warnings; nothing
else about warnings (their number, order or other texts) is compared (ENG-108)."""

ERROR_MESSAGE: Final = "message"
"""The member of ``end.error`` that is not compared (ENG-141)."""


def compare_transcripts(
    expected: Any, actual: Any, order: Sequence[Any] | None = None
) -> list[Difference]:
    """Every difference between two transcripts, the earliest first (empty: equal).

    ``order`` is the expected runs' partial order, one ``{"events",
    "executions"}`` per run (an engine vector's ``order``, ENG-139); None
    compares both lists in their exact order.
    """
    if not (_is_transcript(expected) and _is_transcript(actual)):
        return compare(expected, actual, "", pointer=True)
    return list(_differences(expected, actual, order))


def _is_transcript(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("runs"), list)


def _differences(
    expected: Mapping[str, Any], actual: Mapping[str, Any], order: Sequence[Any] | None
) -> Iterator[Difference]:
    expected_runs, actual_runs = expected["runs"], actual["runs"]
    for index, (want, got) in enumerate(zip(expected_runs, actual_runs, strict=False)):
        slots = order[index] if order is not None and index < len(order) else None
        yield from _run_differences(index, want, got, slots)
    if len(expected_runs) != len(actual_runs):
        yield _count_difference("/runs", expected_runs, actual_runs, "runs")
    rest = {k: v for k, v in expected.items() if k != "runs"}
    yield from compare(rest, {k: v for k, v in actual.items() if k != "runs"}, "", pointer=True)


def _run_differences(
    index: int, expected: Any, actual: Any, slots: Sequence[Any] | None
) -> Iterator[Difference]:
    where = f"run {index}, "
    if not (isinstance(expected, Mapping) and isinstance(actual, Mapping)):
        yield from compare(expected, actual, f"{where}/runs/{index}", pointer=True)
        return
    yield from _dispatch_differences(where, expected.get("dispatches"), actual.get("dispatches"))
    orders = {"events": event_differences, "executions": execution_differences}
    for name in RUN_ORDER:
        given = slots.get(name) if isinstance(slots, Mapping) else None
        if name in orders and given is not None and _both_lists(expected, actual, name):
            yield from orders[name](where, expected[name], actual[name], given)
        elif name == "end":
            yield from _member(where, name, _without_message(expected), _without_message(actual))
        else:
            yield from _member(where, name, expected, actual)
    yield from _warning_differences(where, expected.get(WARNINGS), actual.get(WARNINGS))
    done = {"dispatches", WARNINGS, *RUN_ORDER}
    rest = {k: v for k, v in expected.items() if k not in done}
    yield from compare(
        rest, {k: v for k, v in actual.items() if k not in done}, where, pointer=True
    )


def _warning_differences(where: str, expected: Any, actual: Any) -> Iterator[Difference]:
    """Each required warning text of the expected run appears in the actual one (ENG-168)."""
    if not isinstance(expected, list):
        return
    present = (
        {text for text in actual if isinstance(text, str)} if isinstance(actual, list) else set()
    )
    for text in expected:
        if isinstance(text, str) and text.startswith(REQUIRED_WARNING) and text not in present:
            yield Difference(f"{where}/{WARNINGS}", text, ABSENT, "a required warning is missing")
            return


def _both_lists(expected: Mapping[str, Any], actual: Mapping[str, Any], name: str) -> bool:
    return isinstance(expected.get(name), list) and isinstance(actual.get(name), list)


def _without_message(run: Mapping[str, Any]) -> Mapping[str, Any]:
    """The run with ``end.error.message`` left out: the error's kind is compared (ENG-141)."""
    end = run.get("end")
    if not isinstance(end, Mapping):
        return run
    error = end.get("error")
    if not isinstance(error, Mapping) or ERROR_MESSAGE not in error:
        return run
    kept = {name: value for name, value in error.items() if name != ERROR_MESSAGE}
    return {**run, "end": {**end, "error": kept}}


def _member(
    where: str, name: str, expected: Mapping[str, Any], actual: Mapping[str, Any]
) -> list[Difference]:
    return compare(
        {name: expected[name]} if name in expected else {},
        {name: actual[name]} if name in actual else {},
        where,
        pointer=True,
    )


def _dispatch_differences(where: str, expected: Any, actual: Any) -> Iterator[Difference]:
    if not (isinstance(expected, list) and isinstance(actual, list)):
        yield from compare(expected, actual, f"{where}/dispatches", pointer=True)
        return
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        yield from compare(want, got, f"{where}dispatch {index}, ", pointer=True)
    if len(expected) != len(actual):
        yield _count_difference(f"{where}/dispatches", expected, actual, "dispatches")


def _count_difference(
    path: str, expected: Sequence[Any], actual: Sequence[Any], what: str
) -> Difference:
    return Difference(path, expected, actual, f"{len(actual)} {what}, expected {len(expected)}")
