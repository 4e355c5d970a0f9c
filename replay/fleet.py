"""Fleet mode: a whole corpus of logs, one summary per run, under one ladder or a grid.

The files of ``DIR|GLOB|FILE...`` are listed by :mod:`.corpus`;
:func:`replay_file` replays one file -- read once, its events fed to one
engine per ladder -- into one :class:`RunSummary` per run (a file holds one
run, or many: tau-bench's runs, a Claude Code session's sub-agents, each
with its own monitor and linked to its session). Its argument and result
are plain picklable data, so any executor (:mod:`.executors`) can run it
anywhere the files are readable. A file that cannot be read, or a run cut
short (a truncated log), becomes a :class:`FileProblem` naming the file and
line; the runs completed before it are kept, the broken one is dropped, and
the rest of the corpus goes on. A record the reader does not know is a
problem too, but its run stands. :mod:`.fleet_report` adds the summaries up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from doomloop_kit.reference import Verdict
from doomloop_kit.reference.ladder import ACTION_STRENGTH

from .corpus import LOG_SUFFIXES
from .driver import (
    ConversationResult,
    EngineResult,
    Entry,
    Replay,
    RoundResult,
    ServerResult,
    SkippedCheck,
    TextResult,
    ThreadResult,
)
from .events import Notice, Skipped
from .jsonstream import LogError
from .options import ReplayOptions
from .page import point
from .readers import LogReader
from .report import streak_json
from .results import StreakResult
from .session import Session

STEER_OR_STRONGER: Final = ACTION_STRENGTH["steer"]


def run_name(path: Path) -> str:
    """A one-run file's run id: its name without the log suffixes."""
    name = path.name
    for suffix in LOG_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


KEPT_NOTICES: Final = 20
"""Notices a run keeps with their lines (all are counted)."""
KEPT_STREAKS: Final = 100
"""Streaks a run keeps for its drill-down (all are counted)."""
KEPT_POINTS: Final = 5_000
"""Timeline points a run keeps for its drill-down (``--html``; all rounds are counted)."""


@dataclass
class ToolTally:
    """One tool in one run."""

    calls: int = 0
    not_executed: int = 0
    strongest: str | None = None
    streaks: dict[str, int] = field(default_factory=dict)
    """Closed streaks by their results: identical, changed, unknown."""


def _stronger(action: str, than: str | None) -> bool:
    return ACTION_STRENGTH[action] > ACTION_STRENGTH.get(than or "", -1)


