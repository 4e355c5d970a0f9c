"""Speed of ``doomloop-kit conformance run`` as a user sees it.

    python benchmarks/runner_throughput.py [--port CMD] [--vector ID] [--repeat N]

Runs the command in a fresh process, the way a user or CI does, and prints
the best of REPEAT passes (after one untimed pass that fills the validation
cache, doomloop_kit.vectorset.cache) for:

* a full run of the vector set against the harness (default: the in-tree Go
  harness) -- wall time;
* a one-vector run (``-k ID``) -- wall time;
* the runner's share of the full run's wall time: the CPU time of the runner
  process itself (interpreter start-up, loading, scheduling, judging; not the
  harness) divided by the wall time.

Deterministic input; the numbers depend on the machine, so nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GO_HARNESS = str(REPO / "ports" / "go" / "bin" / "doomloop-harness")

# Runs the CLI and appends the process's own CPU time (children excluded) to a file.
_TIMED_CLI = """
import json, resource, sys
from doomloop_kit.conformance.cli import main
status = main(sys.argv[2:])
usage = resource.getrusage(resource.RUSAGE_SELF)
with open(sys.argv[1], "a") as out:
    out.write(json.dumps({"cpu": usage.ru_utime + usage.ru_stime, "status": status}) + "\\n")
sys.exit(status)
"""


def timed_run(arguments: list[str], cache: str) -> tuple[float, float]:
    """(wall seconds, runner CPU seconds) of one ``conformance run``; it must pass."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as sink:
        started = time.perf_counter()
        completed = subprocess.run(
            [sys.executable, "-c", _TIMED_CLI, sink.name, "conformance", "run", *arguments],
            stdout=subprocess.DEVNULL,
            env={**os.environ, "DOOMLOOP_KIT_CACHE": cache},
            check=False,
        )
        wall = time.perf_counter() - started
        record = json.loads(sink.read().splitlines()[-1])
    if completed.returncode != 0:
        raise SystemExit(f"the run failed (exit {completed.returncode}): {arguments}")
    return wall, float(record["cpu"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--port", default=GO_HARNESS, help="harness command (default: Go)")
    parser.add_argument("--vector", default="facts/fanout-repeat-three", help="the one vector")
    parser.add_argument("--repeat", type=int, default=3, help="passes; the best is reported")
    options = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="doomloop-bench-cache-") as cache:
        full_args = ["--port", options.port, "--progress", "lines"]
        one_args = [*full_args, "-k", options.vector]
        timed_run(full_args, cache)  # fills the validation cache, as any earlier run would
        full = min(timed_run(full_args, cache) for _ in range(options.repeat))
        one = min(timed_run(one_args, cache) for _ in range(options.repeat))

    print(f"harness: {options.port}")
    print(f"full run:       {full[0]:.2f} s wall (best of {options.repeat})")
    print(f"one-vector run: {one[0]:.2f} s wall ({options.vector})")
    print(f"runner share:   {full[1]:.2f} s CPU = {100 * full[1] / full[0]:.0f}% of the full run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
