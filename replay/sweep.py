"""``--sweep``: the same log under a grid of ladders (LAD-01).

A grid names rungs and the thresholds to try, ``observe=2..4,block=3..6``:
``a..b`` a range, ``a|b|false`` a list, ``a`` one value. Rungs not named keep
the option's thresholds. For each ladder of the grid (in the order the rungs
are named, the last varying fastest) the log is read again and replayed, and
one row gives the round where each rung first fired and how many calls would
not have been executed (block or stop). Memory does not grow with the grid.
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TextIO

from doomloop_kit.reference import RUNGS
from doomloop_kit.reference.messages import warning_data

from .driver import replay
from .options import OptionError, ReplayOptions
from .readers import LogReader
from .summary import Summary

MAX_LADDERS = 1000


@dataclass(frozen=True)
class SweepRow:
    ladder: Mapping[str, int | bool]
    """The grid's rungs for this row (the rest as in the option)."""
    effective: Mapping[str, object]
    """All five rungs as resolved."""
    summary: Summary
    dead: tuple[tuple[str, str], ...]


def parse_values(rung: str, text: str) -> list[range | int | bool]:
    """A rung's values as written: ranges, thresholds of 1 or more (CFG-10; a smaller
    one would run the rung's default, CFG-11, under a row labelled otherwise) or
    ``false``. Ranges stay ranges: a grid is counted before it is built."""
    values: list[range | int | bool] = []
    for part in text.split("|"):
        low, sep, high = part.partition("..")
        try:
            if part == "false":
                values.append(False)
            elif sep:
                start, end = int(low), int(high)
                if end < start:
                    raise OptionError(f"--sweep {rung}={text}: empty range {part}")
                values.append(range(start, end + 1))
            else:
                values.append(int(part))
        except ValueError:
            raise OptionError(
                f"--sweep {rung}={text}: expected N, A..B, false, or values joined by |"
            ) from None
    lowest = [v.start if isinstance(v, range) else v for v in values if v is not False]
    below = [value for value in lowest if value < 1]
    if below:
        raise OptionError(
            f"--sweep {rung}={text}: a threshold is a whole number of 1 or more, or false "
            f"(CFG-10); {below[0]} would run the default threshold instead"
        )
    return values


def parse_grid(text: str) -> dict[str, list[int | bool]]:
    """``observe=2..4,block=3..6`` -> {"observe": [2, 3, 4], "block": [3, 4, 5, 6]}; a grid
    of more than :data:`MAX_LADDERS` ladders is refused before any list is built."""
    written: dict[str, list[range | int | bool]] = {}
    for item in text.split(","):
        rung, sep, given = item.strip().partition("=")
        if not sep or rung not in RUNGS:
            raise OptionError(
                f"--sweep {item!r}: expected RUNG=VALUES with RUNG one of {', '.join(RUNGS)}"
            )
        if rung in written:
            raise OptionError(f"--sweep names {rung} twice")
        written[rung] = parse_values(rung, given)
    size = math.prod(
        sum(len(v) if isinstance(v, range) else 1 for v in values) for values in written.values()
    )
    if size > MAX_LADDERS:
        raise OptionError(f"--sweep: {size} ladders is more than {MAX_LADDERS}")
    return {
        rung: [v for part in values for v in (part if isinstance(part, range) else (part,))]
        for rung, values in written.items()
    }


def ladders(grid: Mapping[str, list[int | bool]]) -> Iterator[dict[str, int | bool]]:
    for combination in itertools.product(*grid.values()):
        yield dict(zip(grid, combination, strict=True))


def dead_rungs(options: ReplayOptions) -> list[tuple[str, str]]:
    """(rung, the stronger rung that wins first) for each rung the ladder leaves dead
    (LAD-03: the strongest crossed rung is applied; CFG-36 warns of it)."""
    found = []
    for message in options.warnings():
        data = warning_data(message)
        if data.get("code") == "dead-rung":
            found.append((data["rung"], data["shadowedBy"]))
    return found


def sweep(
    reader_of: type[LogReader], args: argparse.Namespace, options: ReplayOptions, grid_text: str
) -> Iterator[SweepRow]:
    """One row per ladder of the grid, replaying the log each time."""
    for ladder in ladders(parse_grid(grid_text)):
        ladder_options = options.with_ladder(ladder)
        config = ladder_options.config()
        summary = Summary()
        for entry in replay(reader_of(args.log, args.format), ladder_options):
            summary.add(entry)
        dead = tuple(dead_rungs(ladder_options))
        yield SweepRow(ladder, config.ladder.to_json(), summary, dead)


def run_sweep(args: argparse.Namespace, options: ReplayOptions, out: TextIO) -> int:
    grid = parse_grid(args.sweep)
    names = list(grid)
    shown = [  # rungs enabled in at least one ladder of the grid
        rung
        for rung in RUNGS
        if any(
            options.with_ladder(ladder).config().ladder.threshold(rung) is not False
            for ladder in ladders(grid)
        )
    ]
    header = [*names, *(f"first {rung}" for rung in shown), "blocked"]
    widths = [max(len(h), 5) for h in header]
    print(
        f"sweep of {args.log}: {len(list(ladders(grid)))} ladders; "
        "first = round where the rung first fired (nt: text after round n)",
        file=out,
    )
    print("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)), file=out)
    status = 0
    for row in sweep(LogReader, args, options, args.sweep):
        firsts = dict(row.summary.firsts())
        cells = [str(row.ladder[name]).lower() for name in names]
        for rung in shown:
            enabled = row.effective[rung] is not False
            cells.append(firsts[rung] or ("-" if enabled else "off"))
        cells.append(str(row.summary.blocked))
        line = "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))
        dead = ", ".join(f"{rung} ({by} wins)" for rung, by in row.dead)
        skipped = row.summary.skipped_checks  # a row the engine could not check whole
        notes = (f"  (dead rung: {dead})" if dead else "") + (
            f"  ({len(skipped)} check(s) skipped: incomplete)" if skipped else ""
        )
        print(line + notes, file=out)
        status = 2 if skipped else status
    return status
