"""Chat messages: OpenAI chat and Anthropic Messages.

* OpenAI chat (``chat``): each ``assistant`` message is one model response:
  its ``content`` (a string or text parts) is the text, its ``tool_calls``
  (``{"id", "function": {"name", "arguments"}}``, arguments as JSON text) the
  calls; a ``tool`` message is the result of call ``tool_call_id``.
* Anthropic Messages (``anthropic``): each ``assistant`` message is one
  response: its ``text`` blocks are the text, its ``tool_use`` blocks
  (``id``, ``name``, ``input`` -- a parsed value) the calls, all of one
  message in one round; ``server_tool_use`` blocks are server tools
  (``server:<name>``). ``tool_result`` blocks of a ``user`` message are the
  results (``tool_use_id``). A Messages API response body (``"type":
  "message"``) is such an assistant message.
A message of a role neither uses is a problem naming its line, left out.
One log keeps to one dialect: an OpenAI marker (``tool_calls``, a ``tool``
message) and an Anthropic one (``tool_use``/``tool_result`` blocks) in the
same log is an error, as is any other mixing of formats.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from ..events import Call, Event, Notice, Response, Skipped
from ..jsonstream import Located
from .common import Context, string, text_of

INPUT_ROLES: Final = frozenset({"user", "system", "developer"})
ANTHROPIC_BLOCKS: Final = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"}
)
"""Content block types only Anthropic Messages use."""
TEXT_PARTS: Final = frozenset({"text", "output_text"})


def anthropic_blocks(message: Mapping[str, object]) -> bool:
    """True when the message's content has a block only Anthropic Messages use."""
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(block, dict)
        and isinstance(block.get("type"), str)
        and (block["type"] in ANTHROPIC_BLOCKS or block["type"].endswith("_tool_result"))
        for block in content
    )


def chat_markers(message: Mapping[str, object]) -> bool:
    """True when the message has a member only OpenAI chat uses."""
    return message.get("role") in ("tool", "function") or bool(
        message.get("tool_calls") or message.get("function_call")
    )


class ChatReader:
    """OpenAI chat or Anthropic Messages; the dialect is the first one the log shows."""

    def __init__(self, context: Context, dialect: str | None = None) -> None:
        self.context = context
        self.dialect = dialect
        self.name = dialect or "chat"

    def _dialect(self, message: Mapping[str, object], line: int) -> None:
        found = (
            "anthropic"
            if anthropic_blocks(message)
            else ("chat" if chat_markers(message) else None)
        )
        if found is None:
            return
        if self.dialect is None:
            self.dialect = self.name = found
        elif found != self.dialect:
            raise self.context.error(
                line, f"a {found} message in a log read as {self.dialect} (formats cannot mix)"
            )

    def feed(self, record: Located) -> Iterable[Event]:
        message, line = record.value, record.line
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise self.context.error(line, "a chat log holds messages with a string `role`")
        self._dialect(message, line)
        role = message["role"]
        if role == "assistant":
            return self._response(message, line)
        if role == "tool":
            return self.context.answered(message.get("tool_call_id"), line, message.get("content"))
        if role in INPUT_ROLES:
            return self._input(message, line)
        if role == "function":
            return []
        return [Skipped(line, f"a chat message of unknown role {role!r}: left out")]

    def _input(self, message: Mapping[str, object], line: int) -> list[Event]:
        """Anthropic results: the ``tool_result`` blocks of a user message."""
        content = message.get("content")
        events: list[Event] = []
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                events += self.context.answered(
                    block.get("tool_use_id"), line, block.get("content")
                )
        return events

    def _response(self, message: Mapping[str, object], line: int) -> list[Event]:
        events: list[Event] = []
        calls: list[Call] = []
        server: list[dict[str, object]] = []
        content = message.get("content")
        for index, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_use":
                name = block.get("name")
                if not isinstance(name, str):
                    raise self.context.error(line, f"tool_use block {index} has no string `name`")
                call_id = string(block.get("id"))
                calls.append(Call(name, block.get("input"), call_id, parsed=True))
                self.context.called(call_id)
            elif kind == "server_tool_use" and isinstance(block.get("name"), str):
                server.append({"type": block["name"], "input": block.get("input")})
        raw_calls = message.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise self.context.error(line, "`tool_calls` must be a list")
        for index, raw in enumerate(raw_calls):
            kind = raw.get("type", "function") if isinstance(raw, dict) else None
            if kind != "function" and isinstance(kind, str):
                events.append(
                    Notice(
                        line,
                        f"tool call {index} is a {kind!r} call, not a function call: "
                        "left out (the engine checks function calls only)",
                    )
                )
                continue
            function = raw.get("function") if isinstance(raw, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise self.context.error(line, f"tool call {index} has no `function.name`")
            call_id = string(raw.get("id"))
            calls.append(Call(function["name"], function.get("arguments"), call_id))
            self.context.called(call_id)
        legacy = message.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            calls.append(Call(legacy["name"], legacy.get("arguments")))
        text = text_of(content, TEXT_PARTS)
        events.append(Response(line, text, tuple(calls), tuple(server)))
        return events

    def end(self) -> Iterable[Event]:
        return []
