"""Per-call cost of the reference monitor on one W-wide declared fan-out (MON-*).

Prints, for W = 10 ... 20,000, the cost per call of recording every call of a
declared round (the round repeated, so streaks grow and verdicts are built),
with and without the declaration, and the ratio to W = 100. Linear cost
means a flat column: the spec asks for cost(20,000) <= 1.5 x cost(100).

    python benchmarks/fanout.py [--rounds 3] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from doomloop_kit.reference import DoomLoopMonitor, ToolCall, resolve_doom_loop_option

WIDTHS = (10, 100, 1_000, 10_000, 20_000)


def measure(width: int, rounds: int) -> tuple[float, float]:
    """Seconds per call: (record only, declare + record)."""
    config = resolve_doom_loop_option(True).config
    assert config is not None
    monitor = DoomLoopMonitor(config)
    key_material = [{"path": f"/src/file-{index}.py", "line": index} for index in range(width)]
    calls = [ToolCall("read", material) for material in key_material]
    record_time = declare_time = 0.0
    for number in range(rounds):
        started = time.perf_counter()
        monitor.declare_round(number, calls)
        declared = time.perf_counter()
        for material in key_material:
            monitor.record_tool_call("read", material, number)
        recorded = time.perf_counter()
        declare_time += declared - started
        record_time += recorded - declared
    total_calls = width * rounds
    return record_time / total_calls, (record_time + declare_time) / total_calls


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5, help="median of this many runs")
    args = parser.parse_args()
    rows = {}
    for width in WIDTHS:
        samples = [measure(width, args.rounds) for _ in range(args.repeats)]
        rows[width] = (
            statistics.median(s[0] for s in samples),
            statistics.median(s[1] for s in samples),
        )
    base_record, base_total = rows[100]
    header = ("width", "record us/call", "x W=100", "declare+record us/call", "x W=100")
    print(f"{header[0]:>7} {header[1]:>15} {header[2]:>8} {header[3]:>23} {header[4]:>8}")
    for width, (record, total) in rows.items():
        print(
            f"{width:>7} {record * 1e6:>15.2f} {record / base_record:>8.2f}"
            f" {total * 1e6:>23.2f} {total / base_total:>8.2f}"
        )


if __name__ == "__main__":
    main()
