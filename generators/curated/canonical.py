"""Canonical form edge cases (spec section 5) and their fingerprints (section 6)."""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import (
    FUNCTION,
    INFINITY,
    NAN,
    NEG_INFINITY,
    NEG_ZERO,
    SYMBOL,
    UNDEFINED,
    bigint,
    nest,
    op,
    ref,
    scenario,
)

FAMILY = "canonical"
DESCRIPTION = "canonical-form boundaries: depth, key order, escaping, numbers, JS-only values"


def _deep_arrays(depth: int, inner: Any) -> Any:
    value = inner
    for _ in range(depth):
        value = [value]
    return value


def _deep_objects(depth: int, inner: Any) -> Any:
    value = inner
    for _ in range(depth):
        value = {"k": value}
    return value


def _canon(
    name: str,
    pins: str,
    spec: list[str],
    values: list[Any],
    *,
    fingerprint: bool = False,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    steps = []
    for value in values:
        steps.append(op("canonicalize", value=value))
        if fingerprint:
            steps.append(op("fingerprintKeyMaterial", keyMaterial=value))
    return scenario(
        name,
        pins,
        ["CAN-01", *spec] + (["FP-01"] if fingerprint else []),
        steps,
        tags=["canonical", *(tags or [])],
    )


SCENARIOS: list[dict[str, Any]] = [
    # depth (CAN-15..18)
    _canon(
        "depth-scalar-64-passes",
        "a scalar at depth 64 (64 nested arrays, tagged) passes",
        ["CAN-15", "CAN-16", "CAN-17"],
        [nest(64, 0)],
        tags=["depth"],
    ),
    _canon(
        "depth-scalar-65-fails",
        "a scalar at depth 65 fails",
        ["CAN-16", "CAN-17", "CAN-35"],
        [nest(65, 0)],
        tags=["depth"],
    ),
    _canon(
        "depth-empty-array-64-passes",
        "an empty array at depth 64 passes; at depth 65 it fails",
        ["CAN-16", "CAN-17"],
        [nest(64, []), nest(65, [])],
        tags=["depth"],
    ),
    _canon(
        "depth-empty-object-64-passes",
        "an empty object at depth 64 passes; at depth 65 it fails",
        ["CAN-16", "CAN-17"],
        [nest(64, {}), nest(65, {})],
        tags=["depth"],
    ),
    _canon(
        "depth-literal-arrays",
        "plain JSON arrays (no tag): scalar at depth 64 passes, 65 fails",
        ["CAN-15", "CAN-16", "CAN-17"],
        [_deep_arrays(64, 1), _deep_arrays(65, 1)],
        tags=["depth"],
    ),
    _canon(
        "depth-literal-objects",
        "nested objects count like arrays: a scalar member at depth 64 passes, 65 fails",
        ["CAN-15", "CAN-16", "CAN-17"],
        [_deep_objects(64, 1), _deep_objects(65, 1)],
        tags=["depth"],
    ),
    _canon(
        "depth-mixed-array-object",
        "alternating arrays and objects: the depth counts both",
        ["CAN-15", "CAN-16"],
        [nest(63, {"k": 1}), nest(64, {"k": 1}), nest(63, {"k": []})],
        tags=["depth"],
    ),
    _canon(
        "depth-dropped-member-unchecked",
        "a member dropped as undefined is never depth-checked; an undefined array element is",
        ["CAN-18", "CAN-11", "CAN-12"],
        [nest(64, {"x": UNDEFINED}), nest(64, [UNDEFINED])],
        tags=["depth"],
    ),
    # key order (CAN-29, CAN-30, DATA-04)
    _canon(
        "keys-utf16-order",
        "members sort by UTF-16 code units: an astral key (D83D..) sorts before U+FF61",
        ["CAN-29", "CAN-30", "DATA-04"],
        [{"\uff61": 1, "\U0001f600": 2, "a": 3, "\u00e9": 4, "\ue000": 5, "": 6}],
        fingerprint=True,
    ),
    _canon(
        "keys-prefix-and-case",
        "a proper prefix sorts first; upper case before lower case",
        ["CAN-29"],
        [{"ab": 1, "a": 2, "B": 3, "b": 4, "a\u0000": 5}],
    ),
    # strings (CAN-25..28)
    _canon(
        "string-escapes",
        "short escapes for quote, backslash, \\b \\f \\n \\r \\t; other controls as lowercase \\u00xx",
        ["CAN-06", "CAN-25", "CAN-27"],
        ['"\\\b\f\n\r\t', "\u0000\u0001\u000b\u000e\u001f", "\u001a/"],
        fingerprint=True,
    ),
    _canon(
        "string-literal-specials",
        "U+007F, U+2028, U+2029 and other non-controls are written literally",
        ["CAN-28"],
        ["\u007f\u2028\u2029\u0085\ufeff\U0001f600"],
        fingerprint=True,
    ),
    _canon(
        "string-lone-surrogates",
        "lone surrogates in key material are written as lowercase \\udxxx escapes",
        ["CAN-26", "DATA-06"],
        [{"s": "\ud800"}, {"s": "x\udfffy"}, {"s": "\udbff\ud800"}, {"\udc00": 1}],
        fingerprint=True,
    ),
    # numbers (CAN-04, CAN-22..24, DATA-11)
    _canon(
        "numbers-exponent-boundaries",
        "ECMAScript number form at the exponent boundaries",
        ["CAN-04", "CAN-23", "CAN-24"],
        [[1e21, 1e20, 123456789012345680000, 1e-7, 1e-6, 0.000001234, 1.5e300, -1e-7]],
        fingerprint=True,
    ),
    _canon(
        "numbers-extremes",
        "the smallest subnormal and the largest finite double",
        ["CAN-04", "CAN-23"],
        [[5e-324, 1.7976931348623157e308, -5e-324]],
        fingerprint=True,
    ),
    _canon(
        "numbers-integral-doubles",
        "1.0 is written 1; 100 and 1e2 are the same number",
        ["CAN-04", "DATA-09"],
        [[1.0, 100, 1e2, -0.5, 0.1, 1 / 3]],
    ),
    _canon(
        "numbers-negative-zero",
        "-0 is written 0 and fingerprints like 0",
        ["CAN-22"],
        [NEG_ZERO, {"value": NEG_ZERO}, {"value": 0}],
        fingerprint=True,
    ),
    _canon(
        "numbers-beyond-2-53",
        "integers past 2^53 first become the nearest double: 2^53+1 is written 9007199254740992",
        ["DATA-11", "CAN-04"],
        [[2**53 + 1], [2**53 + 2], [2**64], [-(2**53) - 1], [12345678901234567890123]],
        fingerprint=True,
    ),
    _canon(
        "numbers-too-large-integer",
        "an integer literal beyond the double range is Infinity and fails",
        ["DATA-12", "CAN-05"],
        [[10**400]],
    ),
    _canon(
        "numbers-non-finite",
        "NaN, Infinity and -Infinity fail, as members and as elements",
        ["CAN-05", "CAN-35"],
        [NAN, {"x": INFINITY}, [NEG_INFINITY]],
    ),
    # JS-only values (CAN-11..14, CAN-19)
    _canon(
        "bigint-fails",
        "a bigint fails anywhere: top level, member, element",
        ["CAN-14", "CAN-35"],
        [bigint(1), {"n": bigint(-5)}, [bigint(0)]],
    ),
    _canon(
        "undefined-members-and-elements",
        "undefined: member dropped, element null, top level null",
        ["CAN-11", "CAN-12", "CAN-13"],
        [{"a": UNDEFINED, "b": 1}, [UNDEFINED, 1], UNDEFINED],
        fingerprint=True,
    ),
    _canon(
        "function-and-symbol-values",
        "functions and symbols: members dropped, elements null, top level null",
        ["CAN-11", "CAN-12", "CAN-13"],
        [{"f": FUNCTION, "s": SYMBOL, "k": 1}, [FUNCTION, SYMBOL], FUNCTION, SYMBOL],
        fingerprint=True,
    ),
    _canon(
        "circular-references",
        "an object or array containing itself fails",
        ["CAN-19", "CAN-35"],
        [{"self": ref(1)}, [ref(1)], {"a": {"up": ref(2)}}],
    ),
    _canon(
        "shared-not-circular",
        "the same plain value twice is not a cycle",
        ["CAN-19"],
        [{"a": [1, 2], "b": [1, 2]}],
    ),
    scenario(
        "tool-name-lone-surrogate",
        "a lone surrogate in a tool name is hashed as U+FFFD (EF BF BD), unlike key material",
        ["FP-02", "FP-04", "FP-06", "FP-07"],
        [
            op("fingerprintToolCall", toolName="to\ud800ol", keyMaterial={}),
            op("fingerprintToolCall", toolName="to\ufffdol", keyMaterial={}),
            op("fingerprintToolCall", toolName="\udfff", keyMaterial={"s": "\udfff"}),
            op("fingerprintToolCall", toolName="\ufffd", keyMaterial={"s": "\udfff"}),
        ],
        tags=["canonical", "fingerprint"],
    ),
    scenario(
        "tool-name-raw",
        "the tool name is inserted raw: quotes, newlines and astral characters are not escaped",
        ["FP-02", "FP-04"],
        [
            op("fingerprintToolCall", toolName='say "hi"\n', keyMaterial=None),
            op("fingerprintToolCall", toolName="\U0001f600", keyMaterial=[]),
            op("fingerprintToolCall", toolName="", keyMaterial=""),
        ],
        tags=["canonical", "fingerprint"],
    ),
]

# Added for the mutation job (tests/mutation/REPORT.md): facts that no other
# vector pinned, each named after the spec statement it holds to.
SCENARIOS += [
    _canon(
        "booleans",
        "true and false are written true and false, also inside arrays and objects",
        ["CAN-03", "CAN-07", "CAN-08"],
        [True, False, [True, False, None], {"t": True, "f": False}],
        fingerprint=True,
    ),
    _canon(
        "nested-strings-and-empty-nesting",
        "nesting wraps any value, a string too, and depth 0 is the value itself",
        ["CAN-06", "CAN-07", "CAN-15"],
        [nest(2, "x"), nest(0, "x"), nest(0, [1])],
        tags=["depth"],
    ),
    _canon(
        "member-named-like-a-tag",
        "an own member named $js is an ordinary member of key material",
        ["CAN-08", "CAN-29"],
        [{"$js": "object", "value": {"$js": "number", "value": "NaN"}}],
        fingerprint=True,
    ),
    _canon(
        "lone-surrogate-only-in-a-member-name",
        "a lone surrogate in a member name (and nowhere else) is escaped and sorts by code unit",
        ["CAN-26", "CAN-29", "CAN-30"],
        [{"\ud800": 1, "\uffff": 2, "a": 3}],
        fingerprint=True,
        tags=["surrogate"],
    ),
    _canon(
        "integer-two-to-the-53",
        "2^53 itself is an ordinary integer, not beyond the safe range",
        ["CAN-04", "DATA-11"],
        [[2**53, -(2**53)]],
    ),
    _canon(
        "integer-just-beyond-two-to-the-53",
        "2^53+1 is read as the nearest double, 2^53",
        ["CAN-04", "DATA-11"],
        [[2**53 + 1]],
    ),
]
