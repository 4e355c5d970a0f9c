"""Responses API items, and OpenAI Codex CLI rollouts, which are made of them.

* Responses items (``responses``): ``function_call`` items (``name``,
  ``arguments`` as JSON text, ``call_id``), assistant ``message`` items
  (their ``output_text`` parts are the text), ``reasoning`` items and
  server-tool items (``web_search_call``, ...) are model output; the output
  items between two input items (a user message, a ``function_call_output``,
  any other ``*_output``) are one response. A ``function_call_output`` is the
  result of call ``call_id``. Any other item type is a server tool, as the
  engine reads it (ENG-56); a ``type`` that is not an item type's name (a
  stream event's ``response.created``, say) is a problem naming its line.
* Codex CLI rollouts (``codex``): JSON lines ``{"timestamp", "type",
  "payload"}``; the ``payload`` of a ``response_item`` line is a Responses
  item, read as above; ``session_meta``, ``turn_context``, ``event_msg`` and
  ``compacted`` lines carry no model output and are passed over. Codex
  executes its own tools: a ``local_shell_call`` (its ``action``) is a call
  ``local_shell`` and a ``custom_tool_call`` (``name``, free-text
  ``input``) a call with arguments ``{"input": <the text>}``; their
  ``*_output`` items are results. Older rollouts hold the items themselves,
  one per line, after a first line with the session's ``id``, and
  ``{"record_type": ...}`` lines, which are passed over. A line of another
  ``type`` with a ``payload`` is a problem naming its line, never a call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from ..events import Call, Event, Skipped
from ..jsonstream import Located
from .common import Assembly, Context, string, text_of

INPUT_ROLES: Final = frozenset({"user", "system", "developer"})
PASSIVE: Final = frozenset({"reasoning"})
"""Output items that neither call a tool nor carry text."""
TEXT_PARTS: Final = frozenset({"output_text", "text"})
RESULTS: Final = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)
"""Input items that answer a client call (``call_id``)."""
CODEX_LINES: Final = frozenset(
    {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}
)
ITEM_TYPE: Final = re.compile(r"[a-z][a-z0-9_]*")
"""What an item type's name looks like (``message``, ``web_search_call``)."""
KNOWN_ITEMS: Final = frozenset(
    {"message", "function_call", "reasoning", "item_reference", "mcp_list_tools"}
    | {"mcp_approval_request", "mcp_approval_response", "compaction"}
)


def responses_item(kind: object) -> bool:
    """True for a ``type`` that names a Responses item the format is recognised by."""
    return isinstance(kind, str) and (
        kind in KNOWN_ITEMS
        or (ITEM_TYPE.fullmatch(kind) is not None and kind.endswith(("_call", "_output")))
    )


class ResponsesReader:
    """A Responses-API item list; consecutive output items are one response."""

    name = "responses"

    def __init__(self, context: Context) -> None:
        self.context = context
        self.response = Assembly(context)

    def flush(self) -> list[Event]:
        """The response read so far (none when no output item came), and a fresh start."""
        return self.response.done()

    def client_call(self, item: Mapping[str, object], kind: str, line: int) -> bool:
        """Other formats' own client-call items; the plain API has none."""
        return False

    def feed(self, record: Located) -> Iterable[Event]:
        return self.item(record.value, record.line)

    def item(self, item: object, line: int) -> list[Event]:
        if not isinstance(item, dict):
            raise self.context.error(line, "a Responses log holds items (JSON objects)")
        kind = item.get("type", "message" if "role" in item else None)
        if not isinstance(kind, str):
            raise self.context.error(line, "a Responses item needs a string `type`")
        if kind == "message":
            role = item.get("role")
            if role == "assistant":
                self.response.at(line)
                self.response.texts.append(text_of(item.get("content"), TEXT_PARTS))
                return []
            if role in INPUT_ROLES:
                return self.flush()
            return [Skipped(line, f"a message item of unknown role {role!r}: left out")]
        if kind == "function_call":
            name = item.get("name")
            if not isinstance(name, str):
                raise self.context.error(line, "a function_call item without a string `name`")
            call = Call(name, item.get("arguments"), string(item.get("call_id")))
            self.response.call(line, call)
            return []
        if kind.endswith("_output") or kind == "item_reference":
            events = self.flush()
            if kind in RESULTS:
                events += self.context.answered(item.get("call_id"), line, item.get("output"))
            return events
        if self.client_call(item, kind, line):
            return []
        if ITEM_TYPE.fullmatch(kind) is None:
            return [Skipped(line, f"a {self.name} record of unknown type {kind!r}: left out")]
        self.response.at(line)
        if kind not in PASSIVE:
            self.response.server.append(item)  # the engine computes its identity (ENG-56, ENG-57)
        return []

    def end(self) -> Iterable[Event]:
        return self.flush()


class CodexReader(ResponsesReader):
    """OpenAI Codex CLI rollout JSON lines (the envelope, or the older bare items)."""

    name = "codex"

    def feed(self, record: Located) -> Iterable[Event]:
        value, line = record.value, record.line
        if not isinstance(value, dict):
            raise self.context.error(line, "a Codex rollout holds JSON objects")
        kind = value.get("type")
        if kind in CODEX_LINES:
            if kind != "response_item":
                return []
            return self.item(value.get("payload"), line)
        if "payload" in value:
            return [Skipped(line, f"a codex line of unknown type {kind!r}: left out")]
        if "record_type" in value or (kind is None and "id" in value and "timestamp" in value):
            return []  # an older rollout's state marker or session line
        if kind is None and "role" not in value:
            raise self.context.error(line, "a Codex rollout line without a `type`")
        return self.item(value, line)

    def client_call(self, item: Mapping[str, object], kind: str, line: int) -> bool:
        call_id = string(item.get("call_id")) or string(item.get("id"))
        if kind == "local_shell_call":
            self.response.call(line, Call("local_shell", item.get("action"), call_id, True))
            return True
        if kind == "custom_tool_call":
            name = item.get("name")
            if not isinstance(name, str):
                raise self.context.error(line, "a custom_tool_call item without a string `name`")
            self.response.call(line, Call(name, {"input": item.get("input")}, call_id, True))
            return True
        return False
