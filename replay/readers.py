"""The three log formats, and which one a log is in.

* ``chat`` -- OpenAI-style chat messages: ``assistant`` messages with
  ``tool_calls`` (arguments as JSON text), ``tool`` messages with results.
  Each assistant message is one model response.
* ``responses`` -- a Responses-API item list: ``function_call``,
  ``function_call_output``, ``message``, ``reasoning`` and server-tool items
  (``web_search_call`` ...). The output items between two input items form
  one model response.
* ``doomloop`` -- the kit's own JSON lines (``docs/guide/replay.md``): one
  record per line with a ``kind``: ``response``, ``result``, ``user``,
  ``resume``.

The first record that has a ``kind``, a ``type``, or a ``role`` other than
an input role (user, system, developer) decides the format; leading input
messages are the same in every format. A record of another format later on
is an error naming its line. A tool result whose call the log never showed is
a :class:`~.events.Notice` (a warning): a log cut at the front has them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Final, Protocol

from doomloop_kit.reference import UNDEFINED

from .events import (
    Call,
    Event,
    Notice,
    Response,
    Resume,
    ServerItem,
    parse_arguments,
    server_identity,
)
from .jsonstream import Located, LogError, read_values

FORMATS: Final = ("chat", "responses", "doomloop")
INPUT_ROLES: Final = frozenset({"user", "system", "developer"})
RESPONSES_PASSIVE: Final = frozenset({"reasoning"})
"""Output items that neither call a tool nor carry text."""
MAX_PENDING: Final = 10_000
"""Calls remembered while they wait for a result; the oldest are forgotten beyond it,
so that a log without results does not grow the reader's memory."""


class Reader(Protocol):
    def feed(self, record: Located) -> Iterable[Event]: ...

    def end(self) -> Iterable[Event]: ...


class _Context:
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

    def answered(self, call_id: object, line: int) -> Iterable[Notice]:
        count = self.pending.get(call_id, 0) if isinstance(call_id, str) else 0
        if count == 0:
            return [Notice(line, f"a tool result for call {call_id!r}, which no earlier call made")]
        if count == 1:
            del self.pending[call_id]  # type: ignore[arg-type]
        else:
            self.pending[call_id] = count - 1  # type: ignore[index]
        return []


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _text_of(content: object, part_types: frozenset[str]) -> str:
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


