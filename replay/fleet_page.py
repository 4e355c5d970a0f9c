"""``--html FILE`` in fleet mode: one self-contained page to calibrate a ladder on.

The page answers, without leaving it, *which successful runs would this
ladder have stopped or steered, where, and why*: first the ladder and the
options in force; then the successful runs the ladder would interfere with
(steer or a stronger rung), each with the round and log line where it first
did, the rung, the tool or text that fired, the verdict's message and what
the fired streaks' results say (identical: a loop; changed: polling or
progress); the verdicts on calls and on the text apart, by outcome; a
sortable list of every run; a drill-down per run (its timeline with the
ladder's thresholds, where each rung fired, each streak that fired with its
results, its warnings and problems, its sub-agents or its session); the
tools; the sweep; the warnings and problems of the corpus.

The runs are written into the page as they come, one JSON line each (so
the replay keeps no run in memory), and the page's own script (the plot of
:mod:`.page`, and ``fleet.js``) draws the lists and drill-downs from them;
the charts and tables of the totals are inline SVG and HTML written at the
end (:mod:`.charts`), readable without the script. The page makes no
request.
"""

from __future__ import annotations

import argparse
import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Final

from doomloop_kit.reference import RUNGS
from doomloop_kit.reference.ladder import ACTION_STRENGTH
from doomloop_kit.vectorset.writing import OutputStream

from . import charts
from .fleet import RunSummary
from .fleet_report import (
    VERDICT_NAMES,
    VERDICTS,
    FleetTotals,
    GroupTotals,
    dead_note,
    labels_line,
    ladder_name,
    percent,
    plural,
    run_json,
)
from .options import ReplayOptions
from .outcomes import FAILURE, GROUPS, SUCCESS
from .page import script, script_json
from .summary import STREAK_KINDS

RUNG_MEANING: Final = {
    "observe": "recorded: invisible to the run",
    "steer": "a message to the model before its next response",
    "escalate": "the next response from the escalation model",
    "block": "the call is not executed; the model is told why",
    "stop": "the run ends",
}
BUCKETS: Final = (("1-2", 1, 2), ("3-5", 3, 5), ("6-10", 6, 10), ("11-20", 11, 20))
BUCKETS_LATE: Final = (("21-50", 21, 50), ("51-100", 51, 100), ("101+", 101, 10**12))


def _e(text: object) -> str:
    return html.escape(str(text))


def _cell(part: int, whole: int) -> str:
    return f"{part} ({percent(part, whole):.1f}%)" if whole else "-"


def _td(cell: str) -> str:
    """A cell; one whose text starts with two spaces is a sub-row's label, indented."""
    if cell.startswith("  "):
        return f'<td class="sub">{_e(cell.strip())}</td>'
    return f"<td>{_e(cell)}</td>"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], ident: str) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_td(cell) for cell in row) + "</tr>" for row in rows)
    return f'<table id="{ident}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n'


def _without_name(line: str | None) -> str | None:
    """A line without its leading ``name:`` (the page shows the name beside it)."""
    return None if line is None else line.partition(": ")[2]


class FleetPage:
    """Writes the page to ``path``: the runs as they come, the totals at :meth:`close`."""

    def __init__(self, path: Path, title: str) -> None:
        self.file = OutputStream(path)
        self.title = title
        folder = resources.files(__package__)
        style = "".join(
            folder.joinpath(name).read_text(encoding="utf-8") for name in ("page.css", "fleet.css")
        )
        self.file.write(
            '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_e(title)}</title>\n<style>\n{style}</style></head>\n<body>\n"
            f"<h1>{_e(title)}</h1>\n"
            "<noscript><p>The run lists and drill-downs are drawn by the script inside this "
            "page (no network access needed): allow scripts to see them. The totals below "
            "need no script.</p></noscript>\n"
            '<script type="text/plain" id="fleet-runs">\n'
        )

    def add(self, run: RunSummary, group: str) -> None:
        """One run (under the option's own ladder) and its outcome group."""
        data = run_json(run, group)
        del data["type"]
        data["streakList"] = run.streak_list
        # a run where no streak began and nothing fired draws a flat line: left out, which
        # keeps the page of a large corpus small
        data["points"] = (run.points or []) if run.streaks or run.first else []
        self.file.write(script_json(data) + "\n")

    def close(self, totals: FleetTotals, options: ReplayOptions, args: argparse.Namespace) -> None:
        config = options.config()
        setup = {
            "ladder": config.ladder.to_json(),
            "colours": charts.RUNG_COLOURS,
            "outcomeColours": charts.OUTCOME_COLOURS,
            "streakColours": charts.STREAK_COLOURS,
            "strength": ACTION_STRENGTH,
            "labelled": any(totals.ladders[0].groups[g].runs for g in (SUCCESS, FAILURE)),
            "problems": totals.problem_list,
        }
        self.file.write(
            "</script>\n"
            + _overview(totals, options, args)
            + f'<script type="application/json" id="fleet-setup">{script_json(setup)}</script>\n'
            + f"<script>\n{script('plot.js', 'fleet.js')}</script>\n</body></html>\n"
        )
        self.file.commit()

    def abort(self) -> None:
        self.file.abort()


