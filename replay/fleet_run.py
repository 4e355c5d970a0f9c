"""``doomloop-kit replay DIR|GLOB|FILE...``: a fleet replay from the command line.

Lists the corpus (:func:`~.fleet.corpus`), maps
:func:`~.fleet.replay_file` over it with the chosen executor
(:mod:`.executors`), adds the results up in corpus order
(:class:`~.fleet_report.FleetTotals`) and prints the summary (and the sweep
table with ``--sweep``). ``--json FILE`` writes the JSON lines as they come
(a ``fleet`` header, one ``run`` per run, a ``problem`` per file or run
that could not be replayed, an ``unknown-label`` per label naming no run,
one ``ladder`` per ladder of a sweep, the ``summary`` last); ``--html FILE``
the page. Both are published only when the whole corpus is done (a failed
or interrupted replay leaves no half-written file). Exit status 0, or 2
when some input could not be used (the report still covers the rest).
"""

from __future__ import annotations

import argparse
import glob
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from doomloop_kit.jsvalue import wire
from doomloop_kit.vectorset.progress import Progress
from doomloop_kit.vectorset.writing import OutputStream

from . import examples
from .executors import dask_map, local_map
from .fleet import FileResult, FileTask, corpus, replay_file
from .fleet_report import (
    FleetTotals,
    LadderTotals,
    page,
    print_summary,
    print_sweep,
    run_json,
)
from .options import OptionError, ReplayOptions
from .outcomes import Outcomes, load
from .report import dumps
from .sweep import ladders, parse_grid

EXIT_OK, EXIT_UNUSABLE = 0, 2


def _results(args: argparse.Namespace, tasks: Iterator[FileTask]) -> Iterator[FileResult]:
    jobs = args.jobs or 1
    if args.dask:
        return dask_map(replay_file, tasks, args.dask, jobs)
    return local_map(replay_file, tasks, jobs)


def run_fleet(args: argparse.Namespace, options: ReplayOptions, out: TextIO) -> int:
    if args.port:
        raise OptionError("--port replays one log: it takes no corpus")
    grid = list(ladders(parse_grid(args.sweep))) if args.sweep else []
    config = options.config()
    for ladder in grid:
        options.with_ladder(ladder).config()  # an unusable ladder fails before any work
    outcomes = load(args.outcomes) if args.outcomes else Outcomes()
    inputs = (str(examples.resolve(path)) for path in args.log)
    labels = Path(args.outcomes).resolve() if args.outcomes else None
    files = [file for file in corpus(inputs) if file.resolve() != labels]
    if not files:
        raise OptionError(f"no log files in {' '.join(str(p) for p in args.log)}")
    totals = FleetTotals([LadderTotals({}), *(LadderTotals(ladder) for ladder in grid)], outcomes)
    tasks = (FileTask(str(file), options, ({}, *grid), args.format) for file in files)
    report = OutputStream(args.json) if args.json else None
    try:
        html_file = OutputStream(args.html) if args.html else None
    except OSError:
        if report is not None:
            report.abort()
        raise
    progress = Progress(len(files), what="replaying", unit="files", mode=args.progress)
    rounds = 0
    status = EXIT_OK
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
        for result in _results(args, tasks):
            rounds += sum(run.rounds for run in result.runs[0])
            progress.advance(status=f"{rounds} rounds")
            for run, group in totals.add(result):
                if report is not None:
                    report.write(dumps(run_json(run, group)) + "\n")
            for problem in result.problems:
                status = EXIT_UNUSABLE
                where = f"{problem.file}:{problem.line}"
                with progress.above():
                    print(f"doomloop-kit replay: {where}: {problem.message}", file=sys.stderr)
                if report is not None:
                    data = {"type": "problem", "file": problem.file, "line": problem.line}
                    report.write(dumps({**data, "message": problem.message}) + "\n")
        progress.close()
        for line, run_id in outcomes.unknown():
            print(
                f"doomloop-kit replay: {outcomes.path}:{line}: a label for run {run_id!r}, "
                "which the corpus does not hold",
                file=sys.stderr,
            )
            if report is not None:
                data = {"type": "unknown-label", "file": outcomes.path, "line": line}
                report.write(dumps({**data, "id": run_id}) + "\n")
        if report is not None:
            for row in totals.ladders[1:]:
                report.write(dumps(row.to_json()) + "\n")
            report.write(dumps(totals.summary_json()) + "\n")
        if html_file is not None:
            html_file.write(page(totals, f"Fleet replay of {len(files)} files"))
            html_file.commit()
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
    return status


def fleet_wanted(args: argparse.Namespace) -> bool:
    """Fleet mode: several inputs, a folder, a glob, or a fleet option."""
    paths = [str(path) for path in args.log]
    single = len(paths) == 1 and not Path(paths[0]).is_dir() and not glob.has_magic(paths[0])
    return not single or bool(args.fleet or args.outcomes or args.jobs or args.dask)
