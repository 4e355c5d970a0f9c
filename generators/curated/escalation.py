"""Escalation budget: canEscalate, consumeEscalation and the escalate rung (MON-52..54)."""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import can_escalate, consume, get_state, path_rounds, resume

FAMILY = "escalation"
DESCRIPTION = "the escalate rung and its budget: consumption, fall-through, persistence"

LADDER = {"observe": 1, "steer": 2, "escalate": 3, "block": 5, "stop": 7}


def _option(**escalation: Any) -> dict[str, Any]:
    return {"ladder": LADDER, "escalation": {"model": "strong", **escalation}}


SCENARIOS: list[dict[str, Any]] = [
    {
        "name": "escalate-with-model",
        "description": "with a model configured the escalate rung fires at its threshold",
        "spec": ["MON-35", "MON-52", "LAD-03", "LAD-05", "CFG-23"],
        "tags": ["escalation"],
        "option": _option(maxEscalations=1),
        "steps": [can_escalate(), *path_rounds([["a"]] * 4)],
    },
    {
        "name": "budget-exhausted-falls-through",
        "description": "once consumeEscalation exhausts the budget, canEscalate is false and the streak falls through to steer",
        "spec": ["MON-52", "MON-54", "LAD-05"],
        "tags": ["escalation"],
        "option": _option(maxEscalations=1),
        "steps": [
            *path_rounds([["a"]] * 3),
            consume(),
            can_escalate(),
            *path_rounds([["a"]], start=3),
            *path_rounds([["a"]], start=4),
            get_state(),
        ],
    },
    {
        "name": "consume-beyond-budget",
        "description": "consumeEscalation adds one unconditionally, even past the budget",
        "spec": ["MON-54", "STATE-08"],
        "tags": ["escalation"],
        "option": _option(maxEscalations=2),
        "steps": [
            can_escalate(),
            consume(),
            can_escalate(),
            consume(),
            can_escalate(),
            consume(),
            get_state(),
        ],
    },
    {
        "name": "no-mechanism",
        "description": "without a mechanism canEscalate is false and consuming is still counted",
        "spec": ["MON-52", "MON-53", "MON-54"],
        "tags": ["escalation"],
        "option": {"ladder": LADDER},
        "steps": [
            can_escalate(),
            consume(),
            can_escalate(),
            get_state(),
            *path_rounds([["a"]] * 3),
        ],
    },
    {
        "name": "advisor-only",
        "description": "an advisor alone is a mechanism: canEscalate true, default budget 2",
        "spec": ["CFG-21", "CFG-22", "CFG-24", "MON-52"],
        "tags": ["escalation"],
        "option": {"ladder": LADDER, "escalation": {"advisor": {"model": "adv"}}},
        "steps": [can_escalate(), consume(), can_escalate(), consume(), can_escalate()],
    },
    {
        "name": "escalations-used-persisted",
        "description": "escalationsUsed survives a resume, so the exhausted budget stays exhausted",
        "spec": ["STATE-08", "STATE-28", "MON-52"],
        "tags": ["escalation", "resume"],
        "option": _option(maxEscalations=1),
        "steps": [consume(), resume(), can_escalate(), *path_rounds([["a"]] * 3), get_state()],
    },
    {
        "name": "text-verdict-escalates",
        "description": "text verdicts use the same ladder with allowEscalate = canEscalate()",
        "spec": ["MON-44", "MON-47", "MON-52"],
        "tags": ["escalation", "text"],
        "option": _option(maxEscalations=1),
        "steps": [{"op": "recordAssistantText", "text": "Retrying."}] * 3
        + [consume(), {"op": "recordAssistantText", "text": "Retrying."}],
    },
]
