"""Time a full in-memory regeneration and report what the generated set covers.

    python benchmarks/regenerate_time.py [--root vectors]

Prints the build time, the total bytes, and per generated family the number
of transcripts and the share that reach each ladder action (a verdict or a
resolveLadderAction result with that action); then the time the engine files
take alone (curated, and each generated engine family). Reads nothing but
the code; it writes nothing.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from doomloop_kit.generators import regenerate
from doomloop_kit.generators.curated.engine.vectors import engine_files

ACTIONS = ("observe", "steer", "escalate", "block", "stop")


def actions_of(vector: dict) -> set[str]:  # type: ignore[type-arg]
    found: set[str] = set()
    for step in vector["steps"]:
        result = step["expect"].get("result")
        if isinstance(result, dict):
            verdict = result.get("verdict", result)
            if isinstance(verdict, dict) and verdict.get("action") in ACTIONS:
                found.add(verdict["action"])
        elif step["op"] == "resolveLadderAction" and result in ACTIONS:
            found.add(result)
    return found


def main() -> int:
    argparse.ArgumentParser(allow_abbrev=False, description=__doc__).parse_args()
    started = time.perf_counter()
    files = regenerate.build_all()
    elapsed = time.perf_counter() - started
    total = sum(len(data) for data in files.values())
    print(f"built {len(files)} files, {total} bytes, in {elapsed:.1f}s")
    overall: Counter[str] = Counter()
    count = 0
    for path, data in files.items():
        if not path.startswith("generated/") or path.startswith("generated/engine-"):
            continue
        vectors = json.loads(data)["vectors"]
        family: Counter[str] = Counter()
        for vector in vectors:
            family.update(actions_of(vector))
        overall += family
        count += len(vectors)
        shares = " ".join(f"{a}={family[a] / len(vectors):.0%}" for a in ACTIONS)
        print(f"  {path:32} {len(vectors):4}  {shares}")
    shares = " ".join(f"{a}={overall[a] / count:.0%}" for a in ACTIONS)
    print(f"  {'all generated':32} {count:4}  {shares}")
    engine_times()
    return 0


def engine_times() -> None:
    """The engine files alone: the reference engine runs every scenario once."""
    started = time.perf_counter()
    curated = engine_files()
    elapsed = time.perf_counter() - started
    count = sum(len(f.vectors) for f in curated)
    print(f"engine: curated {len(curated)} files, {count} vectors, in {elapsed:.2f}s")
    for family in regenerate.engine_families().values():
        started = time.perf_counter()
        built = regenerate.generated_engine_file(family, family.count)
        elapsed = time.perf_counter() - started
        print(f"  {built.family:32} {len(built.vectors):4}  in {elapsed:.2f}s")


if __name__ == "__main__":
    raise SystemExit(main())
