"""Claude Code's session JSONL (``claude-code``) and its ``claude -p`` stream (``claude-stream``).

``claude-stream`` is the output of ``claude -p --output-format stream-json``.

Both hold one record per line with a ``type``; ``assistant`` and ``user``
records carry an Anthropic ``message``. Claude Code writes the content
blocks of one model message on consecutive lines that share ``message.id``:
those lines are one response, so the parallel ``tool_use`` blocks of one
message are one round (``name``, ``input``, ``id``), and its ``text``
blocks its text. The ``tool_result`` blocks of ``user`` records are the
results (``tool_use_id``).

A sub-agent (the ``Task`` tool) is a conversation of its own, replayed with
its own monitor (:class:`~..events.Thread`), wherever its lines are:

* in a session file, lines with ``isSidechain: true``: a sub-agent's own
  file (``agent-<id>.jsonl``, every line a sidechain with its ``agentId``),
  or, in older sessions, sidechain lines interleaved with the session's
  (without ``agentId``: each chain of ``parentUuid`` links from a root is
  one sub-agent, ``sidechain-<n>``);
* ``progress`` lines of type ``agent_progress``, in which newer sessions
  mirror each sub-agent's messages (``data.agentId``, ``data.message``):
  its calls and results, not its text;
* in ``claude -p --output-format stream-json``, the records whose
  ``parent_tool_use_id`` names the ``Task`` call that started the sub-agent.

Each sub-agent carries the session's id (``sessionId``, ``session_id``),
which links it to its parent session. The other record types that carry no
model output (``summary``, ``system``, ``result``, ...) are passed over; a
record of a type the reader does not know is a problem naming its line
(:class:`~..events.Skipped`), never a call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from ..events import Call, Event, Skipped, Thread
from ..jsonstream import Located
from .common import Assembly, Context, string, text_of

MESSAGE_LINES: Final = frozenset({"assistant", "user"})
SESSION_BOOKKEEPING: Final = frozenset(
    {"summary", "system", "file-history-snapshot", "queue-operation", "progress", "custom-title"}
)
"""Claude Code session lines without model output."""
STREAM_BOOKKEEPING: Final = frozenset({"system", "result", "stream_event"})
"""``claude -p`` stream-json records without model output (``stream_event``: partial
messages, whose whole message follows as an ``assistant`` record)."""
MAX_SIDECHAIN_LINES: Final = 100_000
"""Sidechain line ids remembered to follow ``parentUuid`` chains (the oldest forgotten)."""


class _Message(Assembly):
    """The response being read in one conversation: the lines of one message id."""

    def __init__(self, context: Context) -> None:
        super().__init__(context)
        self.message_id: object = None
        self.results: list[Event] = []
        """Results seen while the response is still open: given after it."""

    def flush(self) -> list[Event]:
        """The response (if one is open) and the results that came with it; then empty."""
        events = self.done() + self.results
        self.message_id, self.results = None, []
        return events


class ClaudeCodeReader:
    """Claude Code session lines; blocks of one message id make one response."""

    name = "claude-code"
    bookkeeping = SESSION_BOOKKEEPING
    mirrors = True
    """Sessions mirror their sub-agents in ``progress`` lines."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.messages: dict[str | None, _Message] = {}
        """The open response of each conversation (None: the log's own)."""
        self.current: str | None = None
        self.announced: set[str | None] = set()
        self.sidechains: dict[str, str] = {}
        """Sidechain line uuid -> its sub-agent's name (lines without ``agentId``)."""
        self.chains = 0

    # -- which conversation a record belongs to ------------------------------------------

    def session_of(self, entry: Mapping[str, object]) -> str | None:
        return string(entry.get("sessionId"))

    def thread_of(self, entry: Mapping[str, object], opens: bool) -> str | None:
        """The sub-agent a record belongs to (None: the session itself); ``opens`` lets a
        message line start a new sub-agent when its chain leads to none."""
        if entry.get("isSidechain") is not True:
            return None
        agent = string(entry.get("agentId"))
        if agent:
            return f"agent-{agent}"
        parent, uuid = entry.get("parentUuid"), string(entry.get("uuid"))
        name = self.sidechains.get(parent) if isinstance(parent, str) else None
        if name is None and opens:
            self.chains += 1
            name = f"sidechain-{self.chains}"
        if name is not None and uuid is not None:
            self.sidechains[uuid] = name
            if len(self.sidechains) > MAX_SIDECHAIN_LINES:
                del self.sidechains[next(iter(self.sidechains))]
        return name

    def _switch(
        self, name: str | None, line: int, session: str | None, mirror: bool
    ) -> list[Event]:
        if name == self.current and name in self.announced:
            return []
        self.current = name
        self.announced.add(name)
        return [Thread(line, name, session, mirror)]

    # -- records ----------------------------------------------------------------------------

    def feed(self, record: Located) -> Iterable[Event]:
        entry, line = record.value, record.line
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            raise self.context.error(line, f"a {self.name} log holds records with a `type`")
        kind = entry["type"]
        if kind in MESSAGE_LINES:
            thread = self.thread_of(entry, opens=True)
            return self._message(entry, line, thread, mirror=False)
        if kind == "progress" and self.mirrors:
            return self._progress(entry, line)
        if kind in self.bookkeeping:
            self.thread_of(entry, opens=False)  # a sidechain's chain may pass through it
            return []
        return [Skipped(line, f"a {self.name} record of unknown type {kind!r}: left out")]

    def _progress(self, entry: Mapping[str, object], line: int) -> list[Event]:
        """A sub-agent's message, mirrored in its session (``agent_progress``)."""
        self.thread_of(entry, opens=False)
        data = entry.get("data")
        if not isinstance(data, dict) or data.get("type") != "agent_progress":
            return []
        agent, inner = string(data.get("agentId")), data.get("message")
        if not agent or not isinstance(inner, dict) or inner.get("type") not in MESSAGE_LINES:
            return []
        mirrored = {**inner, "sessionId": entry.get("sessionId")}
        return self._message(mirrored, line, f"agent-{agent}", mirror=True)

    def _message(
        self, entry: Mapping[str, object], line: int, thread: str | None, mirror: bool
    ) -> list[Event]:
        message = entry.get("message")
        if not isinstance(message, dict):
            raise self.context.error(line, f"a {self.name} {entry['type']} line without `message`")
        events = self._switch(thread, line, self.session_of(entry), mirror)
        open_message = self.messages.setdefault(thread, _Message(self.context))
        if entry["type"] == "user":
            return events + self._user(open_message, message, line)
        return events + self._assistant(open_message, message, line)

    def _user(
        self, open_message: _Message, message: Mapping[str, object], line: int
    ) -> list[Event]:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        events: list[Event] = []
        if len(results) < len(blocks) or not blocks:
            events += open_message.flush()  # a user's own words close the response
        for block in results:
            answered = self.context.answered(block.get("tool_use_id"), line, block.get("content"))
            if open_message.line:
                open_message.results += answered
            else:
                events += answered
        return events

    def _assistant(
        self, open_message: _Message, message: Mapping[str, object], line: int
    ) -> list[Event]:
        events: list[Event] = []
        message_id = message.get("id")
        if open_message.line and (message_id is None or message_id != open_message.message_id):
            events += open_message.flush()
        if not open_message.line:
            open_message.at(line)
            open_message.message_id = message_id
        content = message.get("content")
        open_message.texts.append(text_of(content, frozenset({"text"})))
        for index, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                name = block.get("name")
                if not isinstance(name, str):
                    raise self.context.error(line, f"tool_use block {index} has no string `name`")
                call_id = string(block.get("id"))
                open_message.call(line, Call(name, block.get("input"), call_id, parsed=True))
            elif block.get("type") == "server_tool_use" and isinstance(block.get("name"), str):
                open_message.server.append({"type": block["name"], "input": block.get("input")})
        return events

    def end(self) -> Iterable[Event]:
        events: list[Event] = []
        for thread, open_message in self.messages.items():
            if open_message.line:  # the last response of a conversation, still open
                events += self._switch(thread, 0, None, False)  # line 0: at the end
                events += open_message.flush()
        return events


class ClaudeStreamReader(ClaudeCodeReader):
    """``claude -p --output-format stream-json``: a sub-agent's records name its Task call."""

    name = "claude-stream"
    bookkeeping = STREAM_BOOKKEEPING
    mirrors = False

    def session_of(self, entry: Mapping[str, object]) -> str | None:
        return string(entry.get("session_id"))

    def thread_of(self, entry: Mapping[str, object], opens: bool) -> str | None:
        task = string(entry.get("parent_tool_use_id"))
        return f"task-{task}" if task else None