@dataclass
class RunSummary:
    """What one run came to under one ladder."""

    id: str
    file: str
    line: int
    format: str | None = None
    outcome: object = None
    """The label the file gives the run (a tau-bench reward), or None."""
    session: str | None = None
    """The session id the log gives the run (Claude Code), or None."""
    parent: str | None = None
    """A sub-agent's: the session id (or run id) of the run it is a sub-agent of."""
    agent: str | None = None
    """A sub-agent's name in its session (``agent-<id>``, ``sidechain-<n>``)."""
    mirror: bool = False
    """A sub-agent read from its session's progress lines (its calls, not its text)."""
    rounds: int = 0
    calls: int = 0
    not_executed: int = 0
    text_checks: int = 0
    first: dict[str, int] = field(default_factory=dict)
    """rung -> the round where it first applied (tool, server or text)."""
    first_by: dict[str, dict[str, int]] = field(default_factory=lambda: {"calls": {}, "text": {}})
    """The same, by call verdicts (client and server tools) and by text verdicts apart."""
    fired: dict[str, dict[str, Any]] = field(default_factory=dict)
    """rung -> where it first applied: round, line, by (a tool or ``text``), streak, message."""
    strongest: str | None = None
    strongest_by: dict[str, str] = field(default_factory=dict)
    """``calls`` / ``text`` -> the strongest rung applied by that kind of verdict."""
    tools: dict[str, ToolTally] = field(default_factory=dict)
    streaks: dict[str, int] = field(default_factory=dict)
    fired_streaks: dict[str, int] = field(default_factory=dict)
    """Streaks that reached a rung, by their results."""
    streak_list: list[dict[str, Any]] = field(default_factory=list)
    """The run's first streaks, as the report writes them (for its drill-down)."""
    engine: dict[str, int] = field(default_factory=dict)
    notices: int = 0
    notice_list: list[tuple[int, str]] = field(default_factory=list)
    skipped: int = 0
    points: list[dict[str, object]] | None = None
    """The run's timeline for its drill-down (``--html`` only), as :func:`.page.point` draws it."""

    def _applied(
        self, action: str | None, round: int, kind: str, by: str, line: int, verdict: Verdict | None
    ) -> None:
        """An action the engine applied, by a ``calls`` or ``text`` verdict."""
        if action not in ACTION_STRENGTH:
            return
        round = max(round, 1)
        self.first.setdefault(action, round)
        self.first_by[kind].setdefault(action, round)
        if action not in self.fired:
            self.fired[action] = {
                "round": round,
                "line": line,
                "by": by,
                "streak": None if verdict is None else verdict.streak,
                "message": "" if verdict is None else verdict.message,
            }
        if _stronger(action, self.strongest):
            self.strongest = action
        if _stronger(action, self.strongest_by.get(kind)):
            self.strongest_by[kind] = action

    def add(self, entry: Entry) -> None:
        if self.points is not None and len(self.points) < KEPT_POINTS:
            data = point(entry)
            if data is not None and data["x"] is not None:
                self.points.append(data)
        if isinstance(entry, RoundResult):
            self._round(entry)
        elif isinstance(entry, ServerResult):
            for call in entry.calls:
                where = (entry.after_round, "calls", call.tool, entry.line, call.verdict)
                self._applied(call.action, *where)
        elif isinstance(entry, TextResult):
            self.text_checks += 1
            after = entry.after_round + (1 if entry.in_round else 0)
            self._applied(entry.action, after, "text", "text", entry.line, entry.verdict)
        elif isinstance(entry, StreakResult):
            self._streak(entry)
        elif isinstance(entry, EngineResult) and entry.kind != "not-replayed":
            self.engine[entry.kind] = self.engine.get(entry.kind, 0) + 1
        elif isinstance(entry, Notice):
            self.notices += 1
            if len(self.notice_list) < KEPT_NOTICES:
                self.notice_list.append((entry.line, entry.message))
        elif isinstance(entry, Skipped):
            self.skipped += 1

    def _round(self, entry: RoundResult) -> None:
        self.rounds += 1
        for call in entry.calls:
            self.calls += 1
            tally = self.tools.setdefault(call.tool, ToolTally())
            tally.calls += 1
            if call.blocked:
                self.not_executed += 1
                tally.not_executed += 1
            if call.action in ACTION_STRENGTH:
                verdict = call.verdict or entry.verdict
                self._applied(call.action, entry.number, "calls", call.tool, entry.line, verdict)
                if _stronger(call.action, tally.strongest):
                    tally.strongest = call.action

    def _streak(self, entry: StreakResult) -> None:
        kind = entry.results
        self.streaks[kind] = self.streaks.get(kind, 0) + 1
        if entry.action is not None:
            self.fired_streaks[kind] = self.fired_streaks.get(kind, 0) + 1
        if len(self.streak_list) < KEPT_STREAKS:
            self.streak_list.append(streak_json(entry))
        tally = self.tools.setdefault(entry.tool, ToolTally())
        tally.streaks[kind] = tally.streaks.get(kind, 0) + 1

    @property
    def interfered(self) -> bool:
        """The engine would have changed the run: steer or a stronger rung applied."""
        return interferes(self.strongest)


def interferes(action: str | None) -> bool:
    """Steer or a stronger rung: the engine changes the run (observe leaves no trace)."""
    return ACTION_STRENGTH.get(action or "", -1) >= STEER_OR_STRONGER


@dataclass(frozen=True)
class FileProblem:
    """A file, or a run in it, that could not be replayed; or (``fatal`` False) a record
    of it that was left out while its run stands."""

    file: str
    line: int
    message: str
    run: str | None = None
    fatal: bool = True


@dataclass(frozen=True)
class FileTask:
    """One file to replay, under each ladder (the first is the option's own)."""

    path: str
    options: ReplayOptions
    ladders: tuple[Mapping[str, int | bool], ...] = ()
    format: str | None = None
    detail: bool = False
    """Keep each run's timeline for its drill-down (the page)."""


@dataclass(frozen=True)
class FileResult:
    """The runs of one file under each ladder (``runs[i]`` for ladder ``i``), and problems."""

    path: str
    format: str | None
    runs: tuple[tuple[RunSummary, ...], ...]
    problems: tuple[FileProblem, ...] = ()
    notices: int = 0


