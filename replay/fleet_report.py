"""The fleet report: a corpus's run summaries added up, by outcome and by ladder.

:class:`FleetTotals` takes the :class:`~.fleet.FileResult` of each file in
corpus order and keeps counters (constant memory, whatever the number of
runs): runs and rounds; runs reaching each rung, and whether a call verdict
or a text verdict took them there; the round where each rung first fired;
calls not executed; each tool's calls, runs and streaks; streaks by their
results (identical: a loop; changed: polling or progress); each split by
outcome group (success, failure, unlabelled); and, for a sweep, per ladder,
the runs the engine would have interfered with (steer or a stronger rung
applied) among successful runs and the loops it would have caught among
failed ones, with the rungs a ladder leaves dead. What the corpus held
besides is counted too, so that nothing is dropped silently: sub-agents
(each a run of its own, linked to its session), runs without calls,
warnings, records left out, files that could not be read, labels that name
no run. A sub-agent read from its session's progress lines is held back
until the end and left out when its own file was in the corpus (the same
conversation, with its text). It renders as the terminal summary and the
JSON-lines ``run``, ``ladder`` and ``summary`` objects; :mod:`.fleet_page`
draws the page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TextIO

from doomloop_kit.reference import RUNGS

from .fleet import FileResult, RunSummary, interferes
from .outcomes import FAILURE, GROUPS, SUCCESS, Outcomes
from .summary import STREAK_KINDS

TOP_TOOLS: Final = 15
VERDICTS: Final = ("calls", "text")
"""Verdicts on calls (client and server tools) and on the text, counted apart."""
VERDICT_NAMES: Final = {"calls": "a call verdict", "text": "a text verdict"}
KEPT_PROBLEMS: Final = 200
"""Problems the page lists in full (all are counted, and all are in --json)."""


@dataclass
class GroupTotals:
    """The runs of one outcome group under one ladder."""

    runs: int = 0
    rounds: int = 0
    calls: int = 0
    not_executed: int = 0
    runs_not_executed: int = 0
    interfered: int = 0
    interfered_by: Counter[str] = field(default_factory=Counter)
    reached: Counter[str] = field(default_factory=Counter)
    reached_by: dict[str, Counter[str]] = field(
        default_factory=lambda: {kind: Counter() for kind in VERDICTS}
    )
    streaks: Counter[str] = field(default_factory=Counter)
    fired_streaks: Counter[str] = field(default_factory=Counter)
    sub_agents: int = 0
    without_calls: int = 0

    def add(self, run: RunSummary) -> None:
        self.runs += 1
        self.rounds += run.rounds
        self.calls += run.calls
        self.not_executed += run.not_executed
        self.runs_not_executed += run.not_executed > 0
        self.interfered += run.interfered
        for kind in VERDICTS:
            self.interfered_by[kind] += interferes(run.strongest_by.get(kind))
            self.reached_by[kind].update(run.first_by[kind].keys())
        self.reached.update(run.first.keys())
        self.streaks.update(run.streaks)
        self.fired_streaks.update(run.fired_streaks)
        self.sub_agents += run.parent is not None
        self.without_calls += run.calls == 0

    def merge(self, other: GroupTotals) -> None:
        for name in ("runs", "rounds", "calls", "not_executed", "runs_not_executed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.interfered += other.interfered
        self.sub_agents += other.sub_agents
        self.without_calls += other.without_calls
        self.interfered_by.update(other.interfered_by)
        self.reached.update(other.reached)
        for kind in VERDICTS:
            self.reached_by[kind].update(other.reached_by[kind])
        self.streaks.update(other.streaks)
        self.fired_streaks.update(other.fired_streaks)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "subAgents": self.sub_agents,
            "runsWithoutCalls": self.without_calls,
            "rounds": self.rounds,
            "calls": self.calls,
            "notExecuted": self.not_executed,
            "runsWithCallsNotExecuted": self.runs_not_executed,
            "runsInterfered": self.interfered,
            "runsInterferedBy": {kind: self.interfered_by[kind] for kind in VERDICTS},
            "runsReaching": {rung: self.reached[rung] for rung in RUNGS},
            "runsReachingBy": {
                kind: {rung: self.reached_by[kind][rung] for rung in RUNGS} for kind in VERDICTS
            },
            "streaks": {kind: self.streaks[kind] for kind in STREAK_KINDS},
            "streaksThatFired": {kind: self.fired_streaks[kind] for kind in STREAK_KINDS},
        }


@dataclass
class LadderTotals:
    """One ladder of a sweep (the first is the option's own ladder)."""

    ladder: Mapping[str, int | bool]
    dead: Sequence[tuple[str, str]] = ()
    """(rung, the stronger rung that shadows it) for each rung the ladder leaves dead."""
    groups: dict[str, GroupTotals] = field(
        default_factory=lambda: {group: GroupTotals() for group in GROUPS}
    )

    def total(self) -> GroupTotals:
        total = GroupTotals()
        for group in self.groups.values():
            total.merge(group)
        return total

    def to_json(self) -> dict[str, Any]:
        success, failure, total = self.groups[SUCCESS], self.groups[FAILURE], self.total()
        return {
            "type": "ladder",
            "ladder": dict(self.ladder),
            "runs": total.runs,
            "runsInterfered": total.interfered,
            "runsStopped": total.reached["stop"],
            "successfulRuns": success.runs,
            "successfulInterfered": success.interfered,
            "successfulStopped": success.reached["stop"],
            "failedRuns": failure.runs,
            "failedCaught": failure.interfered,
            "failedStopped": failure.reached["stop"],
            "notExecuted": total.not_executed,
            "runsReaching": dict(total.reached),
            "deadRungs": [{"rung": rung, "shadowedBy": by} for rung, by in self.dead],
        }


@dataclass
class ToolTotals:
    calls: int = 0
    runs: int = 0
    fired_runs: int = 0
    not_executed: int = 0
    streaks: Counter[str] = field(default_factory=Counter)


def percent(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def quantile(counts: Counter[int], q: float) -> int | None:
    """The smallest value with at least ``q`` of the counted values at or below it."""
    total = sum(counts.values())
    if not total:
        return None
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= q * total:
            return value
    return None


Row = tuple[RunSummary, str]
"""A run (under the option's own ladder) and its outcome group."""


@dataclass
class FleetTotals:
    """Counters over a whole corpus (see the module docstring)."""

    ladders: list[LadderTotals]
    outcomes: Outcomes = field(default_factory=Outcomes)
    files: int = 0
    failed_files: int = 0
    problems: int = 0
    """Files, or runs in them, that could not be replayed."""
    skipped: int = 0
    """Records left out (of a type the readers do not know); their runs stand."""
    notices: int = 0
    runs_with_notices: int = 0
    mirrored: int = 0
    """Sub-agents read from their sessions' progress lines (their own file absent)."""
    mirrors_dropped: int = 0
    """Sub-agents' progress lines left out: their own file was in the corpus."""
    formats: Counter[str] = field(default_factory=Counter)
    first: dict[str, Counter[int]] = field(default_factory=lambda: {r: Counter() for r in RUNGS})
    tools: dict[str, ToolTotals] = field(default_factory=dict)
    engine: Counter[str] = field(default_factory=Counter)
    problem_list: list[dict[str, Any]] = field(default_factory=list)
    held: dict[str, list[RunSummary]] = field(default_factory=dict)
    """Sub-agents read from progress lines, each ladder's run, until the end."""
    own_files: set[str] = field(default_factory=set)
    """The ids of the sub-agents read from their own lines."""

    def add(self, result: FileResult) -> list[Row]:
        """Count one file; returns its runs (option's ladder) with their outcome group."""
        self.files += 1
        self.failed_files += bool(result.problems) and not any(result.runs[0])
        for problem in result.problems:
            self.problems += problem.fatal
            self.skipped += not problem.fatal
            if len(self.problem_list) < KEPT_PROBLEMS:
                self.problem_list.append(problem_json(problem))
        self.notices += result.notices
        rows = []
        for index, run in enumerate(result.runs[0]):
            each = [runs[index] for runs in result.runs]
            if run.mirror:
                if run.id in self.own_files:
                    self.mirrors_dropped += 1
                else:
                    self.held[run.id] = each
                continue
            if run.parent is not None:
                self.own_files.add(run.id)
                self.mirrors_dropped += self.held.pop(run.id, None) is not None
            rows.append(self._count(each))
        return rows

    def finish(self) -> list[Row]:
        """The sub-agents known only from their sessions' progress lines."""
        rows = [self._count(each) for each in self.held.values()]
        self.mirrored += len(self.held)
        self.held = {}
        return rows

    def _count(self, each: list[RunSummary]) -> Row:
        run = each[0]
        group = self.outcomes.group(run.id, run.outcome, run.parent)
        for index, ladder_run in enumerate(each):
            self.ladders[index].groups[group].add(ladder_run)
        self.formats[run.format or "empty"] += 1
        self.runs_with_notices += run.notices > 0
        for rung, round in run.first.items():
            self.first[rung][round] += 1
        for name, tally in run.tools.items():
            tool = self.tools.setdefault(name, ToolTotals())
            tool.calls += tally.calls
            tool.runs += tally.calls > 0
            tool.fired_runs += tally.strongest is not None
            tool.not_executed += tally.not_executed
            tool.streaks.update(tally.streaks)
        self.engine.update(run.engine)
        return run, group

    def top_tools(self) -> list[tuple[str, ToolTotals]]:
        ranked = sorted(
            self.tools.items(),
            key=lambda item: (-item[1].fired_runs, -sum(item[1].streaks.values()), item[0]),
        )
        return ranked[:TOP_TOOLS]

    def summary_json(self) -> dict[str, Any]:
        base = self.ladders[0]
        return {
            "type": "summary",
            "files": self.files,
            "filesFailed": self.failed_files,
            "problems": self.problems,
            "skipped": self.skipped,
            "notices": self.notices,
            "runsWithNotices": self.runs_with_notices,
            "subAgentsFromProgress": self.mirrored,
            "progressDuplicatesLeftOut": self.mirrors_dropped,
            "formats": dict(sorted(self.formats.items())),
            "all": base.total().to_json(),
            "byOutcome": {group: base.groups[group].to_json() for group in GROUPS},
            "firstFired": {
                rung: {str(k): v for k, v in sorted(counts.items())}
                for rung, counts in self.first.items()
                if counts
            },
            "tools": {
                name: {
                    "calls": tool.calls,
                    "runs": tool.runs,
                    "runsFired": tool.fired_runs,
                    "notExecuted": tool.not_executed,
                    "streaks": {kind: tool.streaks[kind] for kind in STREAK_KINDS},
                }
                for name, tool in sorted(self.tools.items())
            },
            "engine": dict(sorted(self.engine.items())),
            "labels": {"given": len(self.outcomes.labels), "matched": self.outcomes.matched},
            "unknownLabels": [
                {"line": line, "id": run_id} for line, run_id in self.outcomes.unknown()
            ],
        }


def problem_json(problem: Any) -> dict[str, Any]:
    data = {"type": "problem", "file": problem.file, "line": problem.line}
    data.update(message=problem.message, run=problem.run, fatal=problem.fatal)
    return data


def run_json(run: RunSummary, group: str) -> dict[str, Any]:
    return {
        "type": "run",
        "id": run.id,
        "file": run.file,
        "line": run.line,
        "format": run.format,
        "outcome": group,
        "session": run.session,
        "parent": run.parent,
        "subAgent": run.agent,
        "fromProgress": run.mirror,
        "rounds": run.rounds,
        "calls": run.calls,
        "notExecuted": run.not_executed,
        "textChecks": run.text_checks,
        "firstFired": run.first,
        "firstFiredBy": run.first_by,
        "fired": run.fired,
        "strongest": run.strongest,
        "strongestBy": run.strongest_by,
        "streaks": {kind: run.streaks.get(kind, 0) for kind in STREAK_KINDS},
        "engine": run.engine,
        "notices": run.notices,
        "noticeList": [{"line": line, "message": text} for line, text in run.notice_list],
        "skipped": run.skipped,
    }


def ladder_name(ladder: Mapping[str, int | bool]) -> str:
    return " ".join(f"{rung}={str(value).lower()}" for rung, value in ladder.items()) or "option"


def dead_note(ladder: LadderTotals) -> str:
    """``dead rung: block (stop wins)`` for a ladder with dead rungs, else ``""``."""
    if not ladder.dead:
        return ""
    return "dead rung: " + ", ".join(f"{rung} ({by} wins)" for rung, by in ladder.dead)


# -- the terminal -------------------------------------------------------------------


def _cell(part: int, whole: int) -> str:
    return f"{part} ({percent(part, whole):.1f}%)" if whole else "-"


def _runs_line(totals: FleetTotals, all_runs: GroupTotals) -> str:
    parts = [f"{all_runs.runs - all_runs.sub_agents} sessions or logs"]
    if all_runs.sub_agents:
        text = plural(all_runs.sub_agents, "sub-agent")
        text += " (each with its own monitor, linked to its session"
        if totals.mirrored:
            text += f"; {totals.mirrored} read from its session's progress lines, without text"
        if totals.mirrors_dropped:
            copies = "copy" if totals.mirrors_dropped == 1 else "copies"
            text += f"; {totals.mirrors_dropped} progress {copies} left out for their own files"
        parts.append(text + ")")
    parts.append(f"{all_runs.without_calls} without calls")
    return "runs: " + ", ".join(parts)


def print_summary(totals: FleetTotals, out: TextIO) -> None:
    base = totals.ladders[0]
    all_runs = base.total()
    groups = [g for g in GROUPS if base.groups[g].runs]
    formats = ", ".join(f"{name} {count}" for name, count in sorted(totals.formats.items()))
    print(
        f"fleet: {all_runs.runs} runs in {totals.files} files ({formats or 'none'}); "
        f"{all_runs.rounds} rounds, {all_runs.calls} calls",
        file=out,
    )
    print(_runs_line(totals, all_runs), file=out)
    header = f"{'':<28}" + "".join(f"{name:>18}" for name in ["all", *groups])
    print(header, file=out)
    columns = [all_runs, *(base.groups[g] for g in groups)]

    def row(label: str, values: list[str]) -> None:
        print(f"{label:<28}" + "".join(f"{v:>18}" for v in values), file=out)

    row("runs", [str(c.runs) for c in columns])
    for rung in RUNGS:
        if any(c.reached[rung] for c in columns):
            row(f"runs reaching {rung}", [_cell(c.reached[rung], c.runs) for c in columns])
            for kind in VERDICTS:
                cells = [_cell(c.reached_by[kind][rung], c.runs) for c in columns]
                row(f"  by {VERDICT_NAMES[kind]}", cells)
    row("runs interfered (>=steer)", [_cell(c.interfered, c.runs) for c in columns])
    for kind in VERDICTS:
        row(f"  by {VERDICT_NAMES[kind]}", [_cell(c.interfered_by[kind], c.runs) for c in columns])
    row("calls not executed", [str(c.not_executed) for c in columns])
    for kind in STREAK_KINDS:
        row(
            f"streaks, results {kind}",
            [f"{c.streaks[kind]} ({c.fired_streaks[kind]} fired)" for c in columns],
        )
    for rung in RUNGS:
        counts = totals.first[rung]
        if counts:
            print(
                f"first {rung}: round {quantile(counts, 0.5)} (median), "
                f"{quantile(counts, 0.9)} (90th percentile), {min(counts)}..{max(counts)}",
                file=out,
            )
    _print_tools(totals, out)
    if totals.engine:
        done = ", ".join(f"{kind} {n}" for kind, n in sorted(totals.engine.items()))
        print(f"engine: {done}", file=out)
    _print_bookkeeping(totals, out)


def _print_tools(totals: FleetTotals, out: TextIO) -> None:
    tools = [t for t in totals.top_tools() if t[1].fired_runs or sum(t[1].streaks.values())]
    if not tools:
        return
    width = max(28, *(len(name) + 2 for name, _ in tools))
    print(
        f"{'tool':<{width}}{'calls':>8}{'runs':>7}{'fired in':>10}{'not exec':>10}"
        f"{'identical':>11}{'changed':>9}{'unknown':>9}",
        file=out,
    )
    for name, tool in tools:
        print(
            f"{name:<{width}}{tool.calls:>8}{tool.runs:>7}{tool.fired_runs:>10}"
            f"{tool.not_executed:>10}"
            + "".join(
                f"{tool.streaks[k]:>{w}}" for k, w in zip(STREAK_KINDS, (11, 9, 9), strict=True)
            ),
            file=out,
        )


def plural(count: int, noun: str) -> str:
    """``1 run``, ``2 runs``: a count and its noun (a regular plural)."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def labels_line(totals: FleetTotals, where: str = "above") -> str | None:
    """How many of the outcome labels named a run (None without an outcomes file); the
    labels naming no run are listed ``where``."""
    outcomes = totals.outcomes
    if not outcomes.path:
        return None
    given, matched = len(outcomes.labels), outcomes.matched
    line = f"labels: {matched} of {given} matched a run ({outcomes.path})"
    if given and not matched:
        line += "; 0 labels matched: every run is unlabelled (a run's id is its file name)"
    elif given > matched:
        line += f"; {given - matched} name no run (listed {where})"
    return line


def _print_bookkeeping(totals: FleetTotals, out: TextIO) -> None:
    labels = labels_line(totals)
    if labels:
        print(labels, file=out)
    if totals.notices:
        print(
            f"warnings: {totals.notices} notices in {totals.runs_with_notices} runs "
            "(--json and the page list them per run)",
            file=out,
        )
    if totals.problems or totals.skipped:
        print(
            f"problems: {totals.problems} files or runs could not be replayed, "
            f"{totals.skipped} records left out (listed above); the rest is reported",
            file=out,
        )


def print_sweep(totals: FleetTotals, out: TextIO) -> None:
    labelled = any(t.groups[g].runs for t in totals.ladders for g in (SUCCESS, FAILURE))
    print(
        "sweep: runs the engine would interfere with (steer or stronger)"
        + (", successful runs interfered with, failed runs caught" if labelled else ""),
        file=out,
    )
    width = max(len(ladder_name(t.ladder)) for t in totals.ladders[1:]) + 2
    header = f"{'ladder':<{width}}{'runs interfered':>18}{'runs stopped':>16}"
    if labelled:
        header += f"{'success interfered':>22}{'success stopped':>18}"
        header += f"{'failure caught':>20}{'failure stopped':>18}"
    print(header + f"{'not executed':>14}", file=out)
    for ladder in totals.ladders[1:]:
        total = ladder.total()
        line = f"{ladder_name(ladder.ladder):<{width}}"
        line += f"{_cell(total.interfered, total.runs):>18}"
        line += f"{_cell(total.reached['stop'], total.runs):>16}"
        if labelled:
            success, failure = ladder.groups[SUCCESS], ladder.groups[FAILURE]
            line += f"{_cell(success.interfered, success.runs):>22}"
            line += f"{_cell(success.reached['stop'], success.runs):>18}"
            line += f"{_cell(failure.interfered, failure.runs):>20}"
            line += f"{_cell(failure.reached['stop'], failure.runs):>18}"
        line += f"{total.not_executed:>14}"
        note = dead_note(ladder)
        print(line + (f"  ({note})" if note else ""), file=out)
    if not labelled:
        print("(no outcome labels: --outcomes FILE splits these by success and failure)", file=out)
