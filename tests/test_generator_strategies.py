"""The strategies' public API, and that no vector tests unspecified behaviour (CONF-08)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from doomloop_kit.generators import build, strategies
from doomloop_kit.vectorset.files import Vector
from harnesses import support
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

ROOT = Path(__file__).resolve().parent.parent / "vectors"


def vectors() -> tuple[Vector, ...]:
    return tuple(v for f in support.committed_files() for v in f.vectors)


def test_every_family_has_a_strategy_and_runs() -> None:
    assert set(strategies.FAMILIES) >= {
        "repeat", "superset", "subset", "permutation", "expanding", "polling", "resume",
        "interleaved", "duplicates", "undeclared", "unhashable", "text", "escalation",
        "ladders", "options",
    }  # fmt: skip
    seen: dict[str, int] = {}

    @settings(max_examples=45, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @hypothesis_seed(7)
    @given(strategies.transcripts_any())
    def run(pair: tuple[str, dict[str, Any]]) -> None:
        family, transcript = pair
        assert "expect" not in str([list(step) for step in transcript["steps"]])
        assert len(build.expectations(transcript)) == len(transcript["steps"])
        seen[family] = seen.get(family, 0) + 1

    run()
    assert len(seen) >= 5


def _is_number(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("$js") == "number"
    return isinstance(value, int | float) and not isinstance(value, bool)


def _core_text_options(option: Any) -> bool:
    """CFG-45: without js-coercion a monitor's text options are numbers (any double)
    and ``enabled`` is a boolean; null and undefined fall back to defaults."""
    if not isinstance(option, dict) or not isinstance(option.get("text"), dict):
        return True
    text = option["text"]
    given = [text.get(name) for name in ("maxPeriodTokens", "minRepeats", "minCoveredTokens",
                                         "maxWindowTokens")]  # fmt: skip
    absent = (None, {"$js": "undefined"})
    if any(value not in absent and not _is_number(value) for value in given):
        return False
    return text.get("enabled") in absent or isinstance(text["enabled"], bool)


def test_coercion_is_declared() -> None:
    """A vector whose option needs JS coercion carries the feature js-coercion (CFG-45)."""
    bad = [
        v.id
        for v in vectors()
        if "js-coercion" not in v.features and not _core_text_options(v.option)
    ]
    assert not bad, bad[:10]
    assert any("js-coercion" in v.features for v in vectors())


def test_no_record_after_redeclaring_a_recorded_round() -> None:
    """OQ-17: declaring a round again after some of its calls were recorded is not
    relied on: no record of that round may follow such a re-declaration."""
    bad = []
    for v in vectors():
        recorded: set[float] = set()
        redeclared: set[float] = set()
        for step in v.steps:
            if step.op == "resume":
                recorded.clear()
                redeclared.clear()
            elif step.op == "declareRound" and step.inputs["round"] in recorded:
                redeclared.add(step.inputs["round"])
            elif step.op == "recordToolCall":
                if step.inputs["round"] in redeclared:
                    bad.append(v.id)
                    break
                recorded.add(step.inputs["round"])
    assert not bad, bad[:10]


def test_no_record_leans_on_a_declaration_across_restore() -> None:
    """OQ-08: after a mid-run restore, no record uses a declaration made before it."""
    bad = []
    for v in vectors():
        declared_before_restore: float | None = None
        current: float | None = None
        for step in v.steps:
            if step.op == "resume":
                current = declared_before_restore = None
            elif step.op == "declareRound":
                current = step.inputs["round"]
                declared_before_restore = None
            elif step.op == "restore":
                declared_before_restore = current
            elif step.op == "recordToolCall" and step.inputs["round"] == declared_before_restore:
                bad.append(v.id)
                break
    assert not bad, bad[:10]


def test_flags_and_arguments_are_specified() -> None:
    """OQ-13, OQ-14, OQ-16, OQ-18: the schema makes these types; spot-check the values."""
    for v in vectors():
        for step in v.steps:
            if step.op == "resolveLadderAction":
                assert isinstance(step.inputs["allowBlock"], bool), v.id
            if step.op == "resolveLoopKey":
                assert isinstance(step.inputs["args"], dict), v.id
            if step.op in ("recordToolCall", "declareRound"):
                assert isinstance(step.inputs["round"], int | float), v.id


def _depth(value: Any) -> int:
    """Plain-JSON nesting depth (a scalar is 0), iteratively."""
    deepest, pending = 0, [(value, 0)]
    while pending:
        item, depth = pending.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            pending.extend((member, depth + 1) for member in item.values())
        elif isinstance(item, list):
            pending.extend((element, depth + 1) for element in item)
    return deepest


def test_vectors_stay_within_the_decode_depth() -> None:
    """features.md: plain JSON in a vector is at most 200 levels deep (PROT-27), so
    every tag is decoded by a harness that decodes only that deep."""
    from doomloop_kit.reference.wire import DECODE_DEPTH_LIMIT

    deepest = max(
        _depth(value)
        for v in vectors()
        for value in (
            v.option,
            v.initial_state,
            *(input_ for step in v.steps for input_ in step.inputs.values()),
        )
    )
    assert 64 < deepest < DECODE_DEPTH_LIMIT
