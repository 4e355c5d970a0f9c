"""The strategies' public API, and that no vector tests unspecified behaviour (CONF-08)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from doomloop_kit.generators import build, strategies
from doomloop_kit.vectorset.files import ABSENT, Vector
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


def _generated() -> list[Vector]:
    return [v for v in vectors() if "/" in v.id and v.id.split("/")[0] in strategies.FAMILIES]


def _edge_found(name: str, vs: list[Vector]) -> bool:
    """Whether some generated vector holds the edge ``name`` in its input position."""
    records = [s.inputs for v in vs for s in v.steps if s.op == "recordToolCall"]
    rounds = [r["round"] for r in records]
    texts = [s.inputs["text"] for v in vs for s in v.steps if s.op == "recordAssistantText"]
    streaks = [s.inputs["streak"] for v in vs for s in v.steps if s.op == "resolveLadderAction"]
    blobs = [str(s.inputs["state"]) for v in vs for s in v.steps if s.op == "restore"]
    initial = [str(v.initial_state) for v in vs if v.initial_state is not ABSENT]
    options = [str(v.option.get("text")) for v in vs if isinstance(v.option, dict)]
    checks = {
        "negative round": any(isinstance(r, int | float) and r < 0 for r in rounds),
        "fractional round": any(isinstance(r, float) and not r.is_integer() for r in rounds),
        "unsafe round": any(isinstance(r, int) and r > 2**53 for r in rounds),
        "odd tool name": any(r["toolName"] in strategies.ODD_TOOL_NAMES for r in records),
        "null key material": any(r["keyMaterial"] is None for r in records),
        "-0 key material": any(
            r["keyMaterial"] == {"$js": "number", "value": "-0"} for r in records
        ),
        "empty text": "" in texts,
        "whitespace-only text": any(t and not t.strip() for t in texts),
        "undefined record option": any(
            {"$js": "undefined"} in r.get("options", {}).values() for r in records
        ),
        "unsafe streak": 2**53 + 1 in streaks,
        "negative streak": -1 in streaks,
        "NaN in a blob": "NaN" in "".join(blobs),
        "-0 in a blob": "'-0'" in "".join(blobs),
        "Infinity in a blob": "'Infinity'" in "".join(blobs),
        "-Infinity in a blob": "'-Infinity'" in "".join(blobs),
        "-0 in an initial state": "'-0'" in "".join(initial),
        "-Infinity in an initial state": "'-Infinity'" in "".join(initial),
        **{
            f"{name} round": _tag(name) in rounds for name in ("-0", "NaN", "Infinity", "-Infinity")
        },
        **{
            f"{name} streak": _tag(name) in streaks
            for name in ("-0", "NaN", "Infinity", "-Infinity")
        },
        "-0 text option": "'-0'" in "".join(options),
    }
    return checks[name]


EDGES = (
    "negative round", "fractional round", "unsafe round", "odd tool name", "null key material",
    "-0 key material", "empty text", "whitespace-only text", "undefined record option",
    "unsafe streak", "negative streak", "NaN in a blob", "-0 text option",
    # issue 14: every double at every numeric position (MON-63, LAD-09, STATE-35)
    "-0 round", "NaN round", "Infinity round", "-Infinity round",
    "-0 streak", "NaN streak", "Infinity streak", "-Infinity streak",
    "-0 in a blob", "Infinity in a blob", "-Infinity in a blob",
    "-0 in an initial state", "-Infinity in an initial state",
)  # fmt: skip


def _tag(name: str) -> dict[str, str]:
    return {"$js": "number", "value": name}


def test_generated_vectors_reach_every_edge() -> None:
    """DEVELOPERS.md: generators draw the edges in every input position."""
    generated = _generated()
    missing = [name for name in EDGES if not _edge_found(name, generated)]
    assert not missing, missing


def test_an_edge_missing_is_noticed() -> None:
    assert not _edge_found("unsafe round", [])
    assert not _edge_found("NaN round", [])


def _round_key(number: Any) -> Any:
    """-0 is round 0 (MON-63); any other tag stands for itself (NaN conservatively too)."""
    return 0 if number == _tag("-0") else number


def test_no_record_leans_on_a_declaration_across_restore() -> None:
    """OQ-08: after a mid-run restore, no record uses a declaration made before it."""
    bad = []
    for v in vectors():
        declared_before_restore: Any = None
        current: Any = None
        for step in v.steps:
            if step.op == "resume":
                current = declared_before_restore = None
            elif step.op == "declareRound":
                current = _round_key(step.inputs["round"])
                declared_before_restore = None
            elif step.op == "restore":
                declared_before_restore = current
            elif (
                step.op == "recordToolCall"
                and _round_key(step.inputs["round"]) == declared_before_restore
            ):
                bad.append(v.id)
                break
    assert not bad, bad[:10]


def test_flags_and_arguments_are_specified() -> None:
    """OQ-13, OQ-14, OQ-18 (and MON-63, which settled OQ-16): the schema makes these
    types; spot-check the values."""
    for v in vectors():
        for step in v.steps:
            if step.op == "resolveLadderAction":
                assert isinstance(step.inputs["allowBlock"], bool), v.id
            if step.op == "resolveLoopKey":
                assert isinstance(step.inputs["args"], dict), v.id
            if step.op in ("recordToolCall", "declareRound"):
                assert _is_number(step.inputs["round"]), v.id  # any double (MON-63)


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
    """features.md: only the wire-errors family goes past the decode limit of tags
    (PROT-41); every other vector's plain JSON is less than 200 levels deep."""
    from doomloop_kit.jsvalue.wire import DECODE_DEPTH_LIMIT

    def deepest(family: str, inside: bool) -> int:
        return max(
            _depth(value)
            for v in vectors()
            if v.id.startswith(f"{family}/") == inside
            for value in (
                v.option,
                v.initial_state,
                *(input_ for step in v.steps for input_ in step.inputs.values()),
            )
        )

    assert 64 < deepest("wire-errors", inside=False) < DECODE_DEPTH_LIMIT
    assert deepest("wire-errors", inside=True) > DECODE_DEPTH_LIMIT
