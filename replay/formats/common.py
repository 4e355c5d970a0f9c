"""What every reader shares: the log's path for messages, and the calls awaiting a result."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Protocol

from ..events import Event, Notice, Result, digest
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
