"""The JSON encoding of values plain JSON cannot carry (spec/features.md).

Vector files and the harness protocol carry JS-only values as *tagged
objects*: a JSON object whose member ``"$js"`` names the kind. This module
turns tagged JSON into the reference's Python values (:func:`decode`), back
again (:func:`encode`), and names the features a JSON value needs
(:func:`features_of`).

=========================================  ==============================  ===================
tagged form                                Python value                    feature
=========================================  ==============================  ===================
``{"$js": "undefined"}``                   :data:`~.jsvalues.UNDEFINED`     ``undefined``
``{"$js": "number", "value": "NaN"}``      ``float("nan")`` (also          ``non-finite-numbers``
                                           ``"Infinity"``, ``"-Infinity"``)
``{"$js": "number", "value": "-0"}``       ``-0.0``                        ``negative-zero``
``{"$js": "bigint", "value": "12"}``       :class:`~.jsvalues.JsBigInt`    ``bigint``
``{"$js": "function"}``                    :class:`~.jsvalues.JsFunction`  ``function-values``
``{"$js": "symbol"}``                      :class:`~.jsvalues.JsFunction`  ``function-values``
``{"$js": "function", "returns": V}``      a loop-key function             ``loop-key-functions``
``{"$js": "function", "throws": "msg"}``   a loop-key function             ``loop-key-functions``
``{"$js": "ref", "up": k}``                the k-th enclosing container    ``circular-references``
``{"$js": "nest", "depth": d, "value": V}``  V inside d one-element arrays  ``deep-nesting``
``{"$js": "object", "value": {...}}``      that object, its own keys       (core)
                                           literal (a key may be ``$js``)
=========================================  ==============================  ===================

A loop-key function returning ``{"$js": "undefined"}`` "returns nothing".
Strings holding lone surrogates travel as ordinary ``\\udxxx`` JSON escapes
(feature ``lone-surrogates``); integers beyond +/-2^53 as plain JSON
integers (feature ``large-integers``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from .jsvalues import MAX_SAFE_INTEGER, UNDEFINED, JsBigInt, JsFunction, is_number, to_double

TAG: Final = "$js"

FEATURES: Final = (
    "undefined",
    "non-finite-numbers",
    "negative-zero",
    "bigint",
    "function-values",
    "loop-key-functions",
    "circular-references",
    "deep-nesting",
    "lone-surrogates",
    "large-integers",
    "json-own-members",
    "js-inherited-members",
    "js-coercion",
    "engine",
)
"""The controlled feature vocabulary, in the order spec/features.md lists it (``engine``:
the engine level, operation ``runScenario``; never computed from a monitor input)."""


class WireError(ValueError):
    """A tagged value that does not follow the encoding."""


DECODE_DEPTH_LIMIT: Final = 200
"""Plain JSON nested deeper than this is kept as it is, undecoded (PROT-27).

No vector places a tagged value or plain JSON this deep (features.md: the
deepest plain nesting is 65, the deepest tag 4; compact depth uses the
``nest`` tag, decoded without recursion). Deeper input can only be key
material, which fails on depth long before (CAN-31), or a value echoed back
unchanged. Keeping it undecoded bounds the recursion, also in-process under
Python's default recursion limit."""


@dataclass(frozen=True)
class Undecoded:
    """A JSON value below :data:`DECODE_DEPTH_LIMIT`, carried through unchanged."""

    json: object

    def __repr__(self) -> str:
        return "Undecoded(...)"


_BIGINT_DIGITS: Final = re.compile(r"-?[0-9]+", re.ASCII)


@dataclass(frozen=True)
class LoopKeyFunction:
    """A loop-key function in data form: it returns ``returns`` or raises (KEY-15, KEY-20)."""

    returns: object = UNDEFINED
    throws: str | None = None

    def __call__(self, args: Mapping[str, object]) -> object:
        if self.throws is not None:
            raise RuntimeError(self.throws)
        return self.returns


_NUMBERS: Final[dict[str, float]] = {
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
    "-0": -0.0,
}


def decode(value: object) -> object:
    """Tagged JSON -> the reference's Python values. Raises :class:`WireError`."""
    return _decode(value, [])


def _decode(value: object, stack: list[object]) -> object:
    if len(stack) >= DECODE_DEPTH_LIMIT and isinstance(value, list | Mapping):
        return Undecoded(value)
    if isinstance(value, list):
        items: list[object] = []
        stack.append(items)
        items.extend(_decode(item, stack) for item in value)
        stack.pop()
        return items
    if not isinstance(value, Mapping):
        return value
    if TAG not in value:
        return _decode_members(value, stack)
    return _decode_tag(value, stack)


def _decode_members(value: Mapping[str, object], stack: list[object]) -> dict[str, object]:
    members: dict[str, object] = {}
    stack.append(members)
    for key, member in value.items():
        members[key] = _decode(member, stack)
    stack.pop()
    return members


