"""The fleet report: a corpus's run summaries added up, by outcome and by ladder.

:class:`FleetTotals` takes the :class:`~.fleet.FileResult` of each file in
corpus order and keeps only counters (constant memory, whatever the number
of runs): runs and rounds; runs reaching each rung; the round where each
rung first fired; calls not executed; each tool's calls, runs and streaks;
streaks by their results (identical: a loop; changed: polling or progress);
each split by outcome group (success, failure, unlabelled); and, for a
sweep, per ladder, the runs the engine would have interfered with (steer or
a stronger rung applied) among successful runs and the loops it would have
caught among failed ones. It renders as the terminal summary, the JSON-lines
``summary`` and ``ladder`` objects, and one self-contained HTML page.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TextIO

from doomloop_kit.reference import RUNGS

from . import charts
from .fleet import FileResult, RunSummary
from .outcomes import FAILURE, GROUPS, SUCCESS, Outcomes
from .summary import STREAK_KINDS

TOP_TOOLS: Final = 15


@dataclass
class GroupTotals:
    """The runs of one outcome group under one ladder."""

    runs: int = 0
    rounds: int = 0
    calls: int = 0
    not_executed: int = 0
    runs_not_executed: int = 0
    interfered: int = 0
    reached: Counter[str] = field(default_factory=Counter)
    streaks: Counter[str] = field(default_factory=Counter)
    fired_streaks: Counter[str] = field(default_factory=Counter)

    def add(self, run: RunSummary) -> None:
        self.runs += 1
        self.rounds += run.rounds
        self.calls += run.calls
        self.not_executed += run.not_executed
        self.runs_not_executed += run.not_executed > 0
        self.interfered += run.interfered
        self.reached.update(run.first.keys())
        self.streaks.update(run.streaks)
        self.fired_streaks.update(run.fired_streaks)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "rounds": self.rounds,
            "calls": self.calls,
            "notExecuted": self.not_executed,
            "runsWithCallsNotExecuted": self.runs_not_executed,
            "runsInterfered": self.interfered,
            "runsReaching": {rung: self.reached[rung] for rung in RUNGS},
            "streaks": {kind: self.streaks[kind] for kind in STREAK_KINDS},
            "streaksThatFired": {kind: self.fired_streaks[kind] for kind in STREAK_KINDS},
        }


@dataclass
class LadderTotals:
    """One ladder of a sweep (the first is the option's own ladder)."""

    ladder: Mapping[str, int | bool]
    groups: dict[str, GroupTotals] = field(
        default_factory=lambda: {group: GroupTotals() for group in GROUPS}
    )

    def total(self) -> GroupTotals:
        total = GroupTotals()
        for group in self.groups.values():
            total.runs += group.runs
            total.rounds += group.rounds
            total.calls += group.calls
            total.not_executed += group.not_executed
            total.runs_not_executed += group.runs_not_executed
            total.interfered += group.interfered
            total.reached.update(group.reached)
            total.streaks.update(group.streaks)
            total.fired_streaks.update(group.fired_streaks)
        return total

    def to_json(self) -> dict[str, Any]:
        success, failure = self.groups[SUCCESS], self.groups[FAILURE]
        return {
            "type": "ladder",
            "ladder": dict(self.ladder),
            "successfulRuns": success.runs,
            "successfulInterfered": success.interfered,
            "successfulStopped": success.reached["stop"],
            "failedRuns": failure.runs,
            "failedCaught": failure.interfered,
            "failedStopped": failure.reached["stop"],
            "notExecuted": self.total().not_executed,
            "runsReaching": dict(self.total().reached),
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


@dataclass
class FleetTotals:
    """Counters over a whole corpus (see the module docstring)."""

    ladders: list[LadderTotals]
    outcomes: Outcomes = field(default_factory=Outcomes)
    files: int = 0
    failed_files: int = 0
    problems: int = 0
    notices: int = 0
    formats: Counter[str] = field(default_factory=Counter)
    first: dict[str, Counter[int]] = field(default_factory=lambda: {r: Counter() for r in RUNGS})
    tools: dict[str, ToolTotals] = field(default_factory=dict)
    engine: Counter[str] = field(default_factory=Counter)

    def add(self, result: FileResult) -> list[tuple[RunSummary, str]]:
        """Count one file; returns its runs (option's ladder) with their outcome group."""
        self.files += 1
        self.failed_files += bool(result.problems) and not any(result.runs[0])
        self.problems += len(result.problems)
        self.notices += result.notices
        rows = []
        for index, runs in enumerate(result.runs):
            for run in runs:
                group = self.outcomes.group(run.id, run.outcome)
                self.ladders[index].groups[group].add(run)
                if index == 0:
                    rows.append((run, group))
                    self._details(run)
        return rows

    def _details(self, run: RunSummary) -> None:
        self.formats[run.format or "empty"] += 1
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
            "notices": self.notices,
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
            "unknownLabels": [
                {"line": line, "id": run_id} for line, run_id in self.outcomes.unknown()
            ],
        }


def run_json(run: RunSummary, group: str) -> dict[str, Any]:
    return {
        "type": "run",
        "id": run.id,
        "file": run.file,
        "line": run.line,
        "format": run.format,
        "outcome": group,
        "rounds": run.rounds,
        "calls": run.calls,
        "notExecuted": run.not_executed,
        "textChecks": run.text_checks,
        "firstFired": run.first,
        "strongest": run.strongest,
        "streaks": {kind: run.streaks.get(kind, 0) for kind in STREAK_KINDS},
        "engine": run.engine,
    }


def ladder_name(ladder: Mapping[str, int | bool]) -> str:
    return " ".join(f"{rung}={str(value).lower()}" for rung, value in ladder.items()) or "option"


# -- the terminal -------------------------------------------------------------------


def _cell(part: int, whole: int) -> str:
    return f"{part} ({percent(part, whole):.1f}%)" if whole else "-"


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
    header = f"{'':<26}" + "".join(f"{name:>18}" for name in ["all", *groups])
    print(header, file=out)
    columns = [all_runs, *(base.groups[g] for g in groups)]

    def row(label: str, values: list[str]) -> None:
        print(f"{label:<26}" + "".join(f"{v:>18}" for v in values), file=out)

    row("runs", [str(c.runs) for c in columns])
    for rung in RUNGS:
        if any(c.reached[rung] for c in columns):
            row(f"runs reaching {rung}", [_cell(c.reached[rung], c.runs) for c in columns])
    row("runs interfered (>=steer)", [_cell(c.interfered, c.runs) for c in columns])
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
    tools = [t for t in totals.top_tools() if t[1].fired_runs or sum(t[1].streaks.values())]
    if tools:
        print(
            f"{'tool':<28}{'calls':>8}{'runs':>7}{'fired in':>10}{'not exec':>10}"
            f"{'identical':>11}{'changed':>9}{'unknown':>9}",
            file=out,
        )
        for name, tool in tools:
            print(
                f"{name[:27]:<28}{tool.calls:>8}{tool.runs:>7}{tool.fired_runs:>10}"
                f"{tool.not_executed:>10}"
                + "".join(
                    f"{tool.streaks[k]:>{w}}" for k, w in zip(STREAK_KINDS, (11, 9, 9), strict=True)
                ),
                file=out,
            )
    if totals.engine:
        done = ", ".join(f"{kind} {n}" for kind, n in sorted(totals.engine.items()))
        print(f"engine: {done}", file=out)
    if totals.problems:
        print(f"problems: {totals.problems} (listed above); the rest is reported", file=out)


def print_sweep(totals: FleetTotals, out: TextIO) -> None:
    print(
        "sweep: successful runs the engine would interfere with (steer or stronger), "
        "failed runs it would catch",
        file=out,
    )
    width = max(len(ladder_name(t.ladder)) for t in totals.ladders[1:]) + 2
    print(
        f"{'ladder':<{width}}{'success interfered':>22}{'success stopped':>18}"
        f"{'failure caught':>20}{'failure stopped':>18}{'not executed':>14}",
        file=out,
    )
    for ladder in totals.ladders[1:]:
        success, failure = ladder.groups[SUCCESS], ladder.groups[FAILURE]
        print(
            f"{ladder_name(ladder.ladder):<{width}}"
            f"{_cell(success.interfered, success.runs):>22}"
            f"{_cell(success.reached['stop'], success.runs):>18}"
            f"{_cell(failure.interfered, failure.runs):>20}"
            f"{_cell(failure.reached['stop'], failure.runs):>18}"
            f"{ladder.total().not_executed:>14}",
            file=out,
        )


# -- the page -----------------------------------------------------------------------

STYLE: Final = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 60em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.75em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
figure.chart { margin: 1.5em 0; }
figcaption { font-weight: 600; margin-bottom: 0.5em; }
"""


def _table(header: list[str], rows: list[list[str]], ident: str) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f'<table id="{ident}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n'


def page(totals: FleetTotals, title: str) -> str:
    """The whole report as one HTML page with inline SVG: no script, no request."""
    base = totals.ladders[0]
    all_runs = base.total()
    groups = [g for g in GROUPS if base.groups[g].runs]
    columns = {"all": all_runs, **{g: base.groups[g] for g in groups}}
    parts = [
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
        f"<h1>{html.escape(title)}</h1>\n"
        f'<p id="summary">{all_runs.runs} runs in {totals.files} files, {all_runs.rounds} '
        f"rounds, {all_runs.calls} calls, {all_runs.not_executed} calls not executed "
        f"(block or stop), {all_runs.interfered} runs interfered with.</p>\n",
        charts.grouped_bars(
            "Runs reaching each rung (% of the runs of each outcome)",
            list(RUNGS),
            {
                name: [percent(c.reached[rung], c.runs) for rung in RUNGS]
                for name, c in columns.items()
            },
        ),
    ]
    buckets = ["1-2", "3-5", "6-10", "11-20", "21-50", "51+"]
    bounds = [(1, 2), (3, 5), (6, 10), (11, 20), (21, 50), (51, 10**12)]
    fired = [rung for rung in RUNGS if totals.first[rung]]
    if fired:
        parts.append(
            charts.grouped_bars(
                "Round where each rung first fired (runs)",
                buckets,
                {
                    rung: [
                        float(sum(n for r, n in totals.first[rung].items() if lo <= r <= hi))
                        for lo, hi in bounds
                    ]
                    for rung in fired
                },
                unit=" runs",
            )
        )
    tools = [t for t in totals.top_tools() if sum(t[1].streaks.values())]
    if tools:
        parts.append(
            charts.stacked_rows(
                "Streaks per tool, by their results (identical: a loop; changed: polling)",
                [(name, [float(tool.streaks[k]) for k in STREAK_KINDS]) for name, tool in tools],
                list(STREAK_KINDS),
                charts.STREAK_COLOURS,
            )
        )
    rows = [
        ["runs", *(str(c.runs) for c in columns.values())],
        *(
            [f"reaching {rung}", *(_cell(c.reached[rung], c.runs) for c in columns.values())]
            for rung in RUNGS
        ),
        ["interfered (>=steer)", *(_cell(c.interfered, c.runs) for c in columns.values())],
        ["calls not executed", *(str(c.not_executed) for c in columns.values())],
        *(
            [f"streaks, results {kind}", *(str(c.streaks[kind]) for c in columns.values())]
            for kind in STREAK_KINDS
        ),
    ]
    parts.append("<h2>By outcome</h2>\n" + _table(["", *columns], rows, "outcomes"))
    parts.append(
        "<h2>Tools</h2>\n"
        + _table(
            ["tool", "calls", "runs", "fired in", "not executed", *STREAK_KINDS],
            [
                [
                    name,
                    str(t.calls),
                    str(t.runs),
                    str(t.fired_runs),
                    str(t.not_executed),
                    *(str(t.streaks[k]) for k in STREAK_KINDS),
                ]
                for name, t in totals.top_tools()
            ],
            "tools",
        )
    )
    if len(totals.ladders) > 1:
        points = [
            (
                ladder_name(t.ladder),
                percent(t.groups[SUCCESS].interfered, t.groups[SUCCESS].runs),
                percent(t.groups[FAILURE].interfered, t.groups[FAILURE].runs),
            )
            for t in totals.ladders[1:]
        ]
        parts.append("<h2>Sweep</h2>\n")
        parts.append(
            charts.scatter(
                "Each ladder: successful runs interfered with vs failed runs caught",
                points,
                "successful runs interfered with",
                "failed runs caught",
            )
        )
        parts.append(
            _table(
                ["ladder", "success interfered", "failure caught", "not executed"],
                [
                    [
                        ladder_name(t.ladder),
                        _cell(t.groups[SUCCESS].interfered, t.groups[SUCCESS].runs),
                        _cell(t.groups[FAILURE].interfered, t.groups[FAILURE].runs),
                        str(t.total().not_executed),
                    ]
                    for t in totals.ladders[1:]
                ],
                "sweep",
            )
        )
    parts.append("</body></html>\n")
    return "".join(parts)
