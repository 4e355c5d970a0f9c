"""Every family differential fuzzing draws from, monitor and engine alike (public API).

``conformance fuzz`` and the SDK campaign draw ``(shape, transcript)`` pairs:
the monitor families of :mod:`.strategies` as they are, and the engine
families (:data:`.engine_families.ENGINE_FAMILIES`, the committed ones, and
:data:`.engine_edges.EDGE_FAMILIES`, drawn for fuzzing only) with each
scenario wrapped as the one-step transcript of an engine vector
(:func:`~.build.engine_transcript`), so that the runner's machinery runs and
judges both kinds alike.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any, Final

from hypothesis import strategies as st

from . import build, engine_edges, engine_families, strategies
from .strategies import Family

ENGINE_FAMILIES: Final[dict[str, Family]] = {
    **engine_families.ENGINE_FAMILIES,
    **engine_edges.EDGE_FAMILIES,
}
"""Engine families, committed first, then the edge families."""

FAMILIES: Final[dict[str, Family]] = {**strategies.FAMILIES, **ENGINE_FAMILIES}


def is_engine(family: str) -> bool:
    """Whether the family draws engine scenarios (feature ``engine``)."""
    return family in ENGINE_FAMILIES


def draws(family: str) -> st.SearchStrategy[tuple[str, Any]]:
    """``(shape, transcript)`` pairs of one family; an engine scenario comes as the
    transcript of its engine vector (its one ``runScenario`` step holds it)."""
    if not is_engine(family):
        pairs: st.SearchStrategy[tuple[str, Any]] = strategies.transcripts(family, with_shape=True)
        return pairs
    scenarios: st.SearchStrategy[tuple[str, Any]] = ENGINE_FAMILIES[family].strategy()
    return scenarios.map(lambda pair: (pair[0], dict(build.engine_transcript(pair[1]))))


def scenario_of(transcript: Any) -> Any:
    """The scenario of an engine transcript (the input of its one step)."""
    return transcript["steps"][0]["scenario"]


def matching(patterns: Sequence[str]) -> list[str]:
    """The families whose names a pattern matches (``engine-*``: every engine family),
    in registry order. Raises :class:`ValueError` naming a pattern that matches none."""
    for pattern in patterns:
        if not fnmatch.filter(FAMILIES, pattern):
            raise ValueError(
                f"no family matches {pattern!r} (families: {', '.join(sorted(FAMILIES))})"
            )
    return [name for name in FAMILIES if any(fnmatch.fnmatchcase(name, p) for p in patterns)]
