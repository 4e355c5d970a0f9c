"""Small constructors for transcript steps (inputs only, tagged JSON).

Shared by the curated scenarios and the Hypothesis strategies so that both
spell steps the same way. Nothing here computes an expectation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Step = dict[str, Any]

UNDEFINED: Any = {"$js": "undefined"}
NAN: Any = {"$js": "number", "value": "NaN"}
INFINITY: Any = {"$js": "number", "value": "Infinity"}
NEG_INFINITY: Any = {"$js": "number", "value": "-Infinity"}
NEG_ZERO: Any = {"$js": "number", "value": "-0"}
FUNCTION: Any = {"$js": "function"}
SYMBOL: Any = {"$js": "symbol"}


def bigint(value: int) -> Any:
    return {"$js": "bigint", "value": str(value)}


def ref(up: int) -> Any:
    return {"$js": "ref", "up": up}


def nest(depth: int, value: Any) -> Any:
    return {"$js": "nest", "depth": depth, "value": value}


def returns(value: Any) -> Any:
    """A loop-key function that returns ``value`` (``UNDEFINED`` = returns nothing)."""
    return {"$js": "function", "returns": value}


def throws(message: str) -> Any:
    return {"$js": "function", "throws": message}


def declare(round: float, calls: Iterable[tuple[str, Any]]) -> Step:
    return {
        "op": "declareRound",
        "round": round,
        "calls": [{"toolName": tool, "keyMaterial": key} for tool, key in calls],
    }


def record(tool: str, key: Any, round: float, **options: Any) -> Step:
    step: Step = {"op": "recordToolCall", "toolName": tool, "keyMaterial": key, "round": round}
    if options:
        step["options"] = options
    return step


def text(value: str) -> Step:
    return {"op": "recordAssistantText", "text": value}


def op(name: str, **inputs: Any) -> Step:
    return {"op": name, **inputs}


def get_state() -> Step:
    return {"op": "getState"}


def resume() -> Step:
    return {"op": "resume"}


def restore(state: Any) -> Step:
    return {"op": "restore", "state": state}


def can_escalate() -> Step:
    return {"op": "canEscalate"}


def consume() -> Step:
    return {"op": "consumeEscalation"}


def reset_text() -> Step:
    return {"op": "resetTextStreak"}


def round_steps(
    round: float,
    calls: Sequence[tuple[str, Any]],
    *,
    declared: bool = True,
    order: Sequence[int] | None = None,
) -> list[Step]:
    """One round: an optional declaration of ``calls``, then a record of each.

    ``order`` permutes the records (arrival order) without touching the
    declaration.
    """
    steps: list[Step] = [declare(round, calls)] if declared else []
    indices = range(len(calls)) if order is None else order
    steps.extend(record(calls[i][0], calls[i][1], round) for i in indices)
    return steps


def path_rounds(
    rounds: Sequence[Sequence[str]], *, tool: str = "read", declared: bool = True, start: int = 0
) -> list[Step]:
    """``read({path: X})`` rounds, as in the brief's fact table."""
    steps: list[Step] = []
    for offset, paths in enumerate(rounds):
        steps += round_steps(
            start + offset, [(tool, {"path": p}) for p in paths], declared=declared
        )
    return steps
