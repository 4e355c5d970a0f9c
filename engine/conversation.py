"""The conversation state the engine saves through the caller's accessor (ENG-159).

Engine-internal and mutable; :meth:`Conversation.to_json` is the persisted
form. Members this engine does not know are kept as loaded.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field

from doomloop_kit.jsvalue import jsjson
from doomloop_kit.jsvalue.utf16 import JS_WHITESPACE
from doomloop_kit.jsvalue.values import finite_number, is_number
from doomloop_kit.reference import UNDEFINED, CanonicalizationError, canonicalize

from .identity import Malformed, parse_arguments

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


def unwritten(loaded: Mapping[str, object], decision_resume: bool) -> str | None:
    """Why a loaded state is one the SDK never writes, so that its run is outside the
    domain (ENG-151 (d)); None when it is not."""
    if "messages" in loaded and not isinstance(loaded["messages"], list):
        return "messages is not an array"
    for name in ("pendingToolCalls", "unsentToolResults"):
        if name not in loaded:
            continue
        listed = loaded[name]
        if not isinstance(listed, list) or not listed:
            return f"{name} is not a non-empty array"
        if not all(
            isinstance(entry, Mapping) and isinstance(entry.get("callId"), str) for entry in listed
        ):
            return f"an entry of {name} is not an object with a string callId"
    for entry in _items(loaded.get("pendingToolCalls")):
        if _overflows(entry.get("arguments")):
            return "a pending call's arguments hold a number beyond the double range"
    waiting = loaded.get("status") in DECISION_STATUSES
    if decision_resume and waiting and "pendingToolCalls" not in loaded:
        return f"a decision resume of a state {loaded['status']} with no pending call"
    return None


def _overflows(raw: object) -> bool:
    """Whether raw arguments parse (as JS would) to a value holding a non-finite number."""
    if not isinstance(raw, str):
        return False
    try:
        parsed = jsjson.loads(raw.strip(JS_WHITESPACE))
    except ValueError:
        return False
    stack = [parsed]
    while stack:
        value = stack.pop()
        if is_number(value) and finite_number(value) is None:
            return True
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, Mapping):
            stack.extend(value.values())
    return False


def indistinct(pending: list[dict[str, object]]) -> str | None:
    """Two pending calls the SDK's state cannot tell apart though their items differ
    (ENG-151 (e)): the same call id, name and parsed arguments; None when there are none."""
    first: dict[tuple[object, ...], dict[str, object]] = {}
    for item in pending:
        seen = first.setdefault(_kept_by_sdk(item), item)
        if seen != item:
            return f"pending calls {item.get('callId')!r} differ only in what the SDK does not keep"
    return None


def _kept_by_sdk(item: Mapping[str, object]) -> tuple[object, ...]:
    """What the SDK's state keeps of a pending call: call id, name, parsed arguments."""
    raw = item.get("arguments")
    if not isinstance(raw, str):
        return (item.get("callId"), item.get("name"), "raw", repr(raw))
    parsed = parse_arguments(raw)
    if isinstance(parsed, Malformed):
        return (item.get("callId"), item.get("name"), "malformed", repr(parsed.raw))
    try:
        return (item.get("callId"), item.get("name"), "parsed", canonicalize(parsed))
    except CanonicalizationError:  # a value JCS refuses: its JSON text stands in
        return (item.get("callId"), item.get("name"), "text", jsjson.stringify(parsed))
