"""JS number, string and truth rules the reference needs for issue 11.

Expectations are ECMAScript's (ToNumber, ToString, ToBoolean, ToIntegerOrInfinity,
Array.prototype.slice; ECMA-262 §7.1 and §23.1.3), as a JS console shows them,
and the brief's §9-§10 facts: not copied from the code under test.
"""

from __future__ import annotations

import math

import pytest
from doomloop_kit.jsvalue import wire
from doomloop_kit.jsvalue.values import (
    UNDEFINED,
    JsBigInt,
    JsFunction,
    JsTypeError,
    increment,
    js_string,
    max_of,
    min_of,
    slice_start,
    to_number,
    to_numeric,
    truthy,
)
from doomloop_kit.reference.config import ConfigWarning
from doomloop_kit.reference.loop_keys import names_inherited_member
from doomloop_kit.reference.messages import warning_data

SYMBOL = JsFunction("symbol")


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (True, 1.0),
        (False, 0.0),
        (None, 0.0),
        ("", 0.0),
        ("  \t\n 12 \u00a0", 12.0),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("-0", -0.0),
        ("0x1F", 31.0),
        ("0o17", 15.0),
        ("0b101", 5.0),
        ("Infinity", math.inf),
        ("-Infinity", -math.inf),
        ("+Infinity", math.inf),
        ([], 0.0),
        ([5], 5.0),
        ([[3]], 3.0),
        ([None], 0.0),
        (["7"], 7.0),
        (10**400, math.inf),
    ],
)
def test_to_number(value: object, number: float) -> None:
    result = to_number(value)
    assert result == number and math.copysign(1, result) == math.copysign(1, number)


@pytest.mark.parametrize(
    "value",
    ["abc", "0x", "0xZ", "0x 1", "1_000", "infinity", "1e", "-0x10", "\u0663", [1, 2], {},
     JsFunction(), UNDEFINED, [True]],
)  # fmt: skip
def test_to_number_nan(value: object) -> None:
    assert math.isnan(to_number(value))


def test_to_number_of_a_cyclic_array_is_its_join() -> None:
    cyclic: list[object] = []
    cyclic.append(cyclic)
    assert to_number(cyclic) == 0.0  # [cyclic].join() is "" in JS


@pytest.mark.parametrize("value", [JsBigInt(3), SYMBOL, [SYMBOL]])
def test_to_number_throws_for_bigint_and_symbol(value: object) -> None:
    with pytest.raises(JsTypeError):
        to_number(value)


def test_a_bigint_compares_by_its_exact_value() -> None:
    assert to_numeric(JsBigInt(2**60 + 1)) == 2**60 + 1
    with pytest.raises(JsTypeError):
        to_numeric(SYMBOL)


@pytest.mark.parametrize(
    ("value", "text"),
    [(True, "true"), (2.5, "2.5"), (1e21, "1e+21"), (math.nan, "NaN"), (-math.inf, "-Infinity"),
     (-0.0, "0"), (JsBigInt(12), "12"), ({}, "[object Object]"), ("x", "x")],
)  # fmt: skip
def test_js_string(value: object, text: str) -> None:
    assert js_string(value) == text


def test_js_string_of_a_symbol_throws() -> None:
    with pytest.raises(JsTypeError):
        js_string(SYMBOL)


@pytest.mark.parametrize(
    ("value", "truth"),
    [(False, False), (0, False), (-0.0, False), (math.nan, False), ("", False), (None, False),
     (UNDEFINED, False), (JsBigInt(0), False), (JsBigInt(2), True), ([], True), ({}, True),
     ("0", True), (1, True), (10**400, True), (JsFunction(), True)],
)  # fmt: skip
def test_truthy(value: object, truth: bool) -> None:
    assert truthy(value) is truth


@pytest.mark.parametrize(
    ("start", "index"),
    [(-3, 7), (-3.9, 7), (2.9, 2), (-0.0, 0), (math.nan, 0), (-math.inf, 0), (math.inf, 10),
     (-20, 0), (20, 10)],
)  # fmt: skip
def test_slice_start(start: float, index: int) -> None:
    """Where [0..9].slice(start) begins."""
    assert slice_start(10, start) == index


def test_math_min_max() -> None:
    assert math.isnan(max_of(math.nan, 2.0)) and math.isnan(min_of(3.0, math.nan))
    assert max_of(-3.0, 2.0) == 2.0 and min_of(5.0, 2.0) == 2.0
    assert math.copysign(1, min_of(0.0, -0.0)) < 0 and math.copysign(1, min_of(-0.0, 0.0)) < 0


def test_increment_is_double_addition() -> None:
    assert increment(3) == 4
    assert increment(2**53) == 2**53
    assert increment(2.5) == 3.5


def test_warning_codes_derive_from_the_message() -> None:
    """CFG-34: the fixed texts, the dead-rung template, anything else unclassified."""
    dead = (
        '[DoomLoop] ladder rung "steer" (4) can never fire: stronger rung "block" (3) '
        "already wins at that streak (strongest crossed rung is applied)."
    )
    assert warning_data(dead) == {
        "code": "dead-rung",
        "rung": "steer",
        "shadowedBy": "block",
        "message": dead,
    }
    assert warning_data("[DoomLoop] something else") == {
        "code": "unclassified",
        "message": "[DoomLoop] something else",
    }
    assert ConfigWarning(dead).to_json() == warning_data(dead)


def test_inherited_names_only_matter_for_a_list_over_an_object() -> None:
    assert names_inherited_member(["toString"], {"a": 1})
    assert not names_inherited_member(["toString"], {"toString": 1})
    assert not names_inherited_member("toString", {"a": 1})
    assert not names_inherited_member(["a"], {})


def test_deep_plain_json_is_kept_undecoded() -> None:
    """PROT-27: past the decode limit plain JSON travels back unchanged."""
    deep: object = 0
    for _ in range(wire.DECODE_DEPTH_LIMIT + 5):
        deep = [deep]
    decoded = wire.decode({"v": deep})
    assert isinstance(decoded, dict)
    inner = decoded["v"]
    for _ in range(wire.DECODE_DEPTH_LIMIT - 1):
        assert isinstance(inner, list)
        inner = inner[0]
    assert isinstance(inner, wire.Undecoded) and repr(inner) == "Undecoded(...)"
    assert wire.encode(decoded) == {"v": deep}
