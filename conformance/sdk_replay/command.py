"""``doomloop-kit conformance sdk-replay --port CMD FILE...``: the SDK's answers, replayed.

Replays each recording (:mod:`.recordings`) through the harness ``--port``
starts (:func:`.replay.replay`), with a progress bar on a terminal, and
prints per file what was reproduced, what each rule excluded and the first
differences. Exit 0 when every line is reproduced or excluded, 1 on any
difference, 2 for bad arguments or an unreadable file, 3 when the harness
cannot be used (it does not start, speaks another protocol version or breaks
the protocol), as ``conformance run`` does
(:class:`~doomloop_kit.conformance.outcomes.ExitStatus`). ``python -m
doomloop_kit.conformance.sdk_replay`` is the same command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from doomloop_kit.conformance.outcomes import ExitStatus
from doomloop_kit.conformance.protocol import HarnessFault, ProtocolMismatch
from doomloop_kit.vectorset.progress import Progress, add_progress_argument

from .recordings import read_lines
from .replay import replay
from .rules import SDK_0_9_0_RULES

PROG: Final = "doomloop-kit conformance sdk-replay"

SHOWN_DIFFERENCES: Final = 20
"""The differences printed per file (the count says how many there are)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", required=True, metavar="COMMAND", help="shell command starting the harness"
    )
    parser.add_argument(
        "files",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="recorded SDK answers: an observations .jsonl or a corpus .jsonl.gz "
        "(../shared/upstream/sdk-*-0.9.0-*)",
    )
    add_progress_argument(parser)
    parser.epilog = (
        "example:\n"
        f'  {PROG} --port "./my-harness" ../shared/upstream/sdk-engine-0.9.0-corpus.jsonl.gz'
    )


def run(args: argparse.Namespace) -> int:
    different = False
    for path in args.files:
        try:
            lines = read_lines(path)
        except (OSError, ValueError) as error:
            print(f"{PROG}: cannot read {path}: {error}", file=sys.stderr)
            return ExitStatus.USAGE
        try:
            with Progress(len(lines), what=path.name, unit="lines", mode=args.progress) as bar:
                report = replay(args.port, lines, SDK_0_9_0_RULES, bar.advance)
        except (HarnessFault, ProtocolMismatch) as problem:
            print(f"{PROG}: {path.name}: the harness is unusable: {problem}", file=sys.stderr)
            return ExitStatus.ERRORED
        print(f"{path.name}: {report.summary()}")
        for difference in report.differences[:SHOWN_DIFFERENCES]:
            print(f"  {difference}")
        if len(report.differences) > SHOWN_DIFFERENCES:
            print(f"  ... and {len(report.differences) - SHOWN_DIFFERENCES} more")
        different = different or bool(report.differences)
    return ExitStatus.FAILED if different else ExitStatus.PASSED


def main(argv: Sequence[str] | None = None) -> int:
    """The command without the ``doomloop-kit`` entry point (``python -m``)."""
    from doomloop_kit.conformance.cli import KitParser

    parser = KitParser(prog=PROG, description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))
