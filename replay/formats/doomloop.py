"""The kit's own JSON lines (``doomloop``, docs/guide/replay.md), one record per line.

``response`` (``text``, ``calls`` of ``{"name", "arguments", "id"}``,
``server`` items), ``result`` (``id``, and ``output`` for result
awareness), ``user``, ``resume`` (optionally with a ``state``); a record of
another kind is a problem naming its line, left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from doomloop_kit.reference import UNDEFINED

from ..events import Call, Event, Response, Resume, Skipped
from ..jsonstream import Located
from .common import Context, string


class DoomloopReader:
    """The kit's own JSON lines."""

    name = "doomloop"

    def __init__(self, context: Context) -> None:
        self.context = context

    def feed(self, record: Located) -> Iterable[Event]:
        entry, line = record.value, record.line
        if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
            raise self.context.error(line, "a doomloop log holds records with a string `kind`")
        kind = entry["kind"]
        if kind == "response":
            return [self._response(entry, line)]
        if kind == "result":
            return self.context.answered(entry.get("id"), line, entry.get("output"))
        if kind == "user":
            return []
        if kind == "resume":
            return [Resume(line, entry.get("state", UNDEFINED))]
        return [Skipped(line, f"a doomloop record of unknown kind {kind!r}: left out")]

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
            call_id = string(raw.get("id"))
            arguments = raw.get("arguments")
            calls.append(
                Call(raw["name"], arguments, call_id, parsed=not isinstance(arguments, str))
            )
            self.context.called(call_id)
        server = []
        raw_server = entry.get("server", [])
        if not isinstance(raw_server, list):
            raise self.context.error(line, "`server` must be a list")
        for index, item in enumerate(raw_server):
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                raise self.context.error(line, f"server item {index} needs a string `type`")
            server.append(item)
        return Response(line, text, tuple(calls), tuple(server))

    def end(self) -> Iterable[Event]:
        return []
