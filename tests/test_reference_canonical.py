"""Canonical form edges (CAN-*, FP-*). Expected texts follow ECMAScript
JSON.stringify and Number::toString, written out by hand."""

from __future__ import annotations

import hashlib
import math

import pytest
from doomloop_kit.reference import (
    UNDEFINED,
    CanonicalizationError,
    CanonicalizationErrorKind,
    JsBigInt,
    JsFunction,
    canonicalize,
    fingerprint_tool_call,
)


def nested(depth: int, leaf: object, *, as_object: bool = False) -> object:
    value = leaf
    for _ in range(depth):
        value = {"k": value} if as_object else [value]
    return value


@pytest.mark.parametrize("as_object", [False, True])
def test_depth_boundary(as_object: bool) -> None:
    assert canonicalize(nested(64, 1, as_object=as_object)).count("1") == 1
    opener, closer = ('{"k":', "}") if as_object else ("[", "]")
    assert canonicalize(nested(64, [], as_object=as_object)) == opener * 64 + "[]" + closer * 64
    with pytest.raises(CanonicalizationError) as caught:
        canonicalize(nested(65, 1, as_object=as_object))
    assert caught.value.kind is CanonicalizationErrorKind.DEPTH
    with pytest.raises(CanonicalizationError):
        canonicalize(nested(65, [], as_object=as_object))


def test_dropped_member_is_not_depth_checked() -> None:
    assert canonicalize(nested(64, {"gone": UNDEFINED})) == "[" * 64 + "{}" + "]" * 64


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (123e-20, "1.23e-18"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-1.5, "-1.5"),
        (2**53, "9007199254740992"),
        (2**53 + 1, "9007199254740992"),  # nearest double, ties to even
        (2**53 + 3, "9007199254740996"),
        (10**21, "1e+21"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
    ],
)
def test_scalars(value: object, text: str) -> None:
    assert canonicalize(value) == text


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (math.nan, CanonicalizationErrorKind.NON_FINITE),
        (math.inf, CanonicalizationErrorKind.NON_FINITE),
        (-math.inf, CanonicalizationErrorKind.NON_FINITE),
        (10**400, CanonicalizationErrorKind.NON_FINITE),
        (JsBigInt(1), CanonicalizationErrorKind.BIGINT),
        ({1, 2}, CanonicalizationErrorKind.UNSUPPORTED),
    ],
)
def test_rejected_scalars(value: object, kind: CanonicalizationErrorKind) -> None:
    with pytest.raises(CanonicalizationError) as caught:
        canonicalize({"v": value})
    assert caught.value.kind is kind


def test_circular_and_shared() -> None:
    shared = [1]
    assert canonicalize([shared, shared]) == "[[1],[1]]"
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(CanonicalizationError) as caught:
        canonicalize(loop)
    assert caught.value.kind is CanonicalizationErrorKind.CIRCULAR


def test_js_only_values() -> None:
    assert canonicalize(UNDEFINED) == "null"
    assert canonicalize(JsFunction()) == "null"
    assert canonicalize([UNDEFINED, JsFunction("symbol"), 1]) == "[null,null,1]"
    assert canonicalize({"a": UNDEFINED, "b": JsFunction(), "c": 1}) == '{"c":1}'


def test_string_escapes() -> None:
    text = '"\\\b\f\n\r\t\x00\x1f\x7f\u2028\u2029é'
    assert canonicalize(text) == '"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\x7f\u2028\u2029é"'


def test_lone_surrogates_escape_lowercase() -> None:
    assert canonicalize("a\ud800b\udfff") == '"a\\ud800b\\udfff"'
    # two surrogate code points forming a valid pair are one astral character
    assert canonicalize("\ud83d\ude00") == '"\U0001f600"'
    assert canonicalize("\ude00\ud83d") == '"\\ude00\\ud83d"'


def test_key_order_is_utf16_code_units() -> None:
    # U+1F600 is D83D DE00 in UTF-16: it sorts before U+FF61, though its code point is larger.
    value = {"\uff61": 1, "\U0001f600": 2, "a": 3, "\udc00": 4}
    assert canonicalize(value) == '{"a":3,"\U0001f600":2,"\\udc00":4,"\uff61":1}'


def test_tool_name_lone_surrogate_is_replacement_character() -> None:
    expected = hashlib.sha256(b"\xef\xbf\xbd\n{}").hexdigest()
    assert fingerprint_tool_call("\ud800", {}) == expected
    assert fingerprint_tool_call("x", {}) == hashlib.sha256(b"x\n{}").hexdigest()
