"""The terminal timeline: one line per round, text check and server check.

A round line: ``R<n>``, the log line, each call as ``tool:streak`` (``!``
not executed: block or stop; ``=`` in-round duplicate sharing the first
call's decision; ``~`` malformed arguments; ``tool:-`` exempt; ``tool:?``
skipped), the action the engine takes, and the strongest verdict's message
shortened. Consecutive equal calls are written once with ``xk``. A line
marks where the replay moves to a sub-agent's conversation, or back; warnings
and records left out are printed where they occur, and counted in the footer
(which ``--quiet`` keeps).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from doomloop_kit.reference import Ladder

from .driver import (
    CallResult,
    ConversationResult,
    EngineResult,
    Entry,
    ResumeResult,
    RoundResult,
    ServerResult,
    SkippedCheck,
    TextResult,
    ThreadResult,
)
from .events import Notice, Skipped
from .results import StreakResult
from .summary import STREAK_KINDS, Summary, position

MESSAGE_CHARS = 90
STREAK_MEANING = {
    "identical": "identical (a loop)",
    "changed": "changed (polling or progress)",
    "unknown": "not in the log",
}
CALLS_WIDTH = 34


def shorten(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_token(call: CallResult) -> str:
    if call.action in ("exempt", "skipped"):
        return f"{call.tool}:{'-' if call.action == 'exempt' else '?'}"
    streak = call.streak if call.streak is not None else 0
    marks = ("!" if call.blocked else "") + ("=" if call.duplicate else "")
    marks += "~" if call.identity == "malformed" else ""
    return f"{call.tool}:{streak:g}{marks}"


def calls_text(calls: Iterable[CallResult]) -> str:
    groups: list[list[object]] = []
    for token in map(call_token, calls):
        if groups and groups[-1][0] == token:
            groups[-1][1] = int(str(groups[-1][1])) + 1
        else:
            groups.append([token, 1])
    return " ".join(f"{t}x{n}" if n != 1 else str(t) for t, n in groups)


def ladder_text(ladder: Ladder) -> str:
    rungs = ladder.to_json()
    return " · ".join(f"{rung} {value}" for rung, value in rungs.items() if value is not False)


class Timeline:
    """Writes entries as they come; keeps only the running summary."""

    def __init__(self, out: TextIO, *, quiet: bool = False, engine: bool = False) -> None:
        self.out = out
        self.quiet = quiet
        self.engine = engine
        self.summary = Summary()
        self.stopped = False
        self.thread: str | None = None
        self.switch: ThreadResult | None = None
        self.intros: dict[str | None, ThreadResult] = {}
        """Sub-agents not introduced yet: their first appearance."""

    def header(self, log: str, ladder: Ladder) -> None:
        print(f"replay of {log}; ladder: {ladder_text(ladder)}", file=self.out)
        if self.quiet:
            return
        print(
            f"{'round':<8}{'line':<7}{'calls (tool:streak)':<{CALLS_WIDTH}} {'action':<9}verdict",
            file=self.out,
        )

    def _row(self, where: str, line: int, calls: str, action: str | None, message: str) -> None:
        at = f"L{line}" if line else ""
        row = f"{where:<8}{at:<7}{calls:<{CALLS_WIDTH}} {action or '-':<9}"
        print((row + shorten(message)).rstrip(), file=self.out)

    def add(self, entry: Entry) -> None:
        self.summary.add(entry)
        if self.quiet:
            return
        if isinstance(entry, ThreadResult):
            self._thread(entry)
            return
        if self.switch is not None:  # said once something of that conversation is printed
            print(self._switch_line(self.switch), file=self.out)
            self.switch = None
        if isinstance(entry, Notice):
            print(f"warning: line {entry.line}: {entry.message}", file=self.out)
        elif isinstance(entry, SkippedCheck):
            print(f"skipped: line {entry.line}: {entry.describe()}", file=self.out)
        elif isinstance(entry, Skipped):
            print(f"problem: line {entry.line}: {entry.message}", file=self.out)
        elif isinstance(entry, ConversationResult):
            self.stopped = False
            outcome = "" if entry.outcome is None else f", outcome {entry.outcome}"
            print(f"== line {entry.line}: conversation {entry.run_id}{outcome} ==", file=self.out)
        elif isinstance(entry, EngineResult):
            self._engine(entry)
        elif isinstance(entry, StreakResult):
            self._row(
                "streak",
                0,
                f"{entry.tool} R{entry.first_round}..R{entry.last_round} x{entry.repeats}",
                entry.action,
                f"longest {entry.longest:g}; results {STREAK_MEANING[entry.results]}",
            )
        elif isinstance(entry, ResumeResult):
            self.stopped = False
            print(
                f"-- line {entry.line}: {'new turn, ' if entry.implicit else ''}run {entry.run} "
                f"starts from {'the state given there' if entry.given_state else 'the saved state'}"
                " --",
                file=self.out,
            )
        elif isinstance(entry, RoundResult):
            verdict = entry.verdict
            self._row(
                f"R{entry.number}",
                entry.line,
                calls_text(entry.calls),
                entry.action,
                verdict.message if verdict else "",
            )
            self._halt(entry.action)
        elif isinstance(entry, TextResult):
            verdict = entry.verdict
            streaks = f"text streak {entry.streak:g}"
            if verdict is not None and verdict.detector == "text-repetition":
                streaks += f", repeats {verdict.streak:g}"
            self._row(
                "text" if entry.in_round else f"R{position(entry)}",
                entry.line,
                streaks,
                entry.action,
                verdict.message if verdict else "",
            )
            self._halt(entry.action)
        elif isinstance(entry, ServerResult):
            verdicts = [c.verdict for c in entry.calls if c.verdict is not None]
            self._row(
                "server",
                entry.line,
                calls_text(entry.calls),
                entry.action,
                verdicts[-1].message if verdicts else "",
            )
            self._halt(entry.action)

    def _thread(self, entry: ThreadResult) -> None:
        """A move to another conversation: said once something of it is printed."""
        if entry.first:
            self.intros[entry.name] = entry
        if entry.name != self.thread:
            self.thread = entry.name
            self.switch = entry

    def _switch_line(self, entry: ThreadResult) -> str:
        """``== ... ==`` introducing a sub-agent the first time, ``-- back to ... --`` after."""
        at = f"line {entry.line}: " if entry.line else "end: "
        if entry.name is None:
            return f"-- {at}back to the session --"
        intro = self.intros.pop(entry.name, None)
        if intro is None:
            return f"-- {at}back to sub-agent {entry.name} --"
        source = ", from its progress lines (calls, no text)" if intro.mirror else ""
        session = f" of session {intro.session}" if intro.session else ""
        return (
            f"== line {intro.line}: sub-agent {entry.name}{session}{source}: its own monitor, "
            "rounds from 1 =="
        )

    def _engine(self, entry: EngineResult) -> None:
        if entry.kind == "halt":
            sealed = f", {entry.count} calls sealed" if entry.count else ""
            print(
                f"-- engine: stop gate after line {entry.line}: the run halts{sealed}; "
                "the rest of the run is not replayed --",
                file=self.out,
            )
        elif entry.kind == "not-replayed":
            noun = "response" if entry.count == 1 else "responses"
            print(
                f"-- engine: {entry.count} {noun} of the halted run not replayed --", file=self.out
            )
        else:
            what = {"steer": "steer message injected", "escalate": "escalated dispatch"}
            self._row("engine", entry.line, what[entry.kind], entry.kind, entry.message)

    def _halt(self, action: str | None) -> None:
        if self.engine:
            return  # the engine's own halt line says it
        if action == "stop" and not self.stopped:
            self.stopped = True
            print(
                "-- stop: the engine would end the run here; later lines are what-if --",
                file=self.out,
            )

    def footer(self, log_format: str | None) -> None:
        s = self.summary
        fired = ", ".join(f"{rung} at {where}" for rung, where in s.firsts() if where) or "none"
        print(
            f"{log_format or 'empty'} log: {s.rounds} rounds, {s.calls} calls, "
            f"{s.blocked} not executed (block/stop); first fired: {fired}",
            file=self.out,
        )
        if s.streaks:
            kinds = ", ".join(f"{s.streaks[k]} {k}" for k in STREAK_KINDS if k in s.streaks)
            print(f"streaks by their results: {kinds}", file=self.out)
        if s.skipped_checks:
            count = len(s.skipped_checks)
            print(
                f"incomplete: {count} {'check' if count == 1 else 'checks'} skipped (the "
                f"engine could not run {'it' if count == 1 else 'them'}); what fired may "
                "be missing",
                file=self.out,
            )
        if s.sub_agents:
            print(
                f"sub-agents: {s.sub_agents}, each replayed with its own monitor "
                "(the counts above include them)",
                file=self.out,
            )
        if s.notices:
            print(f"warnings: {s.notices} (the notices of the log)", file=self.out)
        if s.skipped:
            print(f"problems: {s.skipped} records left out (not read as calls)", file=self.out)