def _overview(totals: FleetTotals, options: ReplayOptions, args: argparse.Namespace) -> str:
    base = totals.ladders[0]
    all_runs = base.total()
    columns = {"all": all_runs, **{g: base.groups[g] for g in GROUPS if base.groups[g].runs}}
    parts = [
        f'<p id="summary">{plural(all_runs.runs, "run")} '
        f"({all_runs.runs - all_runs.sub_agents} sessions or logs, "
        f"{plural(all_runs.sub_agents, 'sub-agent')}) in {plural(totals.files, 'file')}; "
        f"{plural(all_runs.rounds, 'round')}, {plural(all_runs.calls, 'call')}, "
        f"{all_runs.not_executed} not executed (block or stop); "
        f"{plural(all_runs.interfered, 'run')} interfered with; "
        f"{plural(all_runs.without_calls, 'run')} without calls; "
        f"{plural(totals.notices, 'warning')}; "
        f"{plural(totals.problems + totals.skipped, 'problem')}.</p>\n",
        _setup(totals, options, args),
        '<section id="interfered"><h2>Successful runs this ladder would interfere with</h2>\n'
        '<p class="hint">Steer or a stronger rung applied (observe leaves no trace in a run): '
        "where it first did, what fired, and what the results of the streaks that fired "
        'say. Choose a run for its drill-down.</p><div class="list"></div></section>\n',
        _verdicts(totals, columns, options.config().ladder.to_json()),
        '<section id="runs"><h2>All runs</h2>\n<p class="hint">Choose a column to sort by it, '
        'a run for its drill-down.</p><div class="list"></div></section>\n'
        '<section id="drill"><h2>Run</h2><p class="hint">Choose a run in a list above.</p>'
        "</section>\n",
        _tools(totals),
    ]
    if len(totals.ladders) > 1:
        parts.append(_sweep(totals))
    parts.append(_bookkeeping(totals))
    return "".join(parts)


