"""Fleet replay rate on the shared real runs: rounds per second per core, --jobs 1 vs 2.

Replays the corpus of ``../shared/realruns`` (or the folder given) twice
with the full command -- ``doomloop-kit replay DIR --json FILE`` with
``--jobs 1``, then ``--jobs 2`` -- and prints each wall time, the rounds
replayed, rounds per second and rounds per second per job. Then, in this
process, times :func:`~doomloop_kit.replay.fleet.replay_file` alone on the
corpus (reading, the reference engine's detection, the summaries; no
process start, no report) on one core, split by format.

When the folder is absent (a checkout without ``../shared``) it says so and
exits 0: there is nothing to measure.

    .venv/bin/python benchmarks/fleet_rate.py [FOLDER] [--engine]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from doomloop_kit.replay.corpus import list_corpus
from doomloop_kit.replay.fleet import FileTask, replay_file
from doomloop_kit.replay.options import ReplayOptions

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "realruns"


def command_run(folder: Path, jobs: int, engine: bool) -> tuple[float, int, int]:
    """Wall time, rounds and runs of one fleet replay through the command."""
    with tempfile.TemporaryDirectory(prefix="doomloop-fleet-bench-") as scratch:
        report = Path(scratch) / "fleet.jsonl"
        kit = [sys.executable, "-m", "doomloop_kit.conformance.cli"]
        command = [*kit, "replay", str(folder), "--jobs", str(jobs), "--json", str(report)]
        command += ["--progress", "none", *(["--engine"] if engine else [])]
        labels = sorted(folder.glob("*/outcomes.json"))
        command += ["--outcomes", str(labels[0])] if labels else []
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        elapsed = time.perf_counter() - started
        summary = json.loads(report.read_text(encoding="utf-8").splitlines()[-1])
    return elapsed, summary["all"]["rounds"], summary["all"]["runs"]


def in_process(folder: Path, engine: bool) -> None:
    options = ReplayOptions(engine=engine)
    seconds: dict[str, float] = defaultdict(float)
    rounds: dict[str, int] = defaultdict(int)
    for file in list_corpus([str(folder)]).files:
        if file.name == "outcomes.json":
            continue  # labels, not a log
        started = time.process_time()
        result = replay_file(FileTask(str(file), options))
        used = time.process_time() - started
        name = result.format or "unreadable"
        seconds[name] += used
        rounds[name] += sum(run.rounds for run in result.runs[0])
    print("in process, one core (CPU time of replay_file):")
    for name in sorted(seconds):
        rate = rounds[name] / seconds[name] if seconds[name] else 0.0
        print(
            f"  {name:<16} {rounds[name]:>7} rounds {seconds[name]:>7.2f} s {rate:>9,.0f} rounds/s"
        )
    total_rounds, total_seconds = sum(rounds.values()), sum(seconds.values())
    print(
        f"  {'all':<16} {total_rounds:>7} rounds {total_seconds:>7.2f} s "
        f"{total_rounds / total_seconds:>9,.0f} rounds/s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--engine", action="store_true", help="replay with --engine")
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"{args.folder}: not found; the shared real runs are needed: nothing measured")
        return 0
    print(f"fleet replay of {args.folder}{' with --engine' if args.engine else ''}")
    for jobs in (1, 2):
        elapsed, rounds, runs = command_run(args.folder, jobs, args.engine)
        print(
            f"--jobs {jobs}: {elapsed:6.2f} s wall for {runs} runs, {rounds} rounds: "
            f"{rounds / elapsed:,.0f} rounds/s, {rounds / elapsed / jobs:,.0f} rounds/s per job"
        )
    in_process(args.folder, args.engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
