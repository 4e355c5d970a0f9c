"""``doomloop-kit replay DIR|GLOB|FILE...``: a fleet replay from the command line.

Lists the corpus (:func:`~.corpus.list_corpus`), maps
:func:`~.fleet.replay_file` over it with the chosen executor
(:mod:`.executors`), adds the results up in corpus order
(:class:`~.fleet_report.FleetTotals`) and prints the summary (and the sweep
table with ``--sweep``). ``--json FILE`` writes the JSON lines as they come
(a ``fleet`` header, one ``run`` per run, a ``problem`` per file or run
that could not be replayed and per record left out, an ``unknown-label`` per
label naming no run, one ``ladder`` per ladder of a sweep, the ``summary``
last); ``--html FILE`` the page (:mod:`.fleet_page`). Both are published only
when the whole corpus is done (a failed or interrupted replay leaves no
half-written file). Exit status 0, or 2 when some input could not be used
(a file, a record, a folder or link the listing could not follow, or an
outcomes file none of whose labels names a run): the report still covers
the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TextIO

from doomloop_kit.jsvalue import wire
from doomloop_kit.vectorset import writing
from doomloop_kit.vectorset.progress import Progress
from doomloop_kit.vectorset.writing import OutputStream

from . import examples
from .corpus import list_corpus
from .executors import dask_map, local_map, usable_jobs
from .fleet import FileResult, FileTask, replay_file
from .fleet_page import FleetPage
from .fleet_report import (
    FleetTotals,
    LadderTotals,
    Row,
    labels_line,
    print_summary,
    print_sweep,
    problem_json,
    run_json,
)
from .options import OptionError, ReplayOptions, replay_inputs
from .outcomes import Outcomes, load
from .problems import ProblemLines
from .report import dumps
from .sweep import dead_rungs, ladders, parse_grid

EXIT_OK, EXIT_UNUSABLE = 0, 2


def _results(
    args: argparse.Namespace, tasks: Iterator[FileTask], files: int
) -> Generator[FileResult, None, None]:
    jobs = usable_jobs(args.jobs or 1, files)
    if args.dask:
        return dask_map(replay_file, tasks, args.dask, jobs)
    return local_map(replay_file, tasks, jobs)


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a file, None when it cannot be found: which names are one file."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino)


def run_fleet(args: argparse.Namespace, options: ReplayOptions, out: TextIO) -> int:
    if args.port:
        raise OptionError("--port replays one log: it takes no corpus")
    grid = list(ladders(parse_grid(args.sweep))) if args.sweep else []
    config = options.config()
    for ladder in grid:
        options.with_ladder(ladder).config()  # an unusable ladder fails before any work
    outcomes = load(args.outcomes) if args.outcomes else Outcomes()
    listing = list_corpus(str(examples.resolve(path)) for path in args.log)
    labels = _identity(args.outcomes) if args.outcomes else None
    files = [file for file in listing.files if labels is None or _identity(file) != labels]
    if not files:
        why = "".join(f"; {p.path}: {p.message}" for p in listing.problems)
        raise OptionError(f"no log files in {' '.join(str(p) for p in args.log)}{why}")
    outputs = (("--json", args.json), ("--html", args.html))
    writing.check_outputs(  # before anything is written: no output into the corpus
        [(option, path) for option, path in outputs if path is not None],
        [*replay_inputs(args), *(writing.Input(file) for file in files)],
    )
    rows = [LadderTotals({}, dead_rungs(options))]
    rows += [LadderTotals(ladder, dead_rungs(options.with_ladder(ladder))) for ladder in grid]
    totals = FleetTotals(rows, outcomes)
    detail = args.html is not None
    tasks = (FileTask(str(file), options, ({}, *grid), args.format, detail) for file in files)
    report = OutputStream(args.json) if args.json else None
    try:
        html_file = (
            FleetPage(args.html, f"Fleet replay of {len(files)} files") if args.html else None
        )
    except OSError:
        if report is not None:
            report.abort()
        raise
    progress = Progress(len(files), what="replaying", unit="files", mode=args.progress)
    problems = ProblemLines(sys.stderr)
    rounds = 0

    def write(found: list[Row]) -> None:
        for run, group in found:
            if report is not None:
                report.write(dumps(run_json(run, group)) + "\n")
            if html_file is not None:
                html_file.add(run, group)

    try:
        if report is not None:
            header = {
                "type": "fleet",
                "inputs": [str(path) for path in args.log],
                "config": wire.encode(config.to_json()),
                "engine": options.engine,
                "sweep": args.sweep,
            }
            report.write(dumps(header) + "\n")
        for unlisted in listing.problems:  # what the listing met: never a silent gap
            totals.problems += 1
            with progress.above():
                problems.add(unlisted.path, unlisted.message)
            if report is not None:
                found = {"type": "problem", "file": unlisted.path, "line": None}
                report.write(dumps({**found, "message": unlisted.message}) + "\n")
        # closed however the loop ends, so that the workers stop before the command ends
        with contextlib.closing(_results(args, tasks, len(files))) as results:
            for result in results:
                rounds += sum(run.rounds for run in result.runs[0])
                progress.advance(status=f"{rounds} rounds")
                write(totals.add(result))
                for problem in result.problems:
                    with progress.above():
                        problems.add(f"{problem.file}:{problem.line}", problem.message)
                    if report is not None:
                        report.write(dumps(problem_json(problem)) + "\n")
        write(totals.finish())
        progress.close()
        problems.close()
        unknown = ProblemLines(sys.stderr, "labels that name no run")
        for line, run_id in outcomes.unknown():
            unknown.add(
                f"{outcomes.path}:{line}",
                f"a label for run {run_id!r}, which the corpus does not hold",
            )
            if report is not None:
                data = {"type": "unknown-label", "file": outcomes.path, "line": line}
                report.write(dumps({**data, "id": run_id}) + "\n")
        unknown.close()
        if report is not None:
            for row in totals.ladders[1:]:
                report.write(dumps(row.to_json()) + "\n")
            report.write(dumps(totals.summary_json()) + "\n")
        if html_file is not None:
            html_file.close(totals, options, args)
        if report is not None:
            report.commit()
    except BaseException:
        for output in (report, html_file):
            if output is not None:
                output.abort()
        raise
    print_summary(totals, out)
    if grid:
        print_sweep(totals, out)
    no_label_matched = bool(outcomes.labels) and not outcomes.matched
    if no_label_matched:
        print(f"doomloop-kit replay: {labels_line(totals)}", file=sys.stderr)
    unusable = problems.count or no_label_matched
    return EXIT_UNUSABLE if unusable else EXIT_OK


def fleet_wanted(args: argparse.Namespace) -> bool:
    """Fleet mode: several inputs, a folder, a glob, or a fleet option."""
    paths = [str(path) for path in args.log]
    single = len(paths) == 1 and not Path(paths[0]).is_dir() and not glob.has_magic(paths[0])
    return not single or bool(args.fleet or args.outcomes or args.jobs or args.dask)
