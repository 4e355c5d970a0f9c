"""Which format a log is in, and its events through that format's reader.

The formats (one module each under :mod:`.formats`): ``chat`` (OpenAI chat
messages), ``anthropic`` (Anthropic Messages), ``responses`` (Responses API
items), ``codex`` (OpenAI Codex CLI rollouts), ``codex-exec`` (``codex exec
--json`` streams), ``claude-code`` (Claude Code sessions), ``claude-stream``
(``claude -p --output-format stream-json``), ``mini-swe-agent`` and
``swe-agent`` (trajectories), ``tau-bench`` (result files of many runs) and
``doomloop`` (the kit's own JSON lines).

The first record that decides it gives the format: a ``kind`` (doomloop), a
``traj`` list (tau-bench), an ``action`` step or a document whose log is its
``trajectory`` or ``history`` member (SWE-agent), a Codex envelope (``type``
with a ``payload``), a ``codex exec`` event (``thread.started``,
``item.completed``, ...), a ``claude -p`` record (``type`` with a
``session_id``), a Claude Code line (``type`` with a session member), a
mini-swe-agent trajectory (the document or its file name says so, or a
message only mini-swe-agent writes), content blocks only Anthropic uses, a
Responses item ``type``, a ``role`` (chat). Leading input messages (user,
system, developer) decide nothing: they are the same in every format. A
record of another format later on is an error naming its line; a first
record of none names the formats tried, and a later one goes to the log's
reader, which skips a record of a type it does not know (a problem naming
its line) and refuses one that lacks what its format requires. A tool
result whose call the log never showed is a :class:`~.events.Notice` (a
warning): a log cut at the front has them; so is a last line cut short (a
session still being written, or one that ended abruptly): the records
before it are replayed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

from .events import Event, Notice
from .formats.chat import ChatReader, anthropic_blocks
from .formats.claude_code import ClaudeCodeReader, ClaudeStreamReader
from .formats.codex_exec import EVENTS as CODEX_EXEC_EVENTS
from .formats.codex_exec import CodexExecReader
from .formats.common import Context, Reader
from .formats.doomloop import DoomloopReader
from .formats.responses import CODEX_LINES, CodexReader, ResponsesReader, responses_item
from .formats.taubench import TauBenchReader
from .formats.trajectories import MiniSweAgentReader, SweAgentReader, mini_swe_agent_text
from .jsonstream import CutLine, Document, Located, read_values

INPUT_ROLES: Final = frozenset({"user", "system", "developer"})
CLAUDE_CODE_MEMBERS: Final = ("sessionId", "uuid", "parentUuid", "leafUuid", "messageId")

READERS: Final[dict[str, Callable[[Context], Reader]]] = {
    "chat": lambda context: ChatReader(context),
    "anthropic": lambda context: ChatReader(context, "anthropic"),
    "responses": ResponsesReader,
    "codex": CodexReader,
    "codex-exec": CodexExecReader,
    "claude-code": ClaudeCodeReader,
    "claude-stream": ClaudeStreamReader,
    "mini-swe-agent": MiniSweAgentReader,
    "swe-agent": SweAgentReader,
    "tau-bench": TauBenchReader,
    "doomloop": DoomloopReader,
}
FORMATS: Final = tuple(READERS)
FAMILY: Final = {"anthropic": "chat", "mini-swe-agent": "chat"}
"""Formats whose records look alike: one never contradicts the other (the reader checks)."""


def _mini_swe_agent(record: dict[str, object], document: Document, path: Path) -> bool:
    info = document.context.get("info")
    return (
        (isinstance(info, dict) and "mini_version" in info)
        or str(document.context.get("trajectory_format", "")).startswith("mini-swe-agent")
        or (document.member in ("messages", None) and path.name.endswith(".traj.json"))
        or (record.get("role") == "assistant" and mini_swe_agent_text(record))
    )


def format_of(record: object, document: Document, path: Path) -> str | None:
    """The format a record decides, None for a leading input message, "?" for none."""
    if document.member in ("trajectory", "history"):
        return "swe-agent"
    if not isinstance(record, dict):
        return "?"
    kind = record.get("type")
    if "kind" in record:
        return "doomloop"
    if isinstance(record.get("traj"), list):
        return "tau-bench"
    if isinstance(record.get("action"), str) and ("observation" in record or "thought" in record):
        return "swe-agent"
    if (kind in CODEX_LINES and "payload" in record) or "record_type" in record:
        return "codex"
    if kind in CODEX_EXEC_EVENTS:
        return "codex-exec"
    if isinstance(kind, str) and "session_id" in record:
        return "claude-stream"
    if isinstance(kind, str) and (
        any(name in record for name in CLAUDE_CODE_MEMBERS)
        or isinstance(record.get("message"), dict)
    ):
        return "claude-code"
    role = record.get("role")
    if _mini_swe_agent(record, document, path):
        return None if role in INPUT_ROLES else "mini-swe-agent"
    if isinstance(role, str) and anthropic_blocks(record):
        return "anthropic"
    if responses_item(kind):
        return "responses"
    if isinstance(role, str):
        return None if role in INPUT_ROLES else "chat"
    if "id" in record and "timestamp" in record:
        return "codex"  # an older rollout's first line: the session
    return "?"


def _compatible(chosen: str, found: str, record: Located) -> bool:
    if FAMILY.get(chosen, chosen) == FAMILY.get(found, found):
        return True
    if chosen == "codex" and found == "responses":
        return True  # an older rollout: the items themselves
    # a Responses log may hold role-only messages (the API's short message form)
    return (
        chosen in ("responses", "codex")
        and found == "chat"
        and isinstance(record.value, dict)
        and record.value.get("role") == "assistant"
    )


class LogReader:
    """The events of the log at ``path``; ``expected`` forces a format.

    Iterating raises :class:`~.jsonstream.LogError` (naming the line) for a
    log in none of the formats, a malformed record, or records of two
    formats. ``format`` is the format once a record decided it.
    """

    def __init__(self, path: Path, expected: str | None = None) -> None:
        self.path = path
        self.expected = expected
        self.reader: Reader | None = None

    @property
    def format(self) -> str | None:
        return self.reader.name if self.reader is not None else self.expected

    def __iter__(self) -> Iterator[Event]:
        context = Context(str(self.path))
        document = Document()
        chosen = self.expected
        try:
            yield from self._records(context, document, chosen)
        except CutLine as cut:
            yield Notice(cut.line, f"{cut.detail}: left out, the rest is replayed")
        if self.reader is not None:
            yield from self.reader.end()

    def _records(self, context: Context, document: Document, chosen: str | None) -> Iterator[Event]:
        for record in read_values(self.path, document):
            found = format_of(record.value, document, self.path)
            if found == "?" and chosen is not None:
                found = chosen  # the log's own reader says what the record lacks, or skips it
            if found == "?":
                raise context.error(
                    record.line,
                    f"a record in none of the formats the replay reads (tried: "
                    f"{', '.join(FORMATS)}); see docs/guide/replay.md for the formats",
                )
            if chosen is None:
                chosen = found
            if (
                found is not None
                and chosen is not None
                and chosen != found
                and not _compatible(chosen, found, record)
            ):
                raise context.error(
                    record.line,
                    f"a {found} record in a log read as {self.format or chosen} "
                    "(formats cannot mix)",
                )
            if chosen is None:
                continue  # a leading input message: no effect in any format
            if self.reader is None:
                self.reader = READERS[chosen](context)
            yield from self.reader.feed(record)
