"""``doomloop-kit constraints``: the pinned versions the kit was tested with.

Prints the pip constraints file the kit ships (``constraints.txt`` of its
release), so that an installed kit can be pinned, or another environment made
like it: ``doomloop-kit constraints > constraints.txt`` then ``pip install -c
constraints.txt ...``. Regenerating the vectors byte for byte needs its
Hypothesis release (``vectors regenerate`` says so when it differs).
"""

from __future__ import annotations

import argparse
import sys

from doomloop_kit.vectorset import resources


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path", action="store_true", help="print where the file is instead of what it holds"
    )


def run(args: argparse.Namespace) -> int:
    try:
        path = resources.constraints_file()
    except resources.MissingResource as error:
        print(f"doomloop-kit constraints: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(f"{path}\n" if args.path else path.read_text(encoding="utf-8"))
    return 0