def _decode_tag(value: Mapping[str, object], stack: list[object]) -> object:
    kind = value[TAG]
    if kind == "undefined":
        return UNDEFINED
    if kind == "number" and value.get("value") in _NUMBERS:
        return _NUMBERS[str(value["value"])]
    if kind == "bigint":
        digits = value.get("value")
        if not isinstance(digits, str) or not _BIGINT_DIGITS.fullmatch(digits):
            raise WireError(f"bad bigint {digits!r} (PROT-26: digits are -?[0-9]+)")
        return JsBigInt(int(digits))
    if kind == "symbol":
        return JsFunction("symbol")
    if kind == "function":
        if "returns" in value:
            return LoopKeyFunction(returns=_decode(value["returns"], stack))
        if isinstance(value.get("throws"), str):
            return LoopKeyFunction(throws=str(value["throws"]))
        return JsFunction("function")
    if kind == "ref":
        up = value.get("up")
        if not isinstance(up, int) or isinstance(up, bool) or not 1 <= up <= len(stack):
            raise WireError(f"ref up={up!r} names no enclosing container")
        return stack[-up]
    if kind == "nest":
        depth = value.get("depth")
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
            raise WireError(f"nest depth={depth!r} is not a non-negative integer")
        result = _decode(value.get("value"), stack)
        for _ in range(depth):
            result = [result]
        return result
    if kind == "object" and isinstance(value.get("value"), Mapping):
        literal = value["value"]
        assert isinstance(literal, Mapping)
        return _decode_members(literal, stack)
    raise WireError(f"unknown or malformed tagged value {dict(value)!r}")


def encode(value: object) -> object:
    """The reference's Python values -> tagged JSON (cycles become ``ref``)."""
    return _encode(value, [])


def _encode(value: object, stack: list[int]) -> object:
    if is_number(value) and isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        # the number JS holds for this literal (DATA-11): the nearest double or +/-Infinity
        double = to_double(value)
        value = int(double) if math.isfinite(double) else double
    if value is UNDEFINED:
        return {TAG: "undefined"}
    if isinstance(value, Undecoded):
        return value.json
    if isinstance(value, float) and (not math.isfinite(value) or _negative_zero(value)):
        text = (
            "-0"
            if _negative_zero(value)
            else ("NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity"))
        )
        return {TAG: "number", "value": text}
    if isinstance(value, JsBigInt):
        return {TAG: "bigint", "value": str(value.value)}
    if isinstance(value, JsFunction):
        return {TAG: "symbol" if value.label == "symbol" else "function"}
    if isinstance(value, LoopKeyFunction):
        if value.throws is not None:
            return {TAG: "function", "throws": value.throws}
        return {TAG: "function", "returns": _encode(value.returns, stack)}
    if isinstance(value, Mapping | list):
        if id(value) in stack:
            return {TAG: "ref", "up": len(stack) - stack.index(id(value))}
        stack.append(id(value))
        try:
            if isinstance(value, list):
                return [_encode(item, stack) for item in value]
            members = {str(key): _encode(member, stack) for key, member in value.items()}
            return {TAG: "object", "value": members} if TAG in members else members
        finally:
            stack.pop()
    return value


def _negative_zero(value: float) -> bool:
    return value == 0 and math.copysign(1.0, value) < 0


_LONE_SURROGATE_ESCAPE: Final = re.compile("[\ud800-\udfff]")


def features_of(value: object) -> set[str]:
    """The features a tagged JSON value needs (spec/features.md)."""
    found: set[str] = set()
    _scan(value, found)
    return found


def _scan(value: object, found: set[str]) -> None:
    if isinstance(value, str):
        if _LONE_SURROGATE_ESCAPE.search(
            value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        ):
            found.add("lone-surrogates")
    elif is_number(value) and isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        found.add("large-integers")
    elif isinstance(value, list):
        for item in value:
            _scan(item, found)
    elif isinstance(value, Mapping):
        for key in value:
            _scan(key, found)
        if TAG in value and (feature := _tag_feature(value)) != "core":
            found.add(feature)
        for member in value.values():
            _scan(member, found)


def _tag_feature(value: Mapping[str, object]) -> str:
    kind = value[TAG]
    if kind == "number":
        return "negative-zero" if value.get("value") == "-0" else "non-finite-numbers"
    if kind == "function" and ("returns" in value or "throws" in value):
        return "loop-key-functions"
    simple = {
        "undefined": "undefined",
        "bigint": "bigint",
        "function": "function-values",
        "symbol": "function-values",
        "ref": "circular-references",
        "nest": "deep-nesting",
    }
    return simple.get(str(kind), "core")


# -- inputs that need JS coercion (feature js-coercion, CFG-45) --------------------

TEXT_NUMBER_OPTIONS: Final = (
    "maxPeriodTokens",
    "minRepeats",
    "minCoveredTokens",
    "maxWindowTokens",
)


def _given(members: object, name: str) -> object:
    """A tagged JSON member that is given: neither absent, undefined nor null."""
    if not isinstance(members, Mapping) or TAG in members:
        return None
    value = members.get(name)
    return None if value is None or value == {TAG: "undefined"} else value


def _is_number(value: object) -> bool:
    return is_number(value) or (isinstance(value, Mapping) and value.get(TAG) == "number")


def _coerced_text(options: object, *, enabled: bool) -> bool:
    numbers = (_given(options, name) for name in TEXT_NUMBER_OPTIONS)
    if any(value is not None and not _is_number(value) for value in numbers):
        return True
    flag = _given(options, "enabled") if enabled else None
    return flag is not None and not isinstance(flag, bool)


def uses_js_coercion(request: Mapping[str, object]) -> bool:
    """True when a request (tagged JSON, ``op`` and inputs) needs feature ``js-coercion``
    (CFG-45): a text option that is not a number, a non-boolean ``text.enabled``
    (``create``/``resolveOption``/``resume`` options, ``detectTextRepetition``),
    or a non-boolean ``allowEscalate`` (``resolveLadderAction``, PROT-28)."""
    op = request.get("op")
    if op == "detectTextRepetition":
        return _coerced_text(_given(request, "options"), enabled=False)
    if op == "resolveLadderAction":
        flag = request.get("allowEscalate", True)  # null is read by truthiness too
        return flag != {TAG: "undefined"} and not isinstance(flag, bool)
    if op in ("create", "resolveOption"):
        return _coerced_text(_given(_given(request, "option"), "text"), enabled=True)
    return False
