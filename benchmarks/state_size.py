"""Persisted-state size per member of a wide declared fan-out (STATE-*, MON-*).

For W = 10 ... 20,000 one tool is called W times per declared round:

* *steady*: the same W-wide fan-out repeated (three rounds), the case a
  long-running loop persists;
* *shrunk*: then one round that re-issues only the first W/2 calls of it
  (declared as such), so the round set changes while each surviving call
  keeps its own streak, and ``callStreaks`` has to be written.

The figure is ``len(json.dumps(monitor.get_state()))`` divided by the number
of members of the persisted round set (W, then W/2). It also measures what a
compact form would save (spec/14-open-questions.md, OQ on the persisted
state): ``callStreaks`` replaced by one ``callStreak`` count when every
per-call count is the same and the keys are exactly the round set.

    .venv/bin/python benchmarks/state_size.py [--json]

Deterministic: no clocks, no randomness.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from doomloop_kit.reference import DoomLoopMonitor, ToolCall, resolve_doom_loop_option

WIDTHS = (10, 100, 1_000, 10_000, 20_000)
STEADY_ROUNDS = 3


def _monitor() -> DoomLoopMonitor:
    config = resolve_doom_loop_option(True).config
    assert config is not None
    return DoomLoopMonitor(config)


def _round(monitor: DoomLoopMonitor, number: int, keys: list[dict[str, Any]]) -> None:
    monitor.declare_round(number, [ToolCall("read", key) for key in keys])
    for key in keys:
        monitor.record_tool_call("read", key, number, allow_block=False)


def compact(blob: dict[str, Any]) -> dict[str, Any]:
    """The proposed form: a uniform ``callStreaks`` becomes one ``callStreak`` count."""
    tools = {}
    for name, entry in blob["tools"].items():
        entry = dict(entry)
        counts = entry.get("callStreaks")
        members = entry.get("roundFingerprints", [entry["fingerprint"]])
        if (
            isinstance(counts, dict)
            and len(set(counts.values())) == 1
            and sorted(counts) == sorted(members)
        ):
            del entry["callStreaks"]
            entry["callStreak"] = next(iter(counts.values()))
        tools[name] = entry
    return {**blob, "tools": tools}


def measure(width: int) -> dict[str, Any]:
    keys = [{"path": f"/src/file-{index}.py"} for index in range(width)]
    monitor = _monitor()
    for number in range(STEADY_ROUNDS):
        _round(monitor, number, keys)
    steady: Any = monitor.get_state()
    half = keys[: max(1, width // 2)]
    _round(monitor, STEADY_ROUNDS, half)
    shrunk: Any = monitor.get_state()
    steady_bytes = len(json.dumps(steady))
    shrunk_bytes = len(json.dumps(shrunk))
    compact_bytes = len(json.dumps(compact(shrunk)))
    entry = shrunk["tools"]["read"]
    return {
        "width": width,
        "steadyBytes": steady_bytes,
        "steadyBytesPerMember": round(steady_bytes / width, 2),
        "steadyMembers": sorted(steady["tools"]["read"]),
        "shrunkTo": len(half),
        "shrunkBytes": shrunk_bytes,
        "shrunkBytesPerMember": round(shrunk_bytes / len(half), 2),
        "shrunkMembers": sorted(entry),
        "compactShrunkBytes": compact_bytes,
        "compactShrunkBytesPerMember": round(compact_bytes / len(half), 2),
        "compactSaving": round(1 - compact_bytes / shrunk_bytes, 4),
    }


def run() -> list[dict[str, Any]]:
    return [measure(width) for width in WIDTHS]


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'W':>7} {'steady B/member':>16} {'shrunk to':>10} {'shrunk B/member':>16}"
        f" {'compact B/member':>17} {'saving':>7}"
    )
    for row in rows:
        print(
            f"{row['width']:>7} {row['steadyBytesPerMember']:>16.1f} {row['shrunkTo']:>10}"
            f" {row['shrunkBytesPerMember']:>16.1f} {row['compactShrunkBytesPerMember']:>17.1f}"
            f" {row['compactSaving']:>7.1%}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = run()
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
