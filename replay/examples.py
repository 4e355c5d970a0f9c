"""The example logs shipped with the package, and their replays as the docs show them.

``doomloop-kit replay example:<name>`` replays one of them. The docs page
(docs/guide/replay.md) includes the committed output of :func:`render` for
each, and tests/test_replay_examples.py checks that it is current; run
``python -m doomloop_kit.replay.examples docs/guide/replay-examples`` to
write it again.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

PREFIX: Final = "example:"


@dataclass(frozen=True)
class Example:
    name: str
    file: str
    title: str
    arguments: tuple[str, ...] = ()
    """Replay options the docs use for it."""

    @property
    def path(self) -> Path:
        return Path(str(resources.files(__package__).joinpath("logs", self.file)))


EXAMPLES: Final = (
    Example("healthy-run", "healthy-run.chat.json", "A healthy run (chat messages)"),
    Example(
        "repeated-fan-out",
        "repeated-fan-out.responses.json",
        "A repeated fan-out (Responses API items)",
    ),
    Example(
        "polling-loop",
        "polling-loop.chat.jsonl",
        "A polling loop with a nonce and one malformed call (chat messages, JSON lines)",
        ("--loop-key", "job_status=job"),
    ),
    Example("text-loop", "text-loop.doomloop.jsonl", "A text loop (doomloop JSON lines)"),
    Example("resumed-run", "resumed-run.doomloop.jsonl", "A resumed run (doomloop JSON lines)"),
)
SWEPT: Final = ("repeated-fan-out", "observe=2..4,block=3..6")
"""The example and grid whose sweep the docs show."""


def by_name(name: str) -> Example:
    for example in EXAMPLES:
        if example.name == name:
            return example
    names = ", ".join(example.name for example in EXAMPLES)
    raise KeyError(f"no example log {name!r} (there are: {names})")


def resolve(log: Path) -> Path:
    """``example:<name>`` -> the example's file; any other path unchanged."""
    text = str(log)
    return by_name(text[len(PREFIX) :]).path if text.startswith(PREFIX) else log


def render(example: Example, *extra: str) -> str:
    """What ``doomloop-kit replay example:<name> <options>`` prints."""
    from doomloop_kit.conformance.cli import build_parser

    from .cli import run_with

    args = build_parser().parse_args(["replay", PREFIX + example.name, *example.arguments, *extra])
    out = io.StringIO()
    run_with(args, out)
    return out.getvalue().replace(str(example.path), example.file)


def page(example: Example) -> str:
    """The ``--html`` page of the example's replay."""
    with tempfile.TemporaryDirectory(prefix="doomloop-replay-") as folder:
        path = Path(folder) / f"{example.name}.html"
        render(example, "--quiet", "--html", str(path))
        return path.read_text(encoding="utf-8").replace(str(example.path), example.file)


def outputs() -> dict[str, str]:
    """File name -> text of every replay the docs page shows (timelines and pages)."""
    files = {f"{example.name}.txt": render(example) for example in EXAMPLES}
    files.update({f"{example.name}.html": page(example) for example in EXAMPLES})
    name, grid = SWEPT
    files[f"{name}-sweep.txt"] = render(by_name(name), "--sweep", grid)
    return files


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="python -m doomloop_kit.replay.examples",
        description="Write the replays the docs page shows into FOLDER.",
    )
    parser.add_argument("folder", type=Path, metavar="FOLDER")
    folder: Path = parser.parse_args(argv).folder
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in outputs().items():
        (folder / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
