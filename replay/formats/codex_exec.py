"""``codex exec --json`` (``codex-exec``): the event stream of a non-interactive Codex run.

One JSON object per line with a ``type``: ``thread.started``,
``turn.started``, ``turn.completed``, ``turn.failed``, ``error``, and
``item.started``/``item.updated``/``item.completed`` carrying an ``item``
(``id``, ``type``). Codex executes the model's calls itself and reports
each as an item: it starts when the model has made the call and completes
with its output. So, as in a Responses log, the calls started one after
another with no output in between are one response (one round), and a
completed call is the result that closes it:

* ``command_execution`` is a call ``shell`` with arguments ``{"command":
  <the command line>}``, its result ``aggregated_output`` and ``exit_code``;
* ``file_change`` a call ``apply_patch`` with ``{"changes": ...}``;
* ``mcp_tool_call`` a call ``<server>.<tool>`` with its ``arguments``;
* ``todo_list``: each start or update is a call ``update_plan`` with
  ``{"items": ...}`` (the plan tool; no result);
* ``web_search`` a server tool, ``server:web_search`` (``{"query"}``);
* ``agent_message`` is the response's text; ``reasoning`` and ``error``
  items are passed over.

An item completed without having started is its call and its result at
once. ``turn.started`` is a new turn (the next input). An event or item of a
type the reader does not know is a problem naming its line, never a call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from ..events import Call, Event, Skipped
from ..jsonstream import Located
from .common import Assembly, Context, string

EVENTS: Final = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
        "error",
    }
)
CALL_ITEMS: Final = frozenset({"command_execution", "file_change", "mcp_tool_call"})
PASSIVE_ITEMS: Final = frozenset({"reasoning", "error"})


def _call(item: Mapping[str, object], call_id: str | None) -> Call:
    kind = item.get("type")
    if kind == "command_execution":
        return Call("shell", {"command": item.get("command")}, call_id, parsed=True)
    if kind == "file_change":
        return Call("apply_patch", {"changes": item.get("changes")}, call_id, parsed=True)
    server, tool = string(item.get("server")), string(item.get("tool")) or "mcp_tool_call"
    return Call(f"{server}.{tool}" if server else tool, item.get("arguments"), call_id, parsed=True)


def _output(item: Mapping[str, object]) -> object:
    """What a completed call item returned (its result, for result awareness)."""
    kind = item.get("type")
    if kind == "command_execution":
        return {"output": item.get("aggregated_output"), "exitCode": item.get("exit_code")}
    if kind == "file_change":
        return {"status": item.get("status")}
    return {"result": item.get("result"), "error": item.get("error")}


class CodexExecReader:
    """``codex exec --json`` events; calls started together are one response."""

    name = "codex-exec"

    def __init__(self, context: Context) -> None:
        self.context = context
        self.response = Assembly(context)
        self.started: set[str] = set()
        self.plans = 0

    def feed(self, record: Located) -> Iterable[Event]:
        event, line = record.value, record.line
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise self.context.error(line, "a codex exec stream holds events with a string `type`")
        kind = event["type"]
        if kind not in EVENTS:
            return [Skipped(line, f"a codex-exec event of unknown type {kind!r}: left out")]
        if kind.startswith("turn."):
            return self.response.done()  # a turn's start is the next input; its end closes it
        if not kind.startswith("item."):
            return []
        item = event.get("item")
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise self.context.error(line, f"a codex-exec {kind} event without an `item` type")
        return self._item(kind, item, line)

    def _item(self, kind: str, item: Mapping[str, object], line: int) -> list[Event]:
        item_type, item_id = str(item["type"]), string(item.get("id"))
        if item_type == "todo_list":
            if kind == "item.completed":
                return []
            self.plans += 1
            plan_id = f"{item_id}.{self.plans}" if item_id else None
            self.response.call(
                line, Call("update_plan", {"items": item.get("items")}, plan_id, True)
            )
            return []
        if item_type == "web_search":
            seen = item_id is not None and item_id in self.started
            if kind != "item.updated" and not seen:
                self.response.at(line)
                self.response.server.append({"type": "web_search", "query": item.get("query")})
                if item_id is not None and kind == "item.started":
                    self.started.add(item_id)
            if kind == "item.completed":
                self.started.discard(item_id or "")
            return []
        if item_type == "agent_message":
            if kind == "item.completed":
                self.response.at(line)
                text = item.get("text")
                self.response.texts.append(text if isinstance(text, str) else "")
            return []
        if item_type in PASSIVE_ITEMS:
            return []
        if item_type not in CALL_ITEMS:
            return [Skipped(line, f"a codex-exec item of unknown type {item_type!r}: left out")]
        if kind == "item.started":
            self.response.call(line, _call(item, item_id))
            if item_id is not None:
                self.started.add(item_id)
            return []
        if kind == "item.updated":
            return []
        if item_id is None or item_id not in self.started:
            self.response.call(line, _call(item, item_id))  # completed without a start
        self.started.discard(item_id or "")
        return self.response.done() + self.context.answered(item_id, line, _output(item))

    def end(self) -> Iterable[Event]:
        return self.response.done()