def _setup(totals: FleetTotals, options: ReplayOptions, args: argparse.Namespace) -> str:
    ladder = options.config().ladder.to_json()
    dead = dict(totals.ladders[0].dead)
    rows = [
        [
            rung,
            "off" if ladder[rung] is False else f"streak {ladder[rung]}",
            RUNG_MEANING[rung] + (f" (dead: {dead[rung]} wins first)" if rung in dead else ""),
        ]
        for rung in RUNGS
    ]
    keys = ", ".join(
        f"{tool}: {', '.join(key)}"
        for tool, key in options.loop_keys.items()
        if isinstance(key, list)
    )
    exempt = ", ".join(tool for tool, key in options.loop_keys.items() if key is False)
    option = json.dumps(options.option, ensure_ascii=False)
    facts = [
        ("option", option),
        ("loop keys", keys or "none (calls are identified by their full arguments)"),
        ("exempt tools", exempt or "none"),
        ("engine consequences (--engine)", "applied" if options.engine else "not applied"),
        ("formats", ", ".join(f"{k} {v}" for k, v in sorted(totals.formats.items())) or "none"),
        ("labels", _without_name(labels_line(totals, "below")) or "none given (--outcomes FILE)"),
    ]
    items = "".join(f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>" for name, value in facts)
    return (
        '<section id="setup"><h2>The ladder and options in force</h2>\n'
        + _table(["rung", "fires at", "what the engine does"], rows, "ladder")
        + f'<dl class="facts">{items}</dl></section>\n'
    )


def _verdicts(
    totals: FleetTotals, columns: Mapping[str, GroupTotals], ladder: Mapping[str, object]
) -> str:
    """The verdicts by outcome, on calls and on the text apart (the enabled or reached
    rungs of ``ladder``, the resolved ladder)."""
    rows = [["runs", *(str(c.runs) for c in columns.values())]]
    shown = [r for r in RUNGS if columns["all"].reached[r] or ladder[r] is not False]
    for rung in shown:
        rows.append(
            [f"reaching {rung}", *(_cell(c.reached[rung], c.runs) for c in columns.values())]
        )
        for kind in VERDICTS:
            cells = (_cell(c.reached_by[kind][rung], c.runs) for c in columns.values())
            rows.append([f"  by {VERDICT_NAMES[kind]}", *cells])
    rows.append(["interfered (>=steer)", *(_cell(c.interfered, c.runs) for c in columns.values())])
    for kind in VERDICTS:
        cells = (_cell(c.interfered_by[kind], c.runs) for c in columns.values())
        rows.append([f"  by {VERDICT_NAMES[kind]}", *cells])
    rows.append(["calls not executed", *(str(c.not_executed) for c in columns.values())])
    for kind in STREAK_KINDS:
        cells = (f"{c.streaks[kind]} ({c.fired_streaks[kind]} fired)" for c in columns.values())
        rows.append([f"streaks, results {kind}", *cells])
    everyone = columns["all"]
    parts = [
        '<section id="verdicts"><h2>Call and text verdicts, by outcome</h2>\n',
        _table(["", *columns], rows, "outcomes"),
        charts.grouped_bars(
            "Runs reaching each rung, by outcome (% of the runs of each outcome)",
            list(RUNGS),
            {name: [percent(c.reached[r], c.runs) for r in RUNGS] for name, c in columns.items()},
            charts.OUTCOME_COLOURS,
            y_title="runs",
            x_title="rung (the run's strongest verdict at least this)",
            ident="reach-by-outcome",
        ),
        charts.grouped_bars(
            "Runs reaching each rung, by the kind of verdict (all runs)",
            list(RUNGS),
            {
                f"by {VERDICT_NAMES[kind]}": [float(everyone.reached_by[kind][r]) for r in RUNGS]
                for kind in VERDICTS
            },
            charts.VERDICT_COLOURS,
            unit=" runs",
            y_title="runs",
            x_title="rung",
            ident="reach-by-verdict",
        ),
    ]
    fired = [rung for rung in RUNGS if totals.first[rung]]
    if fired:
        latest = max(max(totals.first[rung]) for rung in fired)
        buckets = [b for b in (*BUCKETS, *BUCKETS_LATE) if b[1] <= latest]
        parts.append(
            charts.grouped_bars(
                "Round where each rung first fired in a run (runs)",
                [name for name, _, _ in buckets],
                {
                    rung: [
                        float(sum(n for r, n in totals.first[rung].items() if lo <= r <= hi))
                        for _, lo, hi in buckets
                    ]
                    for rung in fired
                },
                charts.RUNG_COLOURS,
                unit=" runs",
                y_title="runs",
                x_title="round of the run",
                ident="first-fired",
            )
        )
    parts.append("</section>\n")
    return "".join(parts)


def _tools(totals: FleetTotals) -> str:
    parts = ['<section id="tools"><h2>Tools</h2>\n']
    tools = [t for t in totals.top_tools() if sum(t[1].streaks.values())]
    if tools:
        parts.append(
            charts.stacked_rows(
                "Streaks per tool, by their results (identical: a loop; changed: polling or "
                "progress)",
                [(name, [float(tool.streaks[k]) for k in STREAK_KINDS]) for name, tool in tools],
                list(STREAK_KINDS),
                charts.STREAK_COLOURS,
                x_title="streaks",
                ident="streaks-per-tool",
            )
        )
    parts.append(
        _table(
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
            "tools-table",
        )
    )
    parts.append("</section>\n")
    return "".join(parts)


def _sweep(totals: FleetTotals) -> str:
    ladders = totals.ladders[1:]
    labelled = any(t.groups[g].runs for t in ladders for g in (SUCCESS, FAILURE))
    parts = ['<section id="sweep"><h2>Sweep</h2>\n']
    if labelled:
        points = [
            (
                ladder_name(t.ladder),
                percent(t.groups[SUCCESS].interfered, t.groups[SUCCESS].runs),
                percent(t.groups[FAILURE].interfered, t.groups[FAILURE].runs),
                bool(t.dead),
            )
            for t in ladders
        ]
        parts.append(
            charts.scatter(
                "Each ladder: successful runs interfered with against failed runs caught "
                "(up and to the left is better)",
                points,
                "successful runs interfered with",
                "failed runs caught",
                ident="sweep-chart",
            )
        )
    else:
        parts.append(
            charts.grouped_bars(
                "Each ladder: runs interfered with and runs stopped (% of all runs; no outcome "
                "labels)",
                [ladder_name(t.ladder) + (" (dead rung)" if t.dead else "") for t in ladders],
                {
                    "runs interfered with": [
                        percent(t.total().interfered, t.total().runs) for t in ladders
                    ],
                    "runs stopped": [
                        percent(t.total().reached["stop"], t.total().runs) for t in ladders
                    ],
                },
                charts.SWEEP_COLOURS,
                y_title="runs",
                x_title="ladder",
                ident="sweep-chart",
            )
        )
    header = ["ladder", "runs interfered", "runs stopped"]
    if labelled:
        header += ["success interfered", "success stopped", "failure caught", "failure stopped"]
    rows = []
    for t in ladders:
        total = t.total()
        row = [ladder_name(t.ladder), _cell(total.interfered, total.runs)]
        row.append(_cell(total.reached["stop"], total.runs))
        if labelled:
            success, failure = t.groups[SUCCESS], t.groups[FAILURE]
            row += [
                _cell(success.interfered, success.runs),
                _cell(success.reached["stop"], success.runs),
            ]
            row += [
                _cell(failure.interfered, failure.runs),
                _cell(failure.reached["stop"], failure.runs),
            ]
        rows.append([*row, str(total.not_executed), dead_note(t) or "-"])
    parts.append(_table([*header, "not executed", "note"], rows, "sweep"))
    parts.append("</section>\n")
    return "".join(parts)


def _bookkeeping(totals: FleetTotals) -> str:
    all_runs = totals.ladders[0].total()
    facts = [
        ("files", f"{totals.files} ({totals.failed_files} could not be read at all)"),
        ("sub-agents", f"{all_runs.sub_agents}, each replayed with its own monitor"),
        ("read from progress lines", f"{totals.mirrored} sub-agents (calls, no text)"),
        ("progress copies left out", f"{totals.mirrors_dropped} (their own files were read)"),
        ("runs without calls", str(all_runs.without_calls)),
        ("warnings", f"{totals.notices} in {totals.runs_with_notices} runs"),
        ("files or runs not replayed", str(totals.problems)),
        ("records left out", str(totals.skipped)),
        ("labels", _without_name(labels_line(totals, "below")) or "none given"),
    ]
    items = "".join(f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>" for name, value in facts)
    unknown = totals.outcomes.unknown()
    rows = [
        [f"{p['file']}:{p['line']}", p["run"] or "-", "yes" if p["fatal"] else "no", p["message"]]
        for p in totals.problem_list
    ]
    more = totals.problems + totals.skipped - len(rows)
    parts = [
        '<section id="notices"><h2>Warnings and problems</h2>\n',
        f'<dl class="facts">{items}</dl>\n',
        _table(["where", "run", "run dropped", "problem"], rows, "problems") if rows else "",
        f"<p>... and {more} more problems (--json lists every one).</p>\n" if more > 0 else "",
        _table(
            ["label file line", "run id"], [[str(n), i] for n, i in unknown[:200]], "unknown-labels"
        )
        if unknown
        else "",
        '<h3>Runs with warnings</h3><div class="list" id="warned"></div></section>\n',
    ]
    return "".join(parts)
