"""The tagged JSON encoding of JS-only values (spec/features.md) and the JS number helpers."""

from __future__ import annotations

import json
import math

import pytest
from doomloop_kit.jsvalue import wire
from doomloop_kit.jsvalue.utf16 import code_unit_length, tail_code_units
from doomloop_kit.jsvalue.values import UNDEFINED, JsBigInt, JsFunction, number_to_string
from doomloop_kit.reference import CanonicalizationError, canonicalize
from doomloop_kit.vectorset.vocabulary import features_of


def test_scalar_tags() -> None:
    assert wire.decode({"$js": "undefined"}) is UNDEFINED
    assert math.isnan(wire.decode({"$js": "number", "value": "NaN"}))  # type: ignore[arg-type]
    assert wire.decode({"$js": "number", "value": "-Infinity"}) == -math.inf
    negative_zero = wire.decode({"$js": "number", "value": "-0"})
    assert negative_zero == 0 and math.copysign(1, negative_zero) < 0
    assert wire.decode({"$js": "bigint", "value": "-12"}) == JsBigInt(-12)
    assert wire.decode({"$js": "symbol"}) == JsFunction("symbol")
    assert wire.decode({"$js": "function"}) == JsFunction("function")


def test_loop_key_functions() -> None:
    returns = wire.decode({"$js": "function", "returns": {"k": {"$js": "undefined"}}})
    assert callable(returns) and returns({}) == {"k": UNDEFINED}
    nothing = wire.decode({"$js": "function", "returns": {"$js": "undefined"}})
    assert callable(nothing) and nothing({}) is UNDEFINED
    throws = wire.decode({"$js": "function", "throws": "no"})
    assert callable(throws)
    with pytest.raises(RuntimeError, match="no"):
        throws({})


def test_structural_tags() -> None:
    value = wire.decode(
        {"a": [{"$js": "ref", "up": 2}], "n": {"$js": "nest", "depth": 2, "value": {}}}
    )
    assert isinstance(value, dict)
    assert value["a"][0] is value
    assert value["n"] == [[{}]]
    literal = wire.decode(
        {"$js": "object", "value": {"$js": "undefined", "x": {"$js": "undefined"}}}
    )
    assert literal == {"$js": "undefined", "x": UNDEFINED}


@pytest.mark.parametrize(
    "bad",
    [
        {"$js": "nope"},
        {"$js": "number", "value": "1"},
        {"$js": "bigint", "value": "1.5"},
        {"$js": "bigint", "value": 1},
        {"$js": "ref", "up": 1},
        {"$js": "ref", "up": True},
        [{"$js": "ref", "up": 2}],
        {"$js": "nest", "depth": -1, "value": 1},
        {"$js": "nest", "depth": 1.5, "value": 1},
        {"$js": "object", "value": [1]},
        {"$js": ["undefined"]},
        {"$js": "number", "value": ["NaN"]},
    ],
)
def test_malformed_tags(bad: object) -> None:
    """PROT-42 (an unhashable kind or number name is a wire error, not a crash)."""
    with pytest.raises(wire.WireError):
        wire.decode(bad)


def test_whole_numbers_written_with_a_fraction() -> None:
    """PROT-42, DATA-09: ref up 1.0 is 1 and nest depth 2.0 is 2."""
    value = wire.decode([{"$js": "ref", "up": 1.0}])
    assert isinstance(value, list) and value[0] is value
    assert wire.decode({"$js": "nest", "depth": 2.0, "value": 1}) == [[1]]


def test_a_tag_past_the_decode_limit_is_undecodable() -> None:
    """PROT-41: counted in arrays and plain objects, an object tag's literal included."""

    def inside(depth: int, value: object) -> object:
        for _ in range(depth):
            value = [value]
        return value

    tag = {"$js": "undefined"}
    assert wire.decode(inside(wire.DECODE_DEPTH_LIMIT - 1, tag)) == inside(
        wire.DECODE_DEPTH_LIMIT - 1, UNDEFINED
    )
    with pytest.raises(wire.WireError, match=f"{wire.DECODE_DEPTH_LIMIT} or more containers"):
        wire.decode(inside(wire.DECODE_DEPTH_LIMIT, tag))
    literal = {"$js": "object", "value": {"t": tag}}
    with pytest.raises(wire.WireError, match=f"{wire.DECODE_DEPTH_LIMIT} or more containers"):
        wire.decode(inside(wire.DECODE_DEPTH_LIMIT - 1, literal))
    with pytest.raises(wire.WireError, match=f"{wire.DECODE_DEPTH_LIMIT} or more containers"):
        wire.decode(inside(wire.DECODE_DEPTH_LIMIT + 3000, {"deep": [1, tag]}))


def test_encode_round_trip() -> None:
    tagged = {
        "u": {"$js": "undefined"},
        "n": [{"$js": "number", "value": v} for v in ("NaN", "Infinity", "-Infinity", "-0")],
        "b": {"$js": "bigint", "value": "9"},
        "f": [{"$js": "function"}, {"$js": "symbol"}],
        "k": [{"$js": "function", "returns": 1}, {"$js": "function", "throws": "x"}],
        "c": [{"$js": "ref", "up": 2}],
        "l": {"$js": "object", "value": {"$js": 1}},
        "s": "\ud800",
    }
    assert wire.encode(wire.decode(tagged)) == tagged
    assert json.loads(json.dumps(tagged)) == tagged


def test_large_integers_echo_as_js_holds_them() -> None:
    assert wire.encode([2**53 + 1, 10**400, -(10**400)]) == [
        2**53,
        {"$js": "number", "value": "Infinity"},
        {"$js": "number", "value": "-Infinity"},
    ]


