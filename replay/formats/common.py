"""What every reader shares: the log's path for messages, and the calls awaiting a result."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Protocol

from ..events import Call, Event, Notice, Response, Result, digest
from ..jsonstream import Located, LogError

MAX_PENDING: Final = 10_000
"""Calls remembered while they wait for a result; the oldest are forgotten beyond it,
so that a log without results does not grow the reader's memory."""


class Reader(Protocol):
    """One format's reader: events for each record, and for the end of the log."""

    name: str

    def feed(self, record: Located) -> Iterable[Event]: ...

    def end(self) -> Iterable[Event]: ...


class Context:
    """The path for messages, and the calls still waiting for a result."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pending: dict[str, int] = {}

    def error(self, line: int, message: str) -> LogError:
        return LogError(self.path, line, message)

    def called(self, call_id: str | None) -> None:
        if call_id is not None:
            self.pending[call_id] = self.pending.get(call_id, 0) + 1
            if len(self.pending) > MAX_PENDING:
                del self.pending[next(iter(self.pending))]

    def answered(self, call_id: object, line: int, content: object = None) -> list[Event]:
        """A result for ``call_id``: a :class:`Result`, or a notice when no call made it."""
        count = self.pending.get(call_id, 0) if isinstance(call_id, str) else 0
        if count == 0 or not isinstance(call_id, str):
            return [Notice(line, f"a tool result for call {call_id!r}, which no earlier call made")]
        if count == 1:
            del self.pending[call_id]
        else:
            self.pending[call_id] = count - 1
        return [Result(line, call_id, digest(content))]

    def forget(self) -> None:
        """A new conversation: no earlier call can be answered any more."""
        self.pending.clear()


class Assembly:
    """A model response read from several records: the line where it starts, its text
    parts, its client calls and its server items, until :meth:`done`."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.line = 0
        self.texts: list[str] = []
        self.calls: list[Call] = []
        self.server: list[dict[str, object]] = []

    def at(self, line: int) -> None:
        """Model output on ``line``: the response starts there, if it has not yet."""
        if not self.line:
            self.line = line

    def call(self, line: int, call: Call) -> None:
        self.at(line)
        self.calls.append(call)
        self.context.called(call.call_id)

    def done(self) -> list[Event]:
        """The response (none when no output came), and a fresh start."""
        if not self.line:
            return []
        response = Response(self.line, "".join(self.texts), tuple(self.calls), tuple(self.server))
        self.line, self.texts, self.calls, self.server = 0, [], [], []
        return [response]


def string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def text_of(content: object, part_types: frozenset[str]) -> str:
    """The text of a message's content: a string, or the text of its text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") in part_types
            and isinstance(part.get("text"), str)
        )
    return ""