class _Collector:
    """Cuts one ladder's entries into runs: the file's own, its sub-agents', or each run
    of a file of many."""

    def __init__(self, path: Path, detail: bool) -> None:
        self.path = path
        self.detail = detail
        self.done: list[RunSummary] = []
        self.main = self._run(run_name(path), 1)
        self.threads: dict[str | None, RunSummary] = {None: self.main}
        self.current = self.main
        self.started = False
        """An entry belonged to the file's own conversation."""
        self.many = False
        """The file holds many runs, each read whole before any of its events."""
        self.skipped: list[FileProblem] = []

    def _run(self, run_id: str, line: int) -> RunSummary:
        return RunSummary(run_id, str(self.path), line, points=[] if self.detail else None)

    def add(self, entry: Entry) -> None:
        if isinstance(entry, ConversationResult):
            self.many = True
            if self.started:
                self.done.append(self.main)
            self.main = self.current = self._run(entry.run_id, entry.line)
            self.main.outcome = entry.outcome
            self.threads = {None: self.main}
            self.started = True
        elif isinstance(entry, ThreadResult):
            self._switch(entry)
        else:
            self.started = self.started or self.current is self.main
            self.current.add(entry)
            if isinstance(entry, Skipped):
                where = (str(self.path), entry.line, entry.message, self.current.id)
                self.skipped.append(FileProblem(*where, fatal=False))

    def _switch(self, entry: ThreadResult) -> None:
        run = self.threads.get(entry.name)
        if run is None:
            parent = entry.session or self.main.session or self.main.id
            run = self._run(f"{parent}/{entry.name}", entry.line)
            run.session, run.parent, run.agent = entry.session, parent, entry.name
            run.mirror = entry.mirror
            self.threads[entry.name] = run
        elif entry.name is None and entry.session and self.main.session is None:
            self.main.session = entry.session
        self.current = run

    def finish(self, log_format: str | None) -> list[RunSummary]:
        """Every run, the file's own first (left out when the file holds only sub-agents)."""
        others = [run for name, run in self.threads.items() if name is not None]
        if self.started or not (self.done or others):
            self.done.append(self.main)
        self.done += others
        for run in self.done:
            run.format = log_format
        return self.done


def replay_file(task: FileTask) -> FileResult:
    """Replay one file under every ladder of the task (read once). A path that is there
    but is not a regular file (a FIFO, a socket, a device) is a problem, never opened:
    opening a FIFO without a writer would wait forever."""
    path = Path(task.path)
    ladders = task.ladders or ({},)
    if path.exists() and not path.is_file():
        problem = FileProblem(str(path), 0, "not a regular file (a FIFO, socket or device)")
        return FileResult(str(path), None, tuple(() for _ in ladders), (problem,))
    drivers = []
    for ladder in ladders:
        options = task.options.with_ladder(ladder) if ladder else task.options
        drivers.append(Replay(options, Session(options.config(), options.loop_keys)))
    collectors = [_Collector(path, task.detail and index == 0) for index in range(len(ladders))]
    reader = LogReader(path, task.format)
    notices = 0
    skipped_checks: list[FileProblem] = []  # checks the engine could not run: never quiet

    def collect(entry: Entry, collector: _Collector) -> None:
        collector.add(entry)
        if isinstance(entry, SkippedCheck) and collector is collectors[0]:
            skipped_checks.append(FileProblem(str(path), entry.line, entry.describe()))

    try:
        for event in reader:
            notices += isinstance(event, Notice)
            for driver, collector in zip(drivers, collectors, strict=True):
                for entry in driver.feed(event):
                    collect(entry, collector)
        for driver, collector in zip(drivers, collectors, strict=True):
            for entry in driver.finish():
                collect(entry, collector)
    except (LogError, MemoryError, RecursionError) as error:
        # a file too large for the memory given is a problem of that file, never a fleet
        # without a report (the reader names the line where it can: LogError)
        problem = (
            FileProblem(str(path), error.line, error.detail)
            if isinstance(error, LogError)
            else FileProblem(str(path), 0, f"could not be replayed ({type(error).__name__})")
        )
        for driver, collector in zip(drivers, collectors, strict=True):
            if collector.many:  # the last run was read whole: the problem is in the next
                for entry in driver.finish():
                    collector.add(entry)
                collector.done.append(collector.main)
        kept = tuple(tuple(c.done) for c in collectors)  # the runs before the broken one
        for done in kept:
            for run in done:
                run.format = reader.format
        problems = (*collectors[0].skipped, *skipped_checks, problem)
        return FileResult(str(path), reader.format, kept, problems, notices)
    runs = tuple(tuple(c.finish(reader.format)) for c in collectors)
    problems = (*collectors[0].skipped, *skipped_checks)
    return FileResult(str(path), reader.format, runs, problems, notices)