def test_number_helpers() -> None:
    assert number_to_string(3.0) == "3" and number_to_string(2.5) == "2.5"
    with pytest.raises(ValueError):
        number_to_string(math.inf)
    assert repr(UNDEFINED) == "UNDEFINED"
    assert canonicalize(wire.decode({"$js": "nest", "depth": 1, "value": "x"})) == '["x"]'


def test_code_units() -> None:
    assert code_unit_length("a\U0001f600") == 3
    assert tail_code_units("abc", 0) == ""
    assert tail_code_units("ab", 5) == "ab"


# -- shared objects and object identity (PROT-33..PROT-39) ----------------------


def test_alias_decodes_to_the_anchors_very_object() -> None:
    decoded = wire.decode(
        {
            "a": {"$js": "anchor", "name": "x", "value": {"k": [1]}},
            "b": [{"$js": "alias", "name": "x"}, {"c": {"$js": "alias", "name": "x"}}],
        }
    )
    assert isinstance(decoded, dict)
    assert decoded["a"] is decoded["b"][0] is decoded["b"][1]["c"]
    assert decoded["a"] == {"k": [1]}


def test_shared_round_trip_keeps_identity_and_cycles_stay_refs() -> None:
    inner: list[object] = [1, "two"]
    cyclic: dict[str, object] = {"n": 1}
    cyclic["self"] = cyclic
    value = {"x": inner, "y": {"deep": inner}, "c1": cyclic, "c2": [cyclic]}
    tagged = wire.encode(value, share=True)
    assert tagged == {
        "x": {"$js": "anchor", "name": "a1", "value": [1, "two"]},
        "y": {"deep": {"$js": "alias", "name": "a1"}},
        "c1": {"$js": "anchor", "name": "a2", "value": {"n": 1, "self": {"$js": "ref", "up": 1}}},
        "c2": [{"$js": "alias", "name": "a2"}],
    }
    back = wire.decode(json.loads(json.dumps(tagged)))
    assert isinstance(back, dict)
    assert back["x"] is back["y"]["deep"] and back["x"] == inner
    assert back["c1"] is back["c2"][0] is back["c1"]["self"]
    assert features_of(tagged) == {"shared-objects", "circular-references"}


def test_results_write_shared_objects_out_in_full() -> None:
    """PROT-35: without ``share`` a shared container is copied, a cycle still a ref."""
    inner = {"p": 1}
    cyclic: list[object] = []
    cyclic.append(cyclic)
    assert wire.encode({"a": inner, "b": inner, "c": cyclic}) == {
        "a": {"p": 1},
        "b": {"p": 1},
        "c": [{"$js": "ref", "up": 1}],
    }


def test_shared_is_not_circular_but_shared_and_cyclic_is() -> None:
    shared = wire.decode(
        {"a": {"$js": "anchor", "name": "x", "value": [1]}, "b": {"$js": "alias", "name": "x"}}
    )
    assert canonicalize(shared) == '{"a":[1],"b":[1]}'
    both = wire.decode(
        {
            "a": {"$js": "anchor", "name": "x", "value": [{"$js": "ref", "up": 1}]},
            "b": {"$js": "alias", "name": "x"},
        }
    )
    with pytest.raises(CanonicalizationError, match="circular"):
        canonicalize(both)


@pytest.mark.parametrize(
    ("tagged", "complaint"),
    [
        ({"$js": "alias", "name": "x"}, "no earlier anchor"),
        (
            [{"$js": "alias", "name": "x"}, {"$js": "anchor", "name": "x", "value": []}],
            "no earlier anchor",
        ),
        (
            {"$js": "anchor", "name": "x", "value": [{"$js": "alias", "name": "x"}]},
            "cycle is written ref",
        ),
        (
            [
                {"$js": "anchor", "name": "x", "value": []},
                {"$js": "anchor", "name": "x", "value": []},
            ],
            "twice",
        ),
        ({"$js": "anchor", "name": "x", "value": 3}, "no array or object"),
        ({"$js": "anchor", "name": "", "value": []}, "non-empty string"),
        ({"$js": "alias", "name": 7}, "non-empty string"),
        ({"$js": "bound", "name": "k"}, "outside a session"),
    ],
)
def test_malformed_sharing_tags_are_wire_errors(tagged: object, complaint: str) -> None:
    with pytest.raises(wire.WireError, match=complaint):
        wire.decode(tagged)


def test_anchors_are_scoped_to_one_decode() -> None:
    wire.decode({"$js": "anchor", "name": "x", "value": []})
    with pytest.raises(wire.WireError, match="no earlier anchor"):
        wire.decode({"$js": "alias", "name": "x"})


def test_bound_names_the_held_object() -> None:
    held: dict[str, object] = {"k": {"p": 1}}
    decoded = wire.decode(
        [{"$js": "bound", "name": "k"}, {"w": {"$js": "bound", "name": "k"}}], held
    )
    assert isinstance(decoded, list) and decoded[0] is held["k"] and decoded[1]["w"] is held["k"]
    with pytest.raises(wire.WireError, match="no object bound"):
        wire.decode({"$js": "bound", "name": "other"}, held)
    assert features_of({"$js": "bound", "name": "k"}) == {"object-identity"}


def test_a_bigint_of_any_length_decodes_and_encodes() -> None:
    digits = "-" + "7" * 5000
    decoded = wire.decode({"$js": "bigint", "value": digits})
    assert isinstance(decoded, JsBigInt) and decoded.digits == digits
    assert wire.encode(decoded) == {"$js": "bigint", "value": digits}
