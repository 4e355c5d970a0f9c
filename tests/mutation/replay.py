"""Fast replay of the committed vectors, stopping at the first mismatch.

The "test" of a mutant in the mutation jobs (``tests/mutation/run.py``): the
committed vectors alone, not the unit tests. Two judges, one per job:

* :func:`monitor_judge`: every monitor vector (``steps``) through the
  reference, as ``tests/test_vector_replay.py`` replays them;
* :func:`engine_judge`: every engine vector (``scenario``, spec §15.1.4)
  through the reference engine: ``run_scenario(...).to_json()`` or, for a
  malformed scenario, ``{"error": "bad-scenario"}`` (ENG-23), compared with
  the vector's ``expect`` as the conformance runner compares it (events by the
  vector's order, ENG-139; warnings by the fallback texts only, ENG-168).

Run on its own it replays everything once and prints the time it took::

    .venv/bin/python tests/mutation/replay.py           # exit 0: every step matches
    .venv/bin/python tests/mutation/replay.py --engine  # exit 1: the first mismatch, named

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "vectors"

Prepared = list[
    tuple[str, Any, Any, list[tuple[str, dict[str, Any], dict[str, Any], str]], frozenset[str]]
]
"""Per vector: (id, option, initialState, [(op, request, expect, expect text)], features)."""

EnginePrepared = list[tuple[str, Any, Any, str]]
"""Per engine vector: (id, scenario, expect, its text)."""

_ABSENT = object()


@dataclass(frozen=True)
class Judge:
    """One job's vectors, loaded once: ``replay()`` gives the first mismatch or None."""

    replay: Callable[[], str | None]
    figures: dict[str, int]


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, allow_nan=True)


def _vectors(root: Path) -> Iterable[dict[str, Any]]:
    """Every vector the manifest lists, in manifest order (curated files first)."""
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        data = json.loads((root / entry["path"]).read_text(encoding="utf-8"))
        yield from data["vectors"]


def load(root: Path = VECTORS) -> Prepared:
    """Every monitor vector (one with ``steps``; engine vectors have a ``scenario``)."""
    prepared: Prepared = []
    for vector in _vectors(root):
        if "steps" in vector:
            steps = []
            for step in vector["steps"]:
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


def monitor_judge(root: Path = VECTORS) -> Judge:
    """The reference job's judge: every monitor vector, step by step."""
    prepared = load(root)
    return Judge(
        lambda: first_mismatch(prepared),
        {"vectors": len(prepared), "steps": sum(len(v[3]) for v in prepared)},
    )


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
        expected_error,
    )
    from doomloop_kit.vectorset.vocabulary import OpError, features_of, uses_js_coercion

    op_error = OpError
    for vector_id, option, initial_state, steps, features in prepared:
        # As tests/test_vector_replay.py: the declared features are those the
        # inputs need (json-own-members alone may be declared by hand), and
        # one of json-own-members/js-inherited-members exactly where CONF-13 says.
        needed: set[str] = set()
        for value in (option, initial_state):
            if value is not _ABSENT:
                needed |= features_of(value)
        if option is not _ABSENT and uses_js_coercion({"op": "create", "option": option}):
            needed.add("js-coercion")
        for _op, request, _, _ in steps:
            for name, value in request.items():
                if name != "op":
                    needed |= features_of(value)
            if uses_js_coercion(request):
                needed.add("js-coercion")
        if needed != features - DECLARED_ONLY_FEATURES:
            return f"{vector_id}: features {sorted(features)} but the inputs need {sorted(needed)}"
        if not oracle.declares_member_rule_rightly(features, (step[1] for step in steps)):
            return f"{vector_id}: features {sorted(features)} break CONF-13"
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
                actual = {"result": result}
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


# -- engine vectors (spec §15.1.4) ---------------------------------------------------


def engine_outcome(scenario: Any) -> dict[str, Any]:
    """What an engine vector expects for ``scenario``: the oracle's transcript and its
    order, or the ``bad-scenario`` error of a malformed scenario (ENG-23).
    The oracle imports the engine at call time, so that a process that has just
    swapped an engine module in runs the swap."""
    from doomloop_kit.generators.build import expected_error
    from doomloop_kit.vectorset import oracle
    from doomloop_kit.vectorset.vocabulary import OpError

    try:
        return oracle.engine_expectation({"scenario": scenario})
    except OpError as error:
        return expected_error(error)


def load_engine(root: Path = VECTORS) -> EnginePrepared:
    """Every engine vector (one with a ``scenario``), in manifest order."""
    return prepare_engine(
        (v["id"], v["scenario"], v["expect"]) for v in _vectors(root) if "scenario" in v
    )


def prepare_engine(vectors: Iterable[tuple[str, Any, Any]]) -> EnginePrepared:
    """(id, scenario, expect) triples, each expectation serialised once."""
    return [(vector_id, scenario, expect, _text(expect)) for vector_id, scenario, expect in vectors]


def first_engine_mismatch(prepared: EnginePrepared) -> str | None:
    """Run every engine vector's scenario in order; the first mismatch, or None.

    As the conformance runner judges them: two transcripts by
    :func:`~doomloop_kit.vectorset.transcripts.compare_transcripts` (run by run,
    events and executions by the vector's order, ENG-139, warnings by the fallback
    texts only, ENG-168), anything else by the vector comparison rule; equal sorted
    JSON text is equal under both.
    """
    from doomloop_kit.vectorset.files import compare
    from doomloop_kit.vectorset.transcripts import compare_transcripts

    for vector_id, scenario, expect, expect_text in prepared:
        actual = engine_outcome(scenario)
        try:
            same = _text(actual) == expect_text
        except (TypeError, ValueError):
            same = False
        if same:
            continue
        if "result" in expect and "result" in actual:
            if actual.get("order") != expect.get("order"):  # the reference writes the order too
                return f"{vector_id}: $.expect.order differs (ENG-139)"
            differences = compare_transcripts(
                expect["result"], actual["result"], expect.get("order")
            )
        else:
            differences = compare(expect, actual, "$.expect")
        if differences:
            return f"{vector_id}: {differences[0]}"
    return None


def engine_judge(prepared: EnginePrepared) -> Judge:
    """The engine job's judge: every engine vector's transcript."""
    runs = sum(len(expect["result"]["runs"]) for _, _, expect, _ in prepared if "result" in expect)
    return Judge(lambda: first_engine_mismatch(prepared), {"vectors": len(prepared), "runs": runs})


def main(argv: list[str] | None = None) -> int:
    engine = "--engine" in (sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    judge = engine_judge(load_engine()) if engine else monitor_judge()
    loaded = time.perf_counter()
    problem = judge.replay()
    done = time.perf_counter()
    figures = ", ".join(f"{value} {name}" for name, value in judge.figures.items())
    if problem is not None:
        print(f"MISMATCH {problem}")
        return 1
    print(f"{figures}: all match (load {loaded - started:.2f}s, replay {done - loaded:.2f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
