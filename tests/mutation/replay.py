"""Fast replay of every committed vector through the reference, stopping at the first mismatch.

The "test" of a mutant in the mutation job (``tests/mutation/run.py``): it is
the committed vectors alone, not the unit tests. Run on its own it replays
everything once and prints the time it took::

    .venv/bin/python tests/mutation/replay.py        # exit 0: every step matches
                                                      # exit 1: the first mismatch, named

It is the replay of ``tests/test_vector_replay.py`` made cheap: files are
read once without the schema check (the test suite checks the schema), the
expected value of each step is pre-serialised, and an actual result is first
compared as sorted JSON text; only when the texts differ does the full
comparison rule (``format.compare``: numbers as doubles, strings by UTF-16
code units) decide. Equal texts imply equal values under that rule.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "vectors"

Prepared = list[
    tuple[str, Any, Any, list[tuple[str, dict[str, Any], dict[str, Any], str]], frozenset[str]]
]
"""Per vector: (id, option, initialState, [(op, request, expect, expect text)], features)."""

_ABSENT = object()


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, allow_nan=True)


def load(root: Path = VECTORS) -> Prepared:
    """Every vector the manifest lists, in manifest order (curated files first)."""
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    prepared: Prepared = []
    for entry in manifest["files"]:
        data = json.loads((root / entry["path"]).read_text(encoding="utf-8"))
        for vector in data["vectors"]:
            steps = []
            engine = {"op": "runScenario", "scenario": vector.get("scenario")}  # an engine vector
            for step in vector.get("steps") or [{**engine, "expect": vector.get("expect")}]:
                request = {k: v for k, v in step.items() if k != "expect"}
                steps.append((step["op"], request, step["expect"], _text(step["expect"])))
            prepared.append(
                (
                    vector["id"],
                    vector.get("option", _ABSENT),
                    vector.get("initialState", _ABSENT),
                    steps,
                    frozenset(vector["features"]),
                )
            )
    return prepared


def first_mismatch(prepared: Prepared) -> str | None:
    """Replay in order; return a description of the first mismatch, or None.

    Imports the oracle (and with it the reference) at call time, so that a
    process that has just swapped a reference module in replays the swap.
    """
    from doomloop_kit.vectorset import oracle
    from doomloop_kit.vectorset.files import compare

    monitor_ops: dict[str, Callable[..., Any]] = oracle.MONITOR_OPS
    function_ops: dict[str, Callable[..., Any]] = oracle.FUNCTION_OPS
    from doomloop_kit.generators.build import (
        DECLARED_ONLY_FEATURES,
        PLAIN_JSON_FEATURES,
        expected_error,
    )
    from doomloop_kit.reference.wire import features_of, uses_js_coercion

    normative = oracle.normative
    op_error = oracle.OpError
    for vector_id, option, initial_state, steps, features in prepared:
        # As tests/test_vector_replay.py: the declared features are those the
        # inputs need (json-own-members alone may be declared by hand).
        needed: set[str] = set()
        for value in (option, initial_state):
            if value is not _ABSENT:
                needed |= features_of(value)
        if option is not _ABSENT and uses_js_coercion({"op": "create", "option": option}):
            needed.add("js-coercion")
        for op, request, _, _ in steps:
            if op == "runScenario":  # a plain-JSON scenario (build.features_of_transcript)
                needed |= {"engine"} | (features_of(request["scenario"]) & PLAIN_JSON_FEATURES)
                continue
            for name, value in request.items():
                if name != "op":
                    needed |= features_of(value)
            if uses_js_coercion(request):
                needed.add("js-coercion")
        if needed != features - DECLARED_ONLY_FEATURES:
            return f"{vector_id}: features {sorted(features)} but the inputs need {sorted(needed)}"
        monitor: Any = None
        if option is not _ABSENT:
            request = {"option": option}
            if initial_state is not _ABSENT:
                request["state"] = initial_state
            try:
                monitor = oracle.create_monitor(request)
            except op_error as error:
                return f"{vector_id}: create failed: {error.code}"
        for index, (op, request, expect, expect_text) in enumerate(steps):
            try:
                if op == "resume":
                    monitor, result = oracle.resume(monitor, option)
                elif op in monitor_ops:
                    result = monitor_ops[op](monitor, request)
                else:
                    function_op: Callable[..., Any] = oracle.function_ops(features).get(
                        op, function_ops[op]
                    )
                    result = function_op(request)
                actual = {"result": normative(op, result)}
            except op_error as error:
                actual = expected_error(error)
            try:
                same = _text(actual) == expect_text
            except (TypeError, ValueError):
                same = False
            if not same:
                differences = compare(expect, actual, f"$.steps[{index}].expect")
                if differences:
                    return f"{vector_id}: {differences[0]}"
    return None


def main() -> int:
    started = time.perf_counter()
    prepared = load()
    loaded = time.perf_counter()
    problem = first_mismatch(prepared)
    done = time.perf_counter()
    steps = sum(len(v[3]) for v in prepared)
    if problem is not None:
        print(f"MISMATCH {problem}")
        return 1
    print(
        f"{len(prepared)} vectors, {steps} steps: all match "
        f"(load {loaded - started:.2f}s, replay {done - loaded:.2f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
