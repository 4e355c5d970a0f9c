"""Escalation budget: canEscalate, consumeEscalation and the escalate rung (MON-52..54)."""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import can_escalate, consume, get_state, path_rounds, resume, scenario

FAMILY = "escalation"
DESCRIPTION = "the escalate rung and its budget: consumption, fall-through, persistence"

LADDER = {"observe": 1, "steer": 2, "escalate": 3, "block": 5, "stop": 7}


def _option(**escalation: Any) -> dict[str, Any]:
    return {"ladder": LADDER, "escalation": {"model": "strong", **escalation}}


SCENARIOS: list[dict[str, Any]] = [
    scenario(
        "escalate-with-model",
        "with a model configured the escalate rung fires at its threshold",
        ["MON-35", "MON-52", "LAD-03", "LAD-05", "CFG-23"],
        [can_escalate(), *path_rounds([["a"]] * 4)],
        tags=["escalation"],
        option=_option(maxEscalations=1),
    ),
    scenario(
        "budget-exhausted-falls-through",
        "once consumeEscalation exhausts the budget, canEscalate is false and the streak falls through to steer",
        ["MON-52", "MON-54", "LAD-05"],
        [
            *path_rounds([["a"]] * 3),
            consume(),
            can_escalate(),
            *path_rounds([["a"]], start=3),
            *path_rounds([["a"]], start=4),
            get_state(),
        ],
        tags=["escalation"],
        option=_option(maxEscalations=1),
    ),
    scenario(
        "consume-beyond-budget",
        "consumeEscalation adds one unconditionally, even past the budget",
        ["MON-54", "STATE-08"],
        [
            can_escalate(),
            consume(),
            can_escalate(),
            consume(),
            can_escalate(),
            consume(),
            get_state(),
        ],
        tags=["escalation"],
        option=_option(maxEscalations=2),
    ),
    scenario(
        "no-mechanism",
        "without a mechanism canEscalate is false and consuming is still counted",
        ["MON-52", "MON-53", "MON-54"],
        [
            can_escalate(),
            consume(),
            can_escalate(),
            get_state(),
            *path_rounds([["a"]] * 3),
        ],
        tags=["escalation"],
        option={"ladder": LADDER},
    ),
    scenario(
        "advisor-only",
        "an advisor alone is a mechanism: canEscalate true, default budget 2",
        ["CFG-21", "CFG-22", "CFG-24", "MON-52"],
        [can_escalate(), consume(), can_escalate(), consume(), can_escalate()],
        tags=["escalation"],
        option={"ladder": LADDER, "escalation": {"advisor": {"model": "adv"}}},
    ),
    scenario(
        "escalations-used-persisted",
        "escalationsUsed survives a resume, so the exhausted budget stays exhausted",
        ["STATE-08", "STATE-28", "MON-52"],
        [consume(), resume(), can_escalate(), *path_rounds([["a"]] * 3), get_state()],
        tags=["escalation", "resume"],
        option=_option(maxEscalations=1),
    ),
    scenario(
        "text-verdict-escalates",
        "text verdicts use the same ladder with allowEscalate = canEscalate()",
        ["MON-44", "MON-47", "MON-52"],
        [{"op": "recordAssistantText", "text": "Retrying."}] * 3
        + [consume(), {"op": "recordAssistantText", "text": "Retrying."}],
        tags=["escalation", "text"],
        option=_option(maxEscalations=1),
    ),
]
