"""Interrupt campaigns: fleet replays ended by SIGINT or SIGTERM at random (seeded) moments.

Runs the harness of tests/interrupt_harness.py on a generated corpus: ``--count`` runs of
``--jobs 2`` (and, with ``--dask N``, N runs of ``--dask local --jobs 2``), each signalled
at a random moment in the window, and prints how they ended: interrupted cleanly (one
line on stderr, exit 130 or 143, no process or thread left behind, no report), finished
before the signal (exit 0, a report, nothing on stderr), or not clean (each listed). The
test suite runs 100 of the first kind; this script runs as many as asked.

    .venv/bin/python benchmarks/fleet_interrupts.py [--count 1000] [--dask 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from interrupt_harness import interrupt_runs, problems


def corpus(folder: Path, files: int) -> Path:
    """``files`` small chat logs, each a loop of six identical calls."""
    folder.mkdir()
    for index in range(files):
        lines: list[dict[str, Any]] = [{"role": "user", "content": "Is the flight on time?"}]
        for n in range(6):
            call: dict[str, Any] = {"id": f"c{n}", "type": "function"}
            call["function"] = {"name": "flight_status", "arguments": '{"flight": "LX8"}'}
            lines.append({"role": "assistant", "content": None, "tool_calls": [call]})
            lines.append({"role": "tool", "tool_call_id": f"c{n}", "content": "same"})
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (folder / f"run{index}.jsonl").write_text(text, encoding="utf-8")
    return folder


def campaign(
    name: str, arguments: list[str], files: int, count: int, seed: int, window: tuple[float, float]
) -> bool:
    with tempfile.TemporaryDirectory(prefix="doomloop-interrupts-") as scratch:
        root = Path(scratch)
        runs = corpus(root / "runs", files)
        (root / "out").mkdir()
        started = time.perf_counter()
        results, stderr = interrupt_runs(
            runs,
            root / "out",
            arguments,
            interrupts=count,
            seed=seed,
            window=window,
            most=count * 2,
        )
        elapsed = time.perf_counter() - started
    interrupted = [r for r in results if r["status"] in (130, 143)]
    finished = [r for r in results if r["status"] == 0]
    bad = [(r["run"], problems(r)) for r in results if problems(r)]
    print(
        f"{name}: {len(results)} runs in {elapsed:.1f} s: {len(interrupted)} interrupted "
        f"({sum(r['signal'] == 'SIGINT' for r in interrupted)} SIGINT, "
        f"{sum(r['signal'] == 'SIGTERM' for r in interrupted)} SIGTERM), "
        f"{len(finished)} finished before the signal, {len(bad)} not clean"
    )
    for run, found in bad:
        print(f"  run {run}: {'; '.join(found)}")
    if stderr:
        print(f"  the harness's own stderr: {stderr!r}")
    return not bad and not stderr


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=300, help="interrupts of --jobs 2")
    parser.add_argument(
        "--dask", type=int, default=0, metavar="N", help="interrupts of --dask local"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    clean = campaign("--jobs 2", ["--jobs", "2"], 300, args.count, args.seed, (0.0, 0.12))
    if args.dask:
        arguments = ["--dask", "local", "--jobs", "2"]
        clean &= campaign("--dask local", arguments, 1500, args.dask, args.seed, (0.5, 10.0))
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
