"""Draw every generated engine family and measure it.

    python benchmarks/engine_families.py [--family NAME] [--count N]

Draws each family of ``generators/engine_families.py`` with the settings
the regeneration uses for monitor families (fixed seed, generate phase only,
the first ``count`` distinct scenarios), runs each scenario on the reference
engine, and prints per family: the scenarios drawn, the draw and run times,
the bytes of a vector file holding scenario and transcript, the largest
scenario (dispatches), the shapes, the run ends and the applied actions
reached. Writes nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import Counter
from typing import Any

from doomloop_kit.engine import run_scenario
from doomloop_kit.generators import engine_families, regenerate
from doomloop_kit.vectorset.files import dumps

ACTIONS = ("observe", "steer", "escalate", "block", "stop")


def draw(name: str, count: int) -> list[tuple[str, dict[str, Any]]]:
    """The first ``count`` distinct draws of a family, with the regeneration's own drawing."""
    family = engine_families.ENGINE_FAMILIES[name]
    return regenerate.draw_pairs(family.strategy(), count, family.seed, _content_key)


def _content_key(scenario: Any) -> str:
    return hashlib.sha256(json.dumps(scenario, sort_keys=True).encode()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--family", choices=sorted(engine_families.ENGINE_FAMILIES))
    parser.add_argument("--count", type=int)
    args = parser.parse_args()
    names = [args.family] if args.family else list(engine_families.ENGINE_FAMILIES)
    total_time = 0.0
    total_bytes = 0
    for name in names:
        count = args.count or engine_families.ENGINE_FAMILIES[name].count
        started = time.perf_counter()
        pairs = draw(name, count)
        drawn_at = time.perf_counter()
        vectors = []
        shapes: Counter[str] = Counter()
        ends: Counter[str] = Counter()
        actions: Counter[str] = Counter()
        largest = 0
        for shape, scenario in pairs:
            transcript: dict[str, Any] = run_scenario(scenario).to_json()
            vectors.append({"id": shape, "scenario": scenario, "expect": {"result": transcript}})
            shapes[shape] += 1
            largest = max(largest, sum(len(run["dispatches"]) for run in transcript["runs"]))
            reached = set()
            for run in transcript["runs"]:
                ends[f"{run['end']['status']}/{run['end']['reason']}"] += 1
                reached |= {e.get("appliedAction") for e in run["events"]}
            actions.update(a for a in reached if a in ACTIONS)
        ran_at = time.perf_counter()
        size = len(dumps({"vectors": vectors}))
        total_time += ran_at - started
        total_bytes += size
        print(
            f"{name:28} {len(pairs):4} scenarios  draw {drawn_at - started:5.2f}s"
            f"  run {ran_at - drawn_at:5.2f}s  {size / 1024:7.1f} KiB  max {largest} dispatches"
        )
        print("   shapes:  " + ", ".join(f"{s}={n}" for s, n in shapes.most_common()))
        print("   ends:    " + ", ".join(f"{s}={n}" for s, n in ends.most_common()))
        shares = " ".join(f"{a}={actions[a] / max(1, len(pairs)):.0%}" for a in ACTIONS)
        print(f"   actions: {shares}")
    print(f"all engine families: {total_time:.1f}s, {total_bytes / 1024:.1f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
