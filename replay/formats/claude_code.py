"""Claude Code session JSONL (``claude-code``): one record per line, as Claude Code saves it.

Each line has a ``type``; ``assistant`` and ``user`` lines carry an
Anthropic ``message``. Claude Code writes the content blocks of one model
message on consecutive lines that share ``message.id``: those lines are one
response, so the parallel ``tool_use`` blocks of one message are one round
(``name``, ``input``, ``id``), and its ``text`` blocks its text. The
``tool_result`` blocks of ``user`` lines are the results (``tool_use_id``).
Lines of a sub-agent (``isSidechain: true``) belong to another conversation
and are left out, with one notice; ``summary``, ``system`` and the other
bookkeeping lines carry no model output and are passed over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from ..events import Call, Event, Notice, Response
from ..jsonstream import Located
from .common import Context, string, text_of

MESSAGE_LINES: Final = frozenset({"assistant", "user"})


class ClaudeCodeReader:
    """Claude Code session lines; blocks of one message id make one response."""

    name = "claude-code"

    def __init__(self, context: Context) -> None:
        self.context = context
        self.message_id: object = None
        self.line = 0
        self.texts: list[str] = []
        self.calls: list[Call] = []
        self.server: list[dict[str, object]] = []
        self.results: list[Event] = []
        """Results seen while the response is still open: given after it."""
        self.sidechain = False

    def _flush(self) -> list[Event]:
        events: list[Event] = []
        if self.line:
            text = "".join(self.texts)
            events.append(Response(self.line, text, tuple(self.calls), tuple(self.server)))
        events += self.results
        self.message_id, self.line = None, 0
        self.texts, self.calls, self.server, self.results = [], [], [], []
        return events

    def feed(self, record: Located) -> Iterable[Event]:
        entry, line = record.value, record.line
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            raise self.context.error(line, "a Claude Code session holds records with a `type`")
        if entry["type"] not in MESSAGE_LINES:
            return []
        if entry.get("isSidechain") is True:
            if self.sidechain:
                return []
            self.sidechain = True
            return [Notice(line, "sub-agent (sidechain) messages are left out of this replay")]
        message = entry.get("message")
        if not isinstance(message, dict):
            raise self.context.error(line, f"a Claude Code {entry['type']} line without `message`")
        if entry["type"] == "user":
            return self._user(message, line)
        return self._assistant(message, line)

    def _user(self, message: Mapping[str, object], line: int) -> list[Event]:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        events: list[Event] = []
        if len(results) < len(blocks) or not blocks:
            events += self._flush()  # a user's own words close the response
        for block in results:
            answered = self.context.answered(block.get("tool_use_id"), line, block.get("content"))
            if self.line:
                self.results += answered
            else:
                events += answered
        return events

    def _assistant(self, message: Mapping[str, object], line: int) -> list[Event]:
        events: list[Event] = []
        message_id = message.get("id")
        if self.line and (message_id is None or message_id != self.message_id):
            events += self._flush()
        if not self.line:
            self.line, self.message_id = line, message_id
        content = message.get("content")
        self.texts.append(text_of(content, frozenset({"text"})))
        for index, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                name = block.get("name")
                if not isinstance(name, str):
                    raise self.context.error(line, f"tool_use block {index} has no string `name`")
                call_id = string(block.get("id"))
                self.calls.append(Call(name, block.get("input"), call_id, parsed=True))
                self.context.called(call_id)
            elif block.get("type") == "server_tool_use" and isinstance(block.get("name"), str):
                self.server.append({"type": block["name"], "input": block.get("input")})
        return events

    def end(self) -> Iterable[Event]:
        return self._flush()
