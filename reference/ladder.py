"""Mapping a streak onto the strongest rung it meets (spec section 8, LAD-01..LAD-08)."""

from __future__ import annotations

from typing import Final

from .config import RUNGS, Ladder, Rung

Action = Rung

ACTION_STRENGTH: Final[dict[str, int]] = {rung: index for index, rung in enumerate(RUNGS)}
"""observe < steer < escalate < block < stop (LAD-01)."""


def rung_meets(ladder: Ladder, rung: Action, streak: float) -> bool:
    """A rung meets when it is enabled and the streak reaches its threshold."""
    threshold = ladder.threshold(rung)
    return threshold is not False and streak >= threshold


def resolve_ladder_action(
    ladder: Ladder, streak: float, *, allow_block: bool, allow_escalate: bool = True
) -> Action | None:
    """The first rung that meets, checked stop, block, escalate, steer, observe (LAD-02..LAD-05).

    ``allow_block`` and ``allow_escalate`` take the block and escalate rungs
    out of consideration, so the streak falls through to weaker rungs.
    """
    order: tuple[tuple[Action, bool], ...] = (
        ("stop", True),
        ("block", allow_block),
        ("escalate", allow_escalate),
        ("steer", True),
        ("observe", True),
    )
    for rung, allowed in order:
        if allowed and rung_meets(ladder, rung, streak):
            return rung
    return None
