"""Fleet mode: a whole corpus of logs, one summary per run, under one ladder or a grid.

The files of ``DIR|GLOB|FILE...`` are listed by :mod:`.corpus`;
:func:`replay_file` replays one file -- read once, its events fed to one
engine per ladder -- into one :class:`RunSummary` per run (a file holds one
run, or many: tau-bench). Its argument and result are plain picklable data,
so any executor (:mod:`.executors`) can run it anywhere the files are
readable. A file that cannot be read, or a run cut short (a truncated log),
becomes a :class:`FileProblem` naming the file and line; the runs completed
before it are kept, the broken one is dropped, and the rest of the corpus
goes on. :mod:`.fleet_report` adds the summaries up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

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
)
from .events import Notice
from .jsonstream import LogError
from .options import ReplayOptions
from .readers import LogReader
from .results import StreakResult
from .session import Session

STEER_OR_STRONGER: Final = ACTION_STRENGTH["steer"]


def run_name(path: Path) -> str:
    """A one-run file's run id: its name without the log suffixes."""
    name = path.name
    for suffix in LOG_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


@dataclass
class ToolTally:
    """One tool in one run."""

    calls: int = 0
    not_executed: int = 0
    strongest: str | None = None
    streaks: dict[str, int] = field(default_factory=dict)
    """Closed streaks by their results: identical, changed, unknown."""


@dataclass
class RunSummary:
    """What one run came to under one ladder."""

    id: str
    file: str
    line: int
    format: str | None = None
    outcome: object = None
    """The label the file gives the run (a tau-bench reward), or None."""
    rounds: int = 0
    calls: int = 0
    not_executed: int = 0
    text_checks: int = 0
    first: dict[str, int] = field(default_factory=dict)
    """rung -> the round where it first applied (tool, server or text)."""
    strongest: str | None = None
    tools: dict[str, ToolTally] = field(default_factory=dict)
    streaks: dict[str, int] = field(default_factory=dict)
    fired_streaks: dict[str, int] = field(default_factory=dict)
    """Streaks that reached a rung, by their results."""
    engine: dict[str, int] = field(default_factory=dict)

    def _applied(self, action: str | None, round: int) -> None:
        if action not in ACTION_STRENGTH:
            return
        self.first.setdefault(action, max(round, 1))
        if self.strongest is None or ACTION_STRENGTH[action] > ACTION_STRENGTH[self.strongest]:
            self.strongest = action

    def add(self, entry: Entry) -> None:
        if isinstance(entry, RoundResult):
            self.rounds += 1
            for call in entry.calls:
                self.calls += 1
                tally = self.tools.setdefault(call.tool, ToolTally())
                tally.calls += 1
                if call.blocked:
                    self.not_executed += 1
                    tally.not_executed += 1
                if call.action in ACTION_STRENGTH:
                    self._applied(call.action, entry.number)
                    old = ACTION_STRENGTH.get(tally.strongest or "", -1)
                    if ACTION_STRENGTH[call.action] > old:
                        tally.strongest = call.action
        elif isinstance(entry, ServerResult):
            for call in entry.calls:
                self._applied(call.action, entry.after_round)
        elif isinstance(entry, TextResult):
            self.text_checks += 1
            self._applied(entry.action, entry.after_round + (1 if entry.in_round else 0))
        elif isinstance(entry, StreakResult):
            kind = entry.results
            self.streaks[kind] = self.streaks.get(kind, 0) + 1
            if entry.action is not None:
                self.fired_streaks[kind] = self.fired_streaks.get(kind, 0) + 1
            tally = self.tools.setdefault(entry.tool, ToolTally())
            tally.streaks[kind] = tally.streaks.get(kind, 0) + 1
        elif isinstance(entry, EngineResult) and entry.kind != "not-replayed":
            self.engine[entry.kind] = self.engine.get(entry.kind, 0) + 1

    @property
    def interfered(self) -> bool:
        """The engine would have changed the run: steer or a stronger rung applied."""
        return ACTION_STRENGTH.get(self.strongest or "", -1) >= STEER_OR_STRONGER


@dataclass(frozen=True)
class FileProblem:
    """A file, or a run in it, that could not be replayed."""

    file: str
    line: int
    message: str


@dataclass(frozen=True)
class FileTask:
    """One file to replay, under each ladder (the first is the option's own)."""

    path: str
    options: ReplayOptions
    ladders: tuple[Mapping[str, int | bool], ...] = ()
    format: str | None = None


@dataclass(frozen=True)
class FileResult:
    """The runs of one file under each ladder (``runs[i]`` for ladder ``i``), and problems."""

    path: str
    format: str | None
    runs: tuple[tuple[RunSummary, ...], ...]
    problems: tuple[FileProblem, ...] = ()
    notices: int = 0


class _Collector:
    """Cuts one ladder's entries into runs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: list[RunSummary] = []
        self.current = RunSummary(run_name(path), str(path), 1)
        self.started = False
        self.many = False
        """The file holds many runs, each read whole before any of its events."""

    def add(self, entry: Entry) -> None:
        if isinstance(entry, ConversationResult):
            self.many = True
            if self.started:
                self.done.append(self.current)
            self.current = RunSummary(entry.run_id, str(self.path), entry.line)
            self.current.outcome = entry.outcome
        self.started = True
        self.current.add(entry)

    def finish(self, log_format: str | None) -> list[RunSummary]:
        if self.started or not self.done:
            self.done.append(self.current)
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
    collectors = [_Collector(path) for _ in ladders]
    reader = LogReader(path, task.format)
    notices = 0
    skipped: list[FileProblem] = []  # checks the engine could not run: never a quiet pass

    def collect(entry: Entry, collector: _Collector) -> None:
        collector.add(entry)
        if isinstance(entry, SkippedCheck) and collector is collectors[0]:
            skipped.append(FileProblem(str(path), entry.line, entry.describe()))

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
                collector.done.append(collector.current)
        kept = tuple(tuple(c.done) for c in collectors)  # the runs before the broken one
        for done in kept:
            for run in done:
                run.format = reader.format
        return FileResult(str(path), reader.format, kept, (*skipped, problem), notices)
    runs = tuple(tuple(c.finish(reader.format)) for c in collectors)
    return FileResult(str(path), reader.format, runs, tuple(skipped), notices)
