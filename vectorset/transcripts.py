"""How an engine vector's transcript is judged (spec/vectors.md#engine-vectors).

The expected and the actual transcript (``{"scenario", "runs": [...]}``,
ENG-15) are compared run by run with the comparison rule of
:func:`~.files.compare`. Within a run the members are compared in a fixed
order, so that the first difference reported is the earliest thing that went
wrong: the dispatches by index, then ``events``, ``executions``, ``end``,
``state``, ``loopKeyInvocations``, ``config``, ``configWarnings``, and the
remaining members. ``warnings`` is informative (ENG-15, ENG-108): only its
length is compared. A difference is named ``run R, dispatch D, /json/pointer``
(or ``run R, /member/...`` outside the dispatches).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from .files import Difference, compare

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

INFORMATIVE: Final = "warnings"
"""The run member compared by length only (ENG-108)."""


def compare_transcripts(expected: Any, actual: Any) -> list[Difference]:
    """Every difference between two transcripts, the earliest first (empty: equal)."""
    if not (_is_transcript(expected) and _is_transcript(actual)):
        return compare(expected, actual, "", pointer=True)
    return list(_differences(expected, actual))


def _is_transcript(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("runs"), list)


def _differences(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> Iterator[Difference]:
    expected_runs, actual_runs = expected["runs"], actual["runs"]
    for index, (want, got) in enumerate(zip(expected_runs, actual_runs, strict=False)):
        yield from _run_differences(index, want, got)
    if len(expected_runs) != len(actual_runs):
        yield _count_difference("/runs", expected_runs, actual_runs, "runs")
    rest = {k: v for k, v in expected.items() if k != "runs"}
    yield from compare(rest, {k: v for k, v in actual.items() if k != "runs"}, "", pointer=True)


def _run_differences(index: int, expected: Any, actual: Any) -> Iterator[Difference]:
    where = f"run {index}, "
    if not (isinstance(expected, Mapping) and isinstance(actual, Mapping)):
        yield from compare(expected, actual, f"{where}/runs/{index}", pointer=True)
        return
    yield from _dispatch_differences(where, expected.get("dispatches"), actual.get("dispatches"))
    for name in RUN_ORDER:
        yield from _member(where, name, expected, actual)
    want, got = expected.get(INFORMATIVE), actual.get(INFORMATIVE)
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            yield _count_difference(f"{where}/{INFORMATIVE}", want, got, "warnings (length only)")
    else:
        yield from _member(where, INFORMATIVE, expected, actual)
    done = {"dispatches", INFORMATIVE, *RUN_ORDER}
    rest = {k: v for k, v in expected.items() if k not in done}
    yield from compare(
        rest, {k: v for k, v in actual.items() if k not in done}, where, pointer=True
    )


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
