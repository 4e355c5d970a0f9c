"""JSON text as JS reads and writes it: ``JSON.parse`` for protocol lines (PROT-44),
``JSON.stringify`` for protocol lines and for tool outputs (ENG-105)."""

from __future__ import annotations

import json
import math

import pytest
from doomloop_kit.jsvalue import jsjson
from hypothesis import given, settings
from hypothesis import strategies as st


def test_loads_reads_numbers_as_js_does_whatever_their_length() -> None:
    nines = "9" * 5000  # beyond Python's 4,300 digits of integer text
    assert jsjson.loads(f"[{nines}, -{nines}, 12, 1e400]") == [math.inf, -math.inf, 12, math.inf]
    for constant in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(ValueError, match="not JSON"):
            jsjson.loads(f"[{constant}]")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2**64, "18446744073709552000"),
        (2**64 + 1, "18446744073709552000"),
        (9007199254740993, "9007199254740992"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1.0, "1"),
        (-0.0, "0"),
        (
            [1, {"a": None, "b": [True, False]}, "é\ud800"],
            '[1,{"a":null,"b":[true,false]},"\\u00e9\\ud800"]',
        ),
        ({}, "{}"),
    ],
)
def test_dumps_writes_numbers_as_json_stringify(value: object, text: str) -> None:
    assert jsjson.dumps(value) == text
    assert json.loads(text) == json.loads(jsjson.dumps(json.loads(text)))


@pytest.mark.parametrize(
    ("value", "error"), [(math.nan, ValueError), ({1: 2}, TypeError), ({1, 2}, TypeError)]
)
def test_dumps_refuses_what_json_cannot_hold(value: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        jsjson.dumps(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"error": 'say "hi"\n'}, '{"error":"say \\"hi\\"\\n"}'),
        ({"b": 1, "a": [1.5, 1e21, -0.0, True, None]}, '{"b":1,"a":[1.5,1e+21,0,true,null]}'),
        ("\u2028\U0001f600", '"\u2028\U0001f600"'),
        ("\ud800", '"\\ud800"'),
        (2**60, "1152921504606847000"),  # shortest round-trip digits, then zeros
    ],
)
def test_outputs_are_encoded_as_json_stringify_writes_them(value: object, expected: str) -> None:
    """ENG-105: values chosen where Python's defaults and JS differ."""
    assert jsjson.stringify(value) == expected


def test_stringify_writes_what_json_cannot_hold_as_js_does() -> None:
    """JS ``JSON.stringify`` writes NaN, the infinities and a number past the doubles as
    null, a non-string key as its text (ENG-105); :func:`dumps` refuses them instead."""
    assert jsjson.stringify([math.nan, -math.inf, 10**400, (1, 2)]) == "[null,null,null,[1,2]]"
    assert jsjson.stringify({1: "a"}) == '{"1":"a"}'
    with pytest.raises(TypeError, match="not plain JSON"):
        jsjson.stringify({1, 2})


@pytest.mark.parametrize(
    "value", ["é\ud800\U0001f600\u2028", {"k\udfff": [1.5, -0.0, 2**53 + 2, "\x1f"]}]
)
def test_a_protocol_line_and_json_stringify_write_the_same_json(value: object) -> None:
    """One writer: the ASCII protocol line and the JS text decode to the same value."""
    ascii_text, js_text = jsjson.dumps(value), jsjson.stringify(value)
    assert ascii_text.isascii()
    assert json.loads(ascii_text) == json.loads(js_text)


def test_members_come_in_js_property_order() -> None:
    """ENG-105: array-index names first, ascending, then the others as created. The
    expected text is Node's ``JSON.stringify(JSON.parse(text))`` of the same text."""
    text = '{"b":1,"1":2,"0":3,"01":4,"4294967295":5,"4294967294":6,"-1":7}'
    expected = '{"0":3,"1":2,"4294967294":6,"b":1,"01":4,"4294967295":5,"-1":7}'
    assert jsjson.stringify(jsjson.loads(text)) == expected
    assert jsjson.dumps(jsjson.loads(text)) == expected
    assert [jsjson.array_index(n) for n in ("0", "7", "07", "-0", "+7", "٣", "4294967294")] == [
        0,
        7,
        None,
        None,
        None,
        None,
        4294967294,
    ]


# -- the bounds of PROT-45, and reading without recursion ---------------------------------------

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, derandomize=True, database=None)
@given(_JSON, st.sampled_from([None, 0, 1, 2]))
def test_reading_without_recursion_gives_what_the_parser_gives(
    value: object, indent: int | None
) -> None:
    """decode_flat (the fallback where CPython caps its C parser's recursion, 3.12+) reads
    every text as json does: the same value, whitespace and all."""
    text = json.dumps(value, indent=indent)
    assert jsjson.decode_flat(text) == jsjson.DECODER.decode(text)
    padded = f" {text}\n"
    assert jsjson.raw_decode_flat(padded, 1) == (json.loads(text), 1 + len(text))


@pytest.mark.parametrize(
    "text",
    ["", "[", "[1,]", "[01]", '{"a" 1}', '{"a":1,}', "[1] x", "nul", "[NaN]", '["\x01"]', "-"],
)
def test_reading_without_recursion_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        jsjson.DECODER.decode(text)
    with pytest.raises(ValueError):
        jsjson.decode_flat(text)


def test_the_nesting_bound_is_ten_thousand_levels_strings_aside() -> None:
    at, past = "[" * 10_000 + "]" * 10_000, "[" * 10_001 + "]" * 10_001
    assert jsjson.decode_flat(at) == jsjson.loads(at)
    with pytest.raises(jsjson.NestingError):
        jsjson.loads(past)
    assert jsjson.loads('["' + "[" * 20_000 + '"]') == ["[" * 20_000]  # brackets in a string
    with pytest.raises(jsjson.NestingError):
        jsjson.dumps(jsjson.decode_flat(past))  # PROT-46: never written deeper either
