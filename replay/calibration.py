"""The worked calibration of the docs: the shared real runs under the default ladder and a sweep.

``python -m doomloop_kit.replay.calibration REALRUNS FOLDER`` replays the
real runs distributed beside the kit (``../shared/realruns``: tau-bench
airline runs with their rewards, mini-swe-agent SWE-bench runs with
``outcomes.json``) as ``doomloop-kit replay`` does, and writes into FOLDER
what docs/guide/calibration.md shows: the fleet summary (``summary.txt``),
the sweep table (``sweep.txt``) and the fleet page (``fleet.html``). The
outputs hold no time, name the runs' folder ``../shared/realruns`` as the
docs' command lines do, and quote no text of the runs (a repetition verdict's
quoted block is cut out), so the same runs give the same bytes.
tests/test_replay_calibration.py runs the script on fixtures laid out like
the real runs (the test suite reads no real run).

Without REALRUNS (a checkout without ``../shared``) it writes nothing, says
so, and exits with status 1: the committed figures stay as they were.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import tempfile
from pathlib import Path
from typing import Final

GRID: Final = "block=3|4|5|false"
"""The sweep the page shows: where to put block, with observe 2 and stop 6 kept."""
TAU_BENCH: Final = "tau-bench"
MINI_SWE_AGENT: Final = "mini-swe-agent-gemini-3-pro"
REPEATED: Final = re.compile(r'(the response repeats \\?")(?:[^"\\]|\\.)*?(\\?" \d)')
"""The quoted block of a repetition verdict's message (MSG-06), as text or inside JSON."""
SHOWN_AS: Final = "../shared/realruns"
"""The real runs' folder as the figures name it (the docs' command lines use it)."""


def arguments(realruns: Path) -> list[str]:
    """The replay command's arguments for the calibration (after ``replay``)."""
    return [
        str(realruns / TAU_BENCH),
        str(realruns / MINI_SWE_AGENT / "trajs"),
        "--outcomes",
        str(realruns / MINI_SWE_AGENT / "outcomes.json"),
        "--progress",
        "none",
    ]


def _run(argv: list[str]) -> str:
    from doomloop_kit.conformance.cli import build_parser

    from .cli import run_with

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = run_with(build_parser().parse_args(["replay", *argv]), out)
    if status != 0:
        raise RuntimeError(f"the calibration replay failed ({status}): {err.getvalue()}")
    return out.getvalue()


def outputs(realruns: Path) -> dict[str, str]:
    """File name -> text of every figure the calibration page shows (one fleet replay)."""
    with tempfile.TemporaryDirectory(prefix="doomloop-calibration-") as folder:
        page = Path(folder) / "fleet.html"
        printed = _run([*arguments(realruns), "--sweep", GRID, "--html", str(page)])
        fleet_page = page.read_text(encoding="utf-8")
    cut = printed.index("sweep:")
    texts = {"summary.txt": printed[:cut], "sweep.txt": printed[cut:], "fleet.html": fleet_page}
    # the page names each run's file: as the docs' command line does, not this machine's
    # path; and it quotes no text of the runs (a repetition verdict quotes the block)
    return {
        name: REPEATED.sub(r"\1…\2", text.replace(str(realruns), SHOWN_AS))
        for name, text in texts.items()
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="python -m doomloop_kit.replay.calibration",
        description="Regenerate the calibration page's figures from the shared real runs.",
    )
    parser.add_argument("realruns", type=Path, metavar="REALRUNS")
    parser.add_argument("folder", type=Path, metavar="FOLDER")
    parsed = parser.parse_args(argv)
    realruns, folder = parsed.realruns, parsed.folder
    if not (realruns / TAU_BENCH).is_dir() or not (realruns / MINI_SWE_AGENT).is_dir():
        print(
            f"{realruns}: the shared real runs are not there; nothing regenerated "
            f"(the committed figures in {folder} are kept)",
            file=sys.stderr,
        )
        return 1
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in outputs(realruns).items():
        (folder / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
