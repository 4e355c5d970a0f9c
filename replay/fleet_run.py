"""``doomloop-kit replay DIR|GLOB|FILE...``: a fleet replay from the command line.

Lists the corpus (:func:`~.corpus.list_corpus`), maps
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
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from doomloop_kit.conformance.terminal import say
from doomloop_kit.jsvalue import wire
from doomloop_kit.vectorset import writing
from doomloop_kit.vectorset.progress import Progress
from doomloop_kit.vectorset.writing import OutputStream

from . import examples
from .corpus import list_corpus
from .executors import dask_map, local_map, usable_jobs
from .fleet import FileResult, FileTask, replay_file
from .fleet_report import (
    FleetTotals,
    LadderTotals,
    page,
    print_summary,
    print_sweep,
    run_json,
)
from .options import OptionError, ReplayOptions, replay_inputs
from .outcomes import Outcomes, load
from .report import dumps
from .sweep import ladders, parse_grid

EXIT_OK, EXIT_UNUSABLE = 0, 2


def _results(
    args: argparse.Namespace, tasks: Iterator[FileTask], files: int
) -> Iterator[FileResult]:
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

        def problem(file: str, line: int | None, message: str) -> None:
            """One problem: named on stderr, a line of the report, counted."""
            where = file if line is None else f"{file}:{line}"
            with progress.above():
                say(f"doomloop-kit replay: {where}: {message}")
            if report is not None:
                data = {"type": "problem", "file": file, "line": line, "message": message}
                report.write(dumps(data) + "\n")

        for unlisted in listing.problems:  # what the listing met: never a silent gap
            status = EXIT_UNUSABLE
            totals.problems += 1
            problem(unlisted.path, None, unlisted.message)
        for result in _results(args, tasks, len(files)):
            rounds += sum(run.rounds for run in result.runs[0])
            progress.advance(status=f"{rounds} rounds")
            for run, group in totals.add(result):
                if report is not None:
                    report.write(dumps(run_json(run, group)) + "\n")
            for found in result.problems:
                status = EXIT_UNUSABLE
                problem(found.file, found.line, found.message)
        progress.close()
        for line, run_id in outcomes.unknown():
            say(
                f"doomloop-kit replay: {outcomes.path}:{line}: a label for run {run_id!r}, "
                "which the corpus does not hold"
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
