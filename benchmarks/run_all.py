"""Every benchmark of the kit in one sitting: prints a table, writes benchmarks/results.json.

    .venv/bin/python benchmarks/run_all.py [--skip-build] [--quick] [--no-write]

One process per implementation and measurement, one after the other (never
two at once, so they do not compete for the cores):

1. per-call cost of ``recordToolCall`` in a W-wide declared fan-out, W = 10,
   100, 1,000, 10,000, 20,000, from each implementation's own benchmark:
   ``benchmarks/fanout.py`` (Python reference), ``npm run bench`` (TypeScript
   port, ``ports/typescript/bench/fanout.ts``) and ``go test -bench FanOut``
   (Go port); their text output is parsed (none has a machine-readable mode).
   The three scenarios differ in detail (each port's benchmark is its own),
   so compare the shape of a column (flat = linear) more than the columns;
2. the wall time of one full conformance run per in-tree port
   (``doomloop-kit conformance run --port ...``), with its pass count;
3. the time of one vector regeneration, in memory (``vectors regenerate --check``);
4. the persisted-state size per fan-out member (``benchmarks/state_size.py``).

The ports are built first when their outputs are missing (``--skip-build``
never builds). ``results.json`` holds no timestamps; the machine is described
by nproc and the Python, Node and Go versions only. The docs page
``docs/benchmarks.md`` shows the committed ``results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
VENV_BIN = REPO / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
KIT = str(VENV_BIN / "doomloop-kit")
TS = REPO / "ports" / "typescript"
GO = REPO / "ports" / "go"
WIDTHS = (10, 100, 1_000, 10_000, 20_000)

sys.path.insert(0, str(HERE))
import state_size  # noqa: E402

PORTS = {
    "python-reference": ".venv/bin/python -m doomloop_kit.conformance.harnesses.python_reference",
    "typescript": "node ports/typescript/dist/harness.js",
    "go": "ports/go/bin/doomloop-harness",
}


class BenchError(RuntimeError):
    """A benchmark that could not run or whose output could not be read."""


def _run(command: list[str], cwd: Path = REPO, timeout: float = 1800) -> tuple[str, float]:
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError as error:
        raise BenchError(f"{command[0]}: not found") from error
    except subprocess.TimeoutExpired as error:
        raise BenchError(f"{' '.join(command)}: no result within {timeout:.0f}s") from error
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise BenchError(f"{' '.join(command)} exited {done.returncode}: " + " | ".join(tail))
    return done.stdout, elapsed


def _version(command: list[str]) -> str | None:
    try:
        return subprocess.run(command, capture_output=True, text=True, check=False).stdout.strip()
    except FileNotFoundError:
        return None


def machine() -> dict[str, Any]:
    go = _version(["go", "env", "GOVERSION"])
    return {
        "nproc": os.cpu_count(),
        "python": sys.version.split()[0],
        "node": (_version(["node", "--version"]) or "").lstrip("v") or None,
        "go": (go or "").removeprefix("go") or None,
    }


def build_ports() -> list[str]:
    """Build what is missing; return what was built."""
    built = []
    if (
        not (TS / "dist" / "harness.js").exists()
        or not (TS / "dist" / "bench" / "fanout.js").exists()
    ):
        _run(["npm", "ci", "--prefix", str(TS)])
        _run(["npm", "run", "build", "--prefix", str(TS)])
        built.append("typescript")
    if not (GO / "bin" / "doomloop-harness").exists():
        _run(["go", "build", "-o", "bin/doomloop-harness", "./cmd/doomloop-harness"], cwd=GO)
        built.append("go")
    return built


# -- per-call cost ------------------------------------------------------------------

_ROW = re.compile(r"^\s*(\d+)\s+([\d.]+)\s")


def fanout_python(quick: bool) -> dict[str, Any]:
    repeats = "1" if quick else "3"
    out, seconds = _run([PYTHON, "benchmarks/fanout.py", "--rounds", "3", "--repeats", repeats])
    rows = {}
    for line in out.splitlines():
        match = _ROW.match(line)
        if match and int(match.group(1)) in WIDTHS:
            rows[int(match.group(1))] = float(match.group(2)) * 1000  # us -> ns
    return _fanout("benchmarks/fanout.py", rows, seconds, "median of runs, record only, wall")


def fanout_typescript() -> dict[str, Any]:
    out, seconds = _run(["node", "ports/typescript/dist/bench/fanout.js"])
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        numeric = len(fields) == 5 and all(f.replace(".", "").isdigit() for f in fields)
        if numeric and int(fields[0]) in WIDTHS:
            rows[int(fields[0])] = float(fields[2])
    return _fanout("npm run bench (ports/typescript)", rows, seconds, "median of runs, CPU time")


_GO_ROW = re.compile(r"^BenchmarkFanOut/W=(\d+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")


def fanout_go(quick: bool) -> dict[str, Any]:
    command = ["go", "test", "-bench", "FanOut", "-run", "^$", "-count", "1" if quick else "3"]
    if quick:
        command += ["-benchtime", "20000x"]
    out, seconds = _run(command, cwd=GO)
    samples: dict[int, list[float]] = {}
    for line in out.splitlines():
        match = _GO_ROW.match(line)
        if match:
            samples.setdefault(int(match.group(1)), []).append(float(match.group(2)))
    rows = {width: statistics.median(values) for width, values in samples.items()}
    return _fanout(
        "go test -bench FanOut -count 3 (ports/go)", rows, seconds, "median of 3 runs, ns/op, wall"
    )


def _fanout(source: str, rows: dict[int, float], seconds: float, note: str) -> dict[str, Any]:
    missing = [w for w in WIDTHS if w not in rows]
    if missing:
        raise BenchError(f"{source}: no figure for W={missing} in its output")
    base = rows[100]
    return {
        "source": source,
        "note": note,
        "nsPerCall": {str(w): round(rows[w], 1) for w in WIDTHS},
        "ratioTo100": {str(w): round(rows[w] / base, 2) for w in WIDTHS},
        "benchmarkSeconds": round(seconds, 1),
    }


# -- conformance, regeneration ------------------------------------------------------


def conformance(name: str, command: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        started = time.perf_counter()
        done = subprocess.run(
            [
                KIT,
                "conformance",
                "run",
                "--port",
                command,
                "--report-json",
                str(report),
                "--progress",
                "lines",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        seconds = time.perf_counter() - started
        summary: dict[str, Any] = {}
        if report.exists():  # JSON lines: a header, one line per vector, a footer
            statuses: dict[str, int] = {}
            for line in report.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record.get("type") == "vector":
                    statuses[record["status"]] = statuses.get(record["status"], 0) + 1
            summary = {
                "vectors": sum(statuses.values()),
                "statuses": dict(sorted(statuses.items())),
            }
    return {
        "command": command,
        "exitStatus": done.returncode,
        "wallSeconds": round(seconds, 1),
        **summary,
    }


def regenerate() -> dict[str, Any]:
    _, seconds = _run([KIT, "vectors", "regenerate", "--check"])
    return {"command": "doomloop-kit vectors regenerate --check", "wallSeconds": round(seconds, 1)}


# -- output ---------------------------------------------------------------------------


def print_tables(results: dict[str, Any]) -> None:
    print(f"machine: {results['machine']}")
    print()
    print("recordToolCall ns/call in a W-wide declared fan-out (x = ratio to W=100)")
    print(f"{'W':>7} " + " ".join(f"{name:>22}" for name in results["fanout"]))
    for width in WIDTHS:
        cells = []
        for figures in results["fanout"].values():
            if "error" in figures:
                cells.append(f"{'error':>22}")
            else:
                ns, x = figures["nsPerCall"][str(width)], figures["ratioTo100"][str(width)]
                cells.append(f"{ns:>14,.0f} (x{x:.2f})")
        print(f"{width:>7} " + " ".join(cells))
    print()
    print("one full conformance run")
    for name, run in results["conformance"].items():
        counts = ", ".join(f"{k} {n}" for k, n in run.get("statuses", {}).items())
        print(
            f"  {name:18} {run.get('wallSeconds', '-'):>7} s"
            f"  exit {run.get('exitStatus')}  {counts}"
        )
    print()
    regen = results["regenerate"]
    print(f"vector regeneration (in memory): {regen.get('wallSeconds', 'error')} s")
    print()
    print("persisted state per member of the round set")
    state_size.print_table(results["stateSize"])


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--skip-build", action="store_true", help="never build the ports")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    parser.add_argument("--no-write", action="store_true", help="do not write results.json")
    args = parser.parse_args()

    results: dict[str, Any] = {"machine": machine()}
    if not args.skip_build:
        build_ports()
    fanout: dict[str, Any] = {}
    measures: tuple[tuple[str, Callable[[], dict[str, Any]]], ...] = (
        ("python-reference", lambda: fanout_python(args.quick)),
        ("typescript", fanout_typescript),
        ("go", lambda: fanout_go(args.quick)),
    )
    for name, measure in measures:
        try:
            fanout[name] = measure()
        except BenchError as error:
            fanout[name] = {"error": str(error)}
        print(f"fan-out {name}: done", file=sys.stderr)
    results["fanout"] = fanout
    results["conformance"] = {}
    for name, command in PORTS.items():
        try:
            results["conformance"][name] = conformance(name, command)
        except (OSError, subprocess.TimeoutExpired) as error:
            results["conformance"][name] = {"command": command, "error": str(error)}
        print(f"conformance {name}: done", file=sys.stderr)
    try:
        results["regenerate"] = regenerate()
    except BenchError as error:
        results["regenerate"] = {"error": str(error)}
    results["stateSize"] = state_size.run()
    print_tables(results)
    if not args.no_write:
        text = json.dumps(results, indent=1) + "\n"
        target = HERE / "results.json"
        fd, name = tempfile.mkstemp(prefix=".results.", dir=HERE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(name, 0o644)
        os.replace(name, target)
    failed = [k for k, v in results["fanout"].items() if "error" in v]
    failed += [k for k, v in results["conformance"].items() if "error" in v]
    return 1 if failed or "error" in results["regenerate"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
