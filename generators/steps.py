"""Small constructors for transcript steps (inputs only, tagged JSON), and for the
curated scenarios made of them.

Shared by the curated scenarios and the Hypothesis strategies so that both
spell steps and tags the same way; :func:`scenario` is the one shape of a
curated scenario. Nothing here computes an expectation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from doomloop_kit.vectorset.files import ABSENT

Step = dict[str, Any]

Scenario = dict[str, Any]
"""A curated scenario: ``name``, ``description`` (the fact it pins), ``spec``, ``tags``,
the transcript members ``option`` / ``initialState`` / ``steps``, and the features no
input reveals (``extraFeatures``, CONF-13)."""

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


def anchor(name: object, value: Any) -> Any:
    """``value`` (an array or object), named ``name`` for later aliases (PROT-33)."""
    return {"$js": "anchor", "name": name, "value": value}


def alias(name: object) -> Any:
    """The very object the earlier anchor ``name`` decoded to (PROT-33)."""
    return {"$js": "alias", "name": name}


def bound(name: object) -> Any:
    """The object the session bound to ``name`` (PROT-37)."""
    return {"$js": "bound", "name": name}


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


def bind(name: str, value: Any) -> Step:
    """Hold ``value`` in the session under ``name`` (PROT-36)."""
    return {"op": "bindObject", "name": name, "value": value}


def set_member(name: str, path: list[str | int], value: Any) -> Step:
    """JS assignment into the object bound to ``name`` (PROT-38)."""
    return {"op": "setMember", "name": name, "path": path, "value": value}


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


def scenario(
    name: str,
    pins: str,
    spec: Sequence[str],
    steps: Sequence[Step],
    *,
    tags: Sequence[str] = (),
    option: Any = ABSENT,
    initial_state: Any = ABSENT,
    extra_features: Sequence[str] = (),
) -> Scenario:
    """One curated scenario: its vector ``<family>/<name>`` pins one fact, ``pins``,
    citing the statements ``spec``. ``option`` is left out for a vector without a
    monitor step; ``extra_features`` are the declared-only features (CONF-13)."""
    entry: Scenario = {"name": name, "description": pins, "spec": list(spec), "tags": list(tags)}
    if option is not ABSENT:
        entry["option"] = option
    if initial_state is not ABSENT:
        entry["initialState"] = initial_state
    entry["steps"] = list(steps)
    if extra_features:
        entry["extraFeatures"] = list(extra_features)
    return entry
