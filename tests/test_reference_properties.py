"""Properties of the reference over random inputs (Hypothesis).

- key order never changes a canonical form or fingerprint (CAN-*);
- the order of calls within a declared round never changes any call's record (MON-*);
- restoring getState() into a fresh monitor and continuing gives the same records
  as continuing the original, for declared rounds resumed at a round boundary (STATE-*);
- restore never raises on arbitrary JSON, and getState is always schema-valid and
  survives a JSON round trip (STATE-*).
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
from doomloop_kit.jsvalue import wire
from doomloop_kit.reference import (
    DoomLoopMonitor,
    ToolCall,
    canonicalize,
    fingerprint_tool_call,
    resolve_doom_loop_option,
)
from doomloop_kit.vectorset.vocabulary import features_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "spec" / "schema" / "state.schema.json"

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)

PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: shuffled(member, rng) for key, member in items}
    if isinstance(value, list):
        return [shuffled(item, rng) for item in value]
    return value


@PROPERTY_SETTINGS
@given(json_values, st.randoms(use_true_random=False))
def test_key_order_never_changes_a_fingerprint(value: Any, rng: random.Random) -> None:
    other = shuffled(value, rng)
    assert canonicalize(other) == canonicalize(value)
    assert fingerprint_tool_call("t", other) == fingerprint_tool_call("t", value)


# A transcript: rounds of (tool, argument) calls over small alphabets, so rounds repeat.
calls = st.tuples(st.sampled_from(["read", "grep", "__proto__"]), st.integers(0, 3))
rounds = st.lists(st.lists(calls, min_size=1, max_size=5), min_size=1, max_size=8)
options = st.sampled_from(
    [
        True,
        {"ladder": {"observe": 2, "steer": 3, "block": 4, "stop": 5}},
        {
            "ladder": {"escalate": 2, "observe": False},
            "escalation": {"model": "m", "maxEscalations": 1},
        },
    ]
)


def new_monitor(option: object, state: object = None) -> DoomLoopMonitor:
    config = resolve_doom_loop_option(option).config
    assert config is not None
    return DoomLoopMonitor(config) if state is None else DoomLoopMonitor(config, state)


def play(
    m: DoomLoopMonitor,
    transcript: list[list[tuple[str, int]]],
    first_round: int = 0,
) -> list[list[dict[str, object]]]:
    out = []
    for offset, calls_of_round in enumerate(transcript):
        number = first_round + offset
        m.declare_round(number, [ToolCall(t, {"a": a}) for t, a in calls_of_round])
        out.append([m.record_tool_call(t, {"a": a}, number).to_json() for t, a in calls_of_round])
    return out


@PROPERTY_SETTINGS
@given(options, rounds, st.randoms(use_true_random=False))
def test_round_order_never_changes_a_record(
    option: object, transcript: list[list[tuple[str, int]]], rng: random.Random
) -> None:
    permuted = [rng.sample(r, len(r)) for r in transcript]
    original, reordered = new_monitor(option), new_monitor(option)
    for number, (calls_a, calls_b) in enumerate(zip(transcript, permuted, strict=True)):
        records_a = play_round(original, number, calls_a)
        records_b = play_round(reordered, number, calls_b)
        # each distinct call gets the same record whatever the order; duplicates
        # are compared by their first occurrence
        assert first_records(calls_a, records_a) == first_records(calls_b, records_b)


def play_round(
    m: DoomLoopMonitor, number: int, calls_of_round: list[tuple[str, int]]
) -> list[dict[str, object]]:
    m.declare_round(number, [ToolCall(t, {"a": a}) for t, a in calls_of_round])
    return [m.record_tool_call(t, {"a": a}, number).to_json() for t, a in calls_of_round]


def first_records(
    calls_of_round: list[tuple[str, int]], records: list[dict[str, object]]
) -> dict[tuple[str, int], dict[str, object]]:
    first: dict[tuple[str, int], dict[str, object]] = {}
    for call, record in zip(calls_of_round, records, strict=True):
        first.setdefault(call, record)
    return first


@PROPERTY_SETTINGS
@given(options, rounds, rounds)
def test_resume_at_a_round_boundary_is_invisible(
    option: object, before: list[list[tuple[str, int]]], after: list[list[tuple[str, int]]]
) -> None:
    original = new_monitor(option)
    play(original, before)
    original.record_assistant_text("same words")
    original.consume_escalation()
    blob = json.loads(json.dumps(original.get_state()))
    resumed = new_monitor(option, blob)
    assert resumed.get_state() == blob
    continued = play(original, after, first_round=len(before))
    assert play(resumed, after, first_round=len(before)) == continued
    assert resumed.record_assistant_text("same words") == original.record_assistant_text(
        "same words"
    )


hostile_entries = st.fixed_dictionaries(
    {},
    optional={
        "fingerprint": json_values,
        "streak": json_values | st.integers() | st.floats(),
        "roundFingerprints": json_values | st.lists(st.text(max_size=3), max_size=4),
        "callStreaks": json_values
        | st.dictionaries(st.text(max_size=3), st.floats() | st.integers()),
    },
)
hostile_blobs = json_values | st.fixed_dictionaries(
    {},
    optional={
        "tools": json_values
        | st.dictionaries(st.text(max_size=10), hostile_entries, max_size=4)
        | st.lists(hostile_entries, max_size=3),
        "text": json_values | hostile_entries,
        "escalationsUsed": json_values | st.floats(),
    },
)


@PROPERTY_SETTINGS
@given(hostile_blobs)
def test_restore_never_raises(blob: object) -> None:
    m = new_monitor(True)
    m.restore(blob)
    state = m.get_state()
    assert isinstance(state["tools"], dict)
    m.record_tool_call("read", {"a": 1}, 0)
    m.record_assistant_text("x")


@functools.cache
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


texts = st.sampled_from(["", "  ", "again", "no " * 20, "I am stuck. " * 6])


@PROPERTY_SETTINGS
@given(options, rounds, st.lists(texts, max_size=4), st.booleans(), st.integers(0, 3))
def test_get_state_is_schema_valid_and_round_trips(
    option: object,
    transcript: list[list[tuple[str, int]]],
    said: list[str],
    declared: bool,
    escalations: int,
) -> None:
    m = new_monitor(option)
    for number, calls_of_round in enumerate(transcript):
        if declared:
            m.declare_round(number, [ToolCall(t, {"a": a}) for t, a in calls_of_round])
        for t, a in calls_of_round:
            m.record_tool_call(t, {"a": a}, number)
            validator().validate(m.get_state())  # mid-round snapshots too
    for text in said:
        m.record_assistant_text(text)
    for _ in range(escalations):
        m.consume_escalation()
    state = m.get_state()
    validator().validate(state)
    assert json.loads(json.dumps(state)) == state
    validator().validate(new_monitor(option, state).get_state())


# Blobs a conforming writer never emits (the schema rejects them) that a reader
# still accepts, entry by entry, because restore follows STATE-*, not the schema.
F = "a" * 64
READER_ACCEPTS = [
    (
        {"tools": {"t": {"fingerprint": "not-hex", "streak": 2}}},
        {"fingerprint": "not-hex", "streak": 2},
    ),
    ({"tools": {"t": {"fingerprint": F, "streak": 2.5}}}, {"fingerprint": F, "streak": 2}),
    ({"tools": {"t": {"fingerprint": F, "streak": 0}}}, {"fingerprint": F, "streak": 1}),
    (
        {"tools": {"t": {"fingerprint": F, "streak": 1, "extra": True}}},
        {"fingerprint": F, "streak": 1},
    ),
    (
        {"tools": {"t": {"fingerprint": F, "streak": 1, "roundFingerprints": [F]}}},
        {"fingerprint": F, "streak": 1},
    ),
    (
        {"tools": {"t": {"fingerprint": F, "streak": 1}}, "future": 1},
        {"fingerprint": F, "streak": 1},
    ),
    ({"tools": [{"fingerprint": F, "streak": 1}]}, None),
]


def test_schema_does_not_govern_what_a_reader_accepts() -> None:
    for blob, entry in READER_ACCEPTS:
        assert not validator().is_valid(blob), blob
        state = new_monitor(True, blob).get_state()
        tools = state["tools"]
        assert isinstance(tools, dict)
        assert tools == (
            {"t": entry} if entry is not None else {"0": {"fingerprint": F, "streak": 1}}
        )
    # and a schema-valid blob is read as written
    valid = {"tools": {"t": {"fingerprint": F, "streak": 3}}, "pendingSteer": ["x"]}
    assert validator().is_valid(valid)
    assert new_monitor(True, valid).get_state() == {"tools": {"t": {"fingerprint": F, "streak": 3}}}


def _identity_shape(value: object, seen: dict[int, int] | None = None) -> object:
    """The value as a tree in which every container after its first appearance
    is replaced by the number of that appearance: equal shapes, equal sharing."""
    seen = {} if seen is None else seen
    if not isinstance(value, dict | list):
        return value
    if id(value) in seen:
        return ("again", seen[id(value)])
    seen[id(value)] = len(seen)
    if isinstance(value, list):
        return [_identity_shape(item, seen) for item in value]
    return {key: _identity_shape(member, seen) for key, member in value.items()}


@st.composite
def shared_values(draw: st.DrawFn) -> object:
    """A JSON value whose containers are drawn from a pool, so some appear
    several times (never inside themselves)."""
    pool: list[object] = []
    for _ in range(draw(st.integers(1, 6))):
        children = draw(st.lists(st.sampled_from(pool) | json_values, max_size=3)) if pool else []
        if draw(st.booleans()):
            pool.append(children)
        else:
            pool.append({f"m{index}": child for index, child in enumerate(children)})
    return draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(shared_values())
def test_shared_encoding_round_trips_identity_and_canonical_form(value: object) -> None:
    """PROT-33, PROT-35: anchors keep every identity through JSON text; the plain
    encoding writes copies; both canonicalize as the value itself (CAN-19)."""
    tagged = wire.encode(value, share=True)
    back = wire.decode(json.loads(json.dumps(tagged)))
    assert _identity_shape(back) == _identity_shape(value)
    copies = wire.decode(wire.encode(value))
    assert canonicalize(back) == canonicalize(copies) == canonicalize(value)
    assert ("shared-objects" in features_of(tagged)) == _meets_a_container_again(value)


def _meets_a_container_again(value: object) -> bool:
    seen: set[int] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict | list):
            if id(item) in seen:
                return True
            seen.add(id(item))
            pending.extend(item.values() if isinstance(item, dict) else item)
    return False
