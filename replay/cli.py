"""``doomloop-kit replay LOG``: what the monitor would have done on a recorded agent log.

Prints the timeline (:mod:`.timeline`); ``--json FILE`` writes the
JSON-lines report (:mod:`.report`), ``--html FILE`` the page with the plot
(:mod:`.page`), ``--sweep GRID`` replays under a grid of ladders
(:mod:`.sweep`), ``--port COMMAND`` replays through a port's harness as well
(:mod:`.port`). Exit status: 0 done, 1 the port differs, 2 unusable input (a log
that cannot be read, or records of it left out: the rest is still replayed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Protocol, TextIO, cast

from doomloop_kit.conformance.protocol import DEFAULT_TIMEOUT
from doomloop_kit.conformance.supervisor import positive_int, positive_seconds
from doomloop_kit.conformance.terminal import TerminalText, say
from doomloop_kit.vectorset import writing

from . import examples
from . import options as replay_options
from .driver import Entry, replay
from .events import Skipped
from .jsonstream import LogError
from .options import OptionError, ReplayOptions, options_from_args, replay_inputs
from .problems import ProblemLines
from .readers import FORMATS, LogReader
from .report import JsonReport
from .session import Session
from .timeline import Timeline

EXIT_OK, EXIT_DIFFERS, EXIT_UNUSABLE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "log",
        type=Path,
        nargs="+",
        metavar="LOG",
        help="the agent log to replay, or example:NAME for a shipped example "
        f"({', '.join(example.name for example in examples.EXAMPLES)}); several logs, a "
        "folder or a glob replay a fleet",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="the log's format (default: detected from its first records)",
    )
    replay_options.add_arguments(parser)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the JSON-lines report")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the page with the plot")
    parser.add_argument(
        "--sweep",
        metavar="GRID",
        help="replay under a grid of ladders, e.g. observe=2..4,block=3..6 (rung=a..b|a|false)",
    )
    parser.add_argument(
        "--port",
        metavar="COMMAND",
        help="also replay through this harness (protocol v1) and report the first difference",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("fuzz-found"),
        metavar="DIR",
        help="with --port: where the differing replay is written as a vector file",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"with --port: longest wait for any one response (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("--quiet", action="store_true", help="no timeline, only the summary")
    fleet = parser.add_argument_group("fleet mode (DIR|GLOB|FILE...)")
    fleet.add_argument(
        "--fleet", action="store_true", help="report one file as a fleet (one line per run)"
    )
    fleet.add_argument(
        "--jobs", type=positive_int, metavar="N", help="replay on N local processes (default 1)"
    )
    fleet.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="replay on the workers of a Dask scheduler (tcp://host:port), or 'local' for a "
        "local cluster of --jobs processes (needs doomloop-kit[dask])",
    )
    fleet.add_argument(
        "--outcomes",
        type=Path,
        metavar="FILE",
        help="run id -> success/failure or reward (JSON object or JSON lines)",
    )
    fleet.add_argument(
        "--progress",
        choices=("auto", "bar", "none"),
        default="auto",
        help="a progress bar on stderr (auto: when stderr is a terminal)",
    )


class _Sink(Protocol):
    def add(self, entry: Entry) -> None: ...

    def close(self, log_format: str | None) -> None: ...

    def abort(self) -> None: ...


def replay_log(args: argparse.Namespace, options: ReplayOptions, out: TextIO) -> int:
    """Replay once: timeline to ``out``, the files asked for, the port comparison."""
    from .page import HtmlPage

    config = options.config()
    for warning in options.warnings():
        say(f"option warning: {warning}")
    session = Session(config, options.loop_keys, recording=bool(args.port))
    timeline = Timeline(out, quiet=args.quiet, engine=options.engine)
    timeline.header(str(args.log), config.ladder)
    sinks: list[_Sink] = []
    problems = ProblemLines(sys.stderr, "records left out")
    try:
        if args.json is not None:
            sinks.append(JsonReport(args.json, args.log, config))
        if args.html is not None:
            sinks.append(HtmlPage(args.html, args.log, config))
        reader = LogReader(args.log, args.format)
        for entry in replay(reader, options, session):
            timeline.add(entry)
            for sink in sinks:
                sink.add(entry)
            if isinstance(entry, Skipped):
                problems.add(f"{args.log}:{entry.line}", entry.message)
        for sink in sinks:
            sink.close(reader.format)
    except BaseException:
        for sink in sinks:
            sink.abort()
        raise
    problems.close()
    timeline.footer(reader.format)
    for skipped in timeline.summary.skipped_checks:  # the replay is incomplete
        say(f"doomloop-kit replay: {args.log}:{skipped.line}: {skipped.describe()}")
    # a skipped check or a record left out: the replay is incomplete, never a quiet pass
    status = EXIT_UNUSABLE if timeline.summary.skipped_checks or problems.count else EXIT_OK
    if args.port:
        from .port import compare_with_port  # the harness machinery only when asked for

        return max(status, compare_with_port(args, options, session, out))
    return status


def run_with(args: argparse.Namespace, out: TextIO) -> int:
    """The command with its output to ``out`` (errors to stderr)."""
    from .fleet_run import fleet_wanted, run_fleet
    from .sweep import run_sweep

    try:
        outputs = (("--json", args.json), ("--html", args.html))
        # before the replay: each path writable, no two outputs into one file, none an input
        writing.check_outputs(
            ((option, path) for option, path in outputs if path is not None), replay_inputs(args)
        )
        options = options_from_args(args)
        if fleet_wanted(args):
            return run_fleet(args, options, out)
        args.log = examples.resolve(args.log[0])
        if args.sweep is not None:
            if args.json or args.html or args.port:
                raise OptionError("--sweep prints a table only: it takes no --json, --html, --port")
            return run_sweep(args, options, out)
        return replay_log(args, options, out)
    except (LogError, OptionError, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) else error
        say(f"doomloop-kit replay: {message}")
        return EXIT_UNUSABLE
    except BrokenPipeError:  # stdout closed: the command line ends it (exit 141)
        raise
    except MemoryError:  # a log too large for the memory given: one line, no traceback
        say("doomloop-kit replay: out of memory (MemoryError); the replay is incomplete")
        return EXIT_UNUSABLE
    except OSError as error:  # an output file that cannot be written
        say(f"doomloop-kit replay: {error.filename}: {error.strerror}")
        return EXIT_UNUSABLE


def run(args: argparse.Namespace) -> int:
    """The command, its output escaped for a terminal (:mod:`~doomloop_kit.conformance.terminal`):
    a log's tool names and texts never move the cursor or forge a line."""
    # TerminalText has every method the replay calls on a TextIO (write, flush, isatty)
    return run_with(args, cast(TextIO, TerminalText(sys.stdout)))
