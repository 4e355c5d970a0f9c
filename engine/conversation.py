"""The conversation state the engine saves through the caller's accessor (ENG-159).

Engine-internal and mutable; :meth:`Conversation.to_json` is the persisted
form. Members this engine does not know are kept as loaded.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field

from doomloop_kit.reference import UNDEFINED

IN_PROGRESS = "in_progress"
COMPLETE = "complete"
AWAITING_APPROVAL = "awaiting_approval"
AWAITING_HITL = "awaiting_hitl"
AWAITING_CLIENT_TOOLS = "awaiting_client_tools"
DECISION_STATUSES = (AWAITING_APPROVAL, AWAITING_HITL)

_KNOWN = (
    "status",
    "messages",
    "pendingToolCalls",
    "unsentToolResults",
    "consumedForcedToolChoiceKey",
    "doomLoop",
)


@dataclass
class Conversation:
    """Status, items, pending calls, unsent results, tool-choice key, doom-loop blob."""

    status: str = IN_PROGRESS
    messages: list[dict[str, object]] = field(default_factory=list)
    pending: list[dict[str, object]] = field(default_factory=list)
    unsent: list[dict[str, object]] = field(default_factory=list)
    consumed_tool_choice_key: str | None = None
    doom_loop: object = UNDEFINED
    """The ``doomLoop`` member as loaded or last written; UNDEFINED when absent."""
    other: dict[str, object] = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: Mapping[str, object] | None) -> Conversation:
        if value is None:
            return cls()
        data = copy.deepcopy(dict(value))
        key = data.get("consumedForcedToolChoiceKey")
        return cls(
            status=str(data.get("status", IN_PROGRESS)),
            messages=list(_items(data.get("messages"))),
            pending=list(_items(data.get("pendingToolCalls"))),
            unsent=list(_items(data.get("unsentToolResults"))),
            consumed_tool_choice_key=key if isinstance(key, str) else None,
            doom_loop=data.get("doomLoop", UNDEFINED),
            other={name: member for name, member in data.items() if name not in _KNOWN},
        )

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = dict(self.other)
        result["status"] = self.status
        result["messages"] = self.messages
        if self.pending:
            result["pendingToolCalls"] = self.pending
        if self.unsent:
            result["unsentToolResults"] = self.unsent
        if self.consumed_tool_choice_key is not None:
            result["consumedForcedToolChoiceKey"] = self.consumed_tool_choice_key
        if self.doom_loop is not UNDEFINED:
            result["doomLoop"] = self.doom_loop
        return copy.deepcopy(result)


def _items(value: object) -> list[dict[str, object]]:
    if not isinstance(value, list):
        return []
    return [dict(item) for item in value if isinstance(item, Mapping)]