class ChatReader:
    """OpenAI-style chat messages."""

    PART_TYPES: Final = frozenset({"text", "output_text"})

    def __init__(self, context: _Context) -> None:
        self.context = context

    def feed(self, record: Located) -> Iterable[Event]:
        message, line = record.value, record.line
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise self.context.error(line, "a chat log holds messages with a string `role`")
        role = message["role"]
        if role == "assistant":
            return self._response(message, line)
        if role == "tool":
            return self.context.answered(message.get("tool_call_id"), line)
        if role in INPUT_ROLES or role == "function":
            return []
        raise self.context.error(line, f"unknown chat message role {role!r}")

    def _response(self, message: Mapping[str, object], line: int) -> list[Event]:
        raw_calls = message.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise self.context.error(line, "`tool_calls` must be a list")
        calls = []
        notices: list[Event] = []
        for index, raw in enumerate(raw_calls):
            kind = raw.get("type", "function") if isinstance(raw, dict) else None
            if kind != "function" and isinstance(kind, str):
                notices.append(
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
            call_id = _string(raw.get("id"))
            arguments = parse_arguments(function.get("arguments"))
            calls.append(Call(function["name"], arguments, call_id))
            self.context.called(call_id)
        legacy = message.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            calls.append(Call(legacy["name"], parse_arguments(legacy.get("arguments"))))
        text = _text_of(message.get("content"), self.PART_TYPES)
        return [*notices, Response(line, text, tuple(calls))]

    def end(self) -> Iterable[Event]:
        return []


class ResponsesReader:
    """A Responses-API item list; consecutive output items are one response."""

    PART_TYPES: Final = frozenset({"output_text", "text"})

    def __init__(self, context: _Context) -> None:
        self.context = context
        self.line = 0
        self.texts: list[str] = []
        self.calls: list[Call] = []
        self.server: list[ServerItem] = []

    def _flush(self) -> list[Event]:
        if not self.line:
            return []
        response = Response(self.line, "".join(self.texts), tuple(self.calls), tuple(self.server))
        self.line, self.texts, self.calls, self.server = 0, [], [], []
        return [response]

    def _output(self, line: int) -> None:
        if not self.line:
            self.line = line

    def feed(self, record: Located) -> Iterable[Event]:
        item, line = record.value, record.line
        if not isinstance(item, dict):
            raise self.context.error(line, "a Responses log holds items (JSON objects)")
        kind = item.get("type", "message" if "role" in item else None)
        if not isinstance(kind, str):
            raise self.context.error(line, "a Responses item needs a string `type`")
        if kind == "message":
            role = item.get("role")
            if role == "assistant":
                self._output(line)
                self.texts.append(_text_of(item.get("content"), self.PART_TYPES))
                return []
            if role in INPUT_ROLES:
                return self._flush()
            raise self.context.error(line, f"a message item with unknown role {role!r}")
        if kind == "function_call":
            name = item.get("name")
            if not isinstance(name, str):
                raise self.context.error(line, "a function_call item without a string `name`")
            call_id = _string(item.get("call_id"))
            self._output(line)
            self.calls.append(Call(name, parse_arguments(item.get("arguments")), call_id))
            self.context.called(call_id)
            return []
        if kind.endswith("_output") or kind == "item_reference":
            events = self._flush()
            if kind == "function_call_output":
                events += self.context.answered(item.get("call_id"), line)
            return events
        self._output(line)
        if kind not in RESPONSES_PASSIVE:
            identity = server_identity(item)
            if identity:  # nothing left: the engine skips the item (engine brief 2.5.2)
                self.server.append(ServerItem(kind, identity))
        return []

    def end(self) -> Iterable[Event]:
        return self._flush()


class DoomloopReader:
    """The kit's own JSON lines (docs/guide/replay.md)."""

    def __init__(self, context: _Context) -> None:
        self.context = context

    def feed(self, record: Located) -> Iterable[Event]:
        entry, line = record.value, record.line
        if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
            raise self.context.error(line, "a doomloop log holds records with a string `kind`")
        kind = entry["kind"]
        if kind == "response":
            return [self._response(entry, line)]
        if kind == "result":
            return self.context.answered(entry.get("id"), line)
        if kind == "user":
            return []
        if kind == "resume":
            return [Resume(line, entry.get("state", UNDEFINED))]
        raise self.context.error(line, f"unknown record kind {kind!r}")

    def _response(self, entry: Mapping[str, object], line: int) -> Response:
        text = entry.get("text", "")
        if not isinstance(text, str):
            raise self.context.error(line, "`text` must be a string")
        calls = []
        raw_calls = entry.get("calls", [])
        if not isinstance(raw_calls, list):
            raise self.context.error(line, "`calls` must be a list")
        for index, raw in enumerate(raw_calls):
            if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
                raise self.context.error(line, f"call {index} needs a string `name`")
            call_id = _string(raw.get("id"))
            calls.append(Call(raw["name"], parse_arguments(raw.get("arguments")), call_id))
            self.context.called(call_id)
        server = []
        raw_server = entry.get("server", [])
        if not isinstance(raw_server, list):
            raise self.context.error(line, "`server` must be a list")
        for index, item in enumerate(raw_server):
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                raise self.context.error(line, f"server item {index} needs a string `type`")
            identity = server_identity(item)
            if identity:
                server.append(ServerItem(item["type"], identity))
        return Response(line, text, tuple(calls), tuple(server))

    def end(self) -> Iterable[Event]:
        return []


READERS: Final[dict[str, type[ChatReader] | type[ResponsesReader] | type[DoomloopReader]]] = {
    "chat": ChatReader,
    "responses": ResponsesReader,
    "doomloop": DoomloopReader,
}


def format_of(record: object) -> str | None:
    """The format a record decides, or None for a leading input message (any format)."""
    if isinstance(record, dict):
        if "kind" in record:
            return "doomloop"
        if "type" in record:
            return "responses"
        role = record.get("role")
        if isinstance(role, str):
            return None if role in INPUT_ROLES else "chat"
    return "?"


class LogReader:
    """The events of the log at ``path``; ``expected`` forces a format.

    Iterating raises :class:`~.jsonstream.LogError` (naming the line) for a
    log in none of the formats, a malformed record, or records of two
    formats. ``format`` is the format once a record decided it.
    """

    def __init__(self, path: Path, expected: str | None = None) -> None:
        self.path = path
        self.format = expected

    def __iter__(self) -> Iterator[Event]:
        context = _Context(str(self.path))
        reader: Reader | None = None
        for record in read_values(self.path):
            found = format_of(record.value)
            if found == "?":
                raise context.error(
                    record.line,
                    "not a chat message (`role`), a Responses item (`type`) or a doomloop "
                    "record (`kind`); see docs/guide/replay.md for the formats",
                )
            if self.format is None and found is not None:
                self.format = found
            if (
                found is not None
                and self.format != found
                and not _compatible(self.format, found, record)
            ):
                raise context.error(
                    record.line,
                    f"a {found} record in a log read as {self.format} (formats cannot mix)",
                )
            if self.format is None:
                continue  # a leading input message: no effect in any format
            if reader is None:
                reader = READERS[self.format](context)
            yield from reader.feed(record)
        if reader is not None:
            yield from reader.end()


def _compatible(chosen: str | None, found: str, record: Located) -> bool:
    """A Responses log may hold role-only messages (the API's short message form)."""
    return (
        chosen == "responses"
        and found == "chat"
        and isinstance(record.value, dict)
        and (record.value.get("role") == "assistant")
    )
