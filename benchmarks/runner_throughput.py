"""Throughput of the conformance runner against the in-tree Python harness.

    python benchmarks/runner_throughput.py [--vectors DIR] [--repeat N] [--port CMD]

Loads the vector set once (timed apart: it is the format module's parsing and
schema check, not the runner), then runs every vector through the harness
REPEAT times and prints, for the best pass: vectors per second, the runner
process's own CPU time as a share of the wall time (the rest is the harness
working and the pipes), and the harness's CPU time. Deterministic input; the
numbers are machine-dependent, so nothing is asserted.
"""

from __future__ import annotations

import argparse
import io
import resource
import shlex
import sys
import time
from pathlib import Path

from doomloop_kit.conformance import report, runner

REFERENCE = f"{shlex.quote(sys.executable)} -m doomloop_kit.conformance.harnesses.python_reference"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=None, help="vector root (default vectors/)")
    parser.add_argument("--repeat", type=int, default=3, help="passes; the best is reported")
    parser.add_argument("--port", default=REFERENCE, help="harness command")
    options = parser.parse_args(argv)

    started = time.perf_counter()
    vector_set = runner.load_vectors([], options.vectors)
    load_seconds = time.perf_counter() - started
    selected = vector_set.entries

    run_parser = argparse.ArgumentParser()
    runner.add_arguments(run_parser)
    args = run_parser.parse_args(["--port", options.port])

    best: tuple[float, float, float] | None = None
    for _ in range(options.repeat):
        state = runner.Run(args, report.Console(io.StringIO(), "lines", verbose=False))
        state.start_harness()
        children_before = _children_cpu()
        cpu_before = time.process_time()
        wall_before = time.perf_counter()
        statuses = [outcome.status for outcome in state.outcomes(selected)]
        wall = time.perf_counter() - wall_before
        cpu = time.process_time() - cpu_before
        state.stop_harness(polite=True)
        harness_cpu = _children_cpu() - children_before
        assert statuses.count("passed") == len(selected), "the reference must pass every vector"
        if best is None or wall < best[0]:
            best = (wall, cpu, harness_cpu)

    assert best is not None
    wall, cpu, harness_cpu = best
    print(f"vectors: {len(selected)} ({vector_set.description.get('manifest')})")
    print(
        f"loading the vector files: {load_seconds:.2f} s (format.load_vector_file, not timed below)"
    )
    print(
        f"best of {options.repeat} passes: {wall:.2f} s wall = {len(selected) / wall:.0f} vectors/s"
    )
    print(f"runner CPU (own process): {cpu:.2f} s = {100 * cpu / wall:.0f}% of wall time")
    print(
        f"harness CPU (child processes): {harness_cpu:.2f} s = "
        f"{100 * harness_cpu / wall:.0f}% of wall time"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
