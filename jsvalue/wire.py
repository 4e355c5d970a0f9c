"""The JSON encoding of values plain JSON cannot carry (spec/features.md, PROT-05).

Vector files and the harness protocol carry JS-only values as *tagged
objects*: a JSON object whose member ``"$js"`` names the kind. This module
turns tagged JSON into the Python values of :mod:`.values` (:func:`decode`)
and back again (:func:`encode`). The feature each tag needs (the last
column) is named by :func:`doomloop_kit.vectorset.vocabulary.features_of`.

=========================================  ==============================  ===================
tagged form                                Python value                    feature
=========================================  ==============================  ===================
``{"$js": "undefined"}``                   :data:`~.values.UNDEFINED`       ``undefined``
``{"$js": "number", "value": "NaN"}``      ``float("nan")`` (also          ``non-finite-numbers``
                                           ``"Infinity"``, ``"-Infinity"``)
``{"$js": "number", "value": "-0"}``       ``-0.0``                        ``negative-zero``
``{"$js": "bigint", "value": "12"}``       :class:`~.values.JsBigInt`      ``bigint``
``{"$js": "function"}``                    :class:`~.values.JsFunction`    ``function-values``
``{"$js": "symbol"}``                      :class:`~.values.JsFunction`    ``function-values``
``{"$js": "function", "returns": V}``      a loop-key function             ``loop-key-functions``
``{"$js": "function", "throws": "msg"}``   a loop-key function             ``loop-key-functions``
``{"$js": "ref", "up": k}``                the k-th enclosing container    ``circular-references``
``{"$js": "nest", "depth": d, "value": V}``  V inside d one-element arrays  ``deep-nesting``
``{"$js": "anchor", "name": L, "value": V}``  V, an array or object that   ``shared-objects``
                                           later ``alias`` tags name
``{"$js": "alias", "name": L}``            the very object anchor L gave  ``shared-objects``
``{"$js": "bound", "name": L}``            the object the session bound   ``object-identity``
                                           to L (``bindObject``)
``{"$js": "object", "value": {...}}``      that object, its own keys       (core)
                                           literal (a key may be ``$js``)
=========================================  ==============================  ===================

Anchors name an object within one decoded value (one input member); an
``alias`` must follow its anchor's end, so a container that contains itself
is still written ``ref`` (PROT-33, PROT-34).

A loop-key function returning ``{"$js": "undefined"}`` "returns nothing".
Strings holding lone surrogates travel as ordinary ``\\udxxx`` JSON escapes
(feature ``lone-surrogates``); integers beyond +/-2^53 as plain JSON
integers (feature ``large-integers``).

The JSON text around these values, as JS reads and writes it, is
:mod:`.jsjson`'s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from .values import (
    MAX_SAFE_INTEGER,
    UNDEFINED,
    JsBigInt,
    JsFunction,
    is_number,
    to_double,
)

TAG: Final = "$js"


class WireError(ValueError):
    """A tagged value that does not follow the encoding."""


DECODE_DEPTH_LIMIT: Final = 100
"""A tagged value inside this many enclosing arrays and objects is undecodable
(PROT-41); plain JSON that deep is kept as it is, undecoded (PROT-27).

Deeper plain input can only be key material, which fails on depth long
before (CAN-31), or a value echoed back unchanged; compact depth uses the
``nest`` tag, decoded without recursion. Keeping it undecoded bounds the
recursion, also in-process under Python's default recursion limit."""

NEST_DEPTH_LIMIT: Final = 100_000
"""The deepest ``nest`` tag: past it the tag is undecodable (PROT-42)."""


@dataclass(frozen=True)
class Undecoded:
    """Plain JSON at :data:`DECODE_DEPTH_LIMIT`, carried through unchanged (PROT-41)."""

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


def decode(value: object, bindings: Mapping[str, object] | None = None) -> object:
    """Tagged JSON -> the reference's Python values. Raises :class:`WireError`.

    Anchors are scoped to this one call (PROT-33); ``bindings`` are the
    session's bound objects that ``bound`` tags name (PROT-37), ``None``
    outside a session.
    """
    return _decode(value, _Context(bindings))


@dataclass
class _Context:
    """The state of one :func:`decode` call: enclosing containers (``ref``),
    complete anchors and the ones still being decoded (PROT-33, PROT-34)."""

    bindings: Mapping[str, object] | None
    stack: list[object] = field(default_factory=list)
    anchors: dict[str, object] = field(default_factory=dict)
    open_anchors: set[str] = field(default_factory=set)


def _decode(value: object, context: _Context) -> object:
    stack = context.stack
    if len(stack) >= DECODE_DEPTH_LIMIT and isinstance(value, list | Mapping):
        return _undecoded(value)
    if isinstance(value, list):
        items: list[object] = []
        stack.append(items)
        items.extend(_decode(item, context) for item in value)
        stack.pop()
        return items
    if not isinstance(value, Mapping):
        return value
    if TAG not in value:
        return _decode_members(value, context)
    return _decode_tag(value, context)


def _undecoded(value: list[object] | Mapping[str, object]) -> Undecoded:
    """Plain JSON at the decode limit, kept as it is; a tag there is undecodable (PROT-41).
    Walked without recursion: the value may be nested thousands deep (PROT-27)."""
    pending: list[object] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, Mapping):
            if TAG in item:
                raise WireError(f"a tagged value inside {DECODE_DEPTH_LIMIT} or more containers")
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return Undecoded(value)


def _decode_members(value: Mapping[str, object], context: _Context) -> dict[str, object]:
    members: dict[str, object] = {}
    context.stack.append(members)
    for key, member in value.items():
        members[key] = _decode(member, context)
    context.stack.pop()
    return members


def _label(value: Mapping[str, object]) -> str:
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise WireError(f"{value[TAG]} name={name!r} is not a non-empty string")
    return name


def _decode_anchor(value: Mapping[str, object], context: _Context) -> object:
    """An array or object that later ``alias`` tags of the same member name (PROT-33)."""
    name = _label(value)
    if name in context.anchors or name in context.open_anchors:
        raise WireError(f"anchor {name!r} is defined twice")
    context.open_anchors.add(name)
    result = _decode(value.get("value"), context)
    context.open_anchors.discard(name)
    if not isinstance(result, dict | list):
        raise WireError(f"anchor {name!r} holds no array or object")
    context.anchors[name] = result
    return result


def _decode_alias(value: Mapping[str, object], context: _Context) -> object:
    """The very object an earlier, complete anchor decoded to (PROT-33, PROT-34)."""
    name = _label(value)
    if name in context.open_anchors:
        raise WireError(f"alias {name!r} inside its own anchor: a cycle is written ref")
    if name not in context.anchors:
        raise WireError(f"alias {name!r} names no earlier anchor")
    return context.anchors[name]


def _decode_bound(value: Mapping[str, object], context: _Context) -> object:
    """The object the session bound to this name with ``bindObject`` (PROT-37)."""
    name = _label(value)
    if context.bindings is None:
        raise WireError(f"bound {name!r} outside a session operation")
    if name not in context.bindings:
        raise WireError(f"bound {name!r} names no object bound in this session")
    return context.bindings[name]


def _decode_tag(value: Mapping[str, object], context: _Context) -> object:
    kind = value[TAG]
    stack = context.stack
    if not isinstance(kind, str):
        raise WireError(f"tag kind {kind!r} is not a string (PROT-42)")
    if kind == "undefined":
        return UNDEFINED
    number = value.get("value")
    if kind == "number" and isinstance(number, str) and number in _NUMBERS:
        return _NUMBERS[number]
    if kind == "bigint":
        digits = value.get("value")
        if not isinstance(digits, str) or not _BIGINT_DIGITS.fullmatch(digits):
            raise WireError(f"bad bigint {digits!r} (PROT-26: digits are -?[0-9]+)")
        return JsBigInt.from_digits(digits)
    if kind == "symbol":
        return JsFunction("symbol")
    if kind == "function":
        if "returns" in value:
            return LoopKeyFunction(returns=_decode(value["returns"], context))
        if isinstance(value.get("throws"), str):
            return LoopKeyFunction(throws=str(value["throws"]))
        return JsFunction("function")
    if kind == "ref":
        up = _whole(value.get("up"))
        if up is None or not 1 <= up <= len(stack):
            raise WireError(f"ref up={value.get('up')!r} names no enclosing container")
        return stack[-up]
    if kind == "nest":
        depth = _whole(value.get("depth"))
        if depth is None or not 0 <= depth <= NEST_DEPTH_LIMIT:
            raise WireError(
                f"nest depth={value.get('depth')!r} is not an integer from 0 to {NEST_DEPTH_LIMIT}"
            )
        result = _decode(value.get("value"), context)
        for _ in range(depth):
            result = [result]
        return result
    if kind in _LABELLED:
        return _LABELLED[kind](value, context)
    if kind == "object" and isinstance(value.get("value"), Mapping):
        literal = value["value"]
        assert isinstance(literal, Mapping)
        return _decode_members(literal, context)
    raise WireError(f"unknown or malformed tagged value {dict(value)!r}")


def _whole(value: object) -> int | None:
    """``ref``'s ``up`` or ``nest``'s ``depth`` as an int: a JSON number with a whole
    value, ``1.0`` being ``1`` (DATA-09, PROT-42); None for anything else."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_LABELLED: Final = {"anchor": _decode_anchor, "alias": _decode_alias, "bound": _decode_bound}


def encode(value: object, *, share: bool = False) -> object:
    """The reference's Python values -> tagged JSON (cycles become ``ref``).

    A container met again outside itself is written out again, as results
    are (PROT-35); with ``share`` it becomes an ``alias`` of an ``anchor``
    named ``a1``, ``a2``, ... in order of first appearance (PROT-33), so that
    ``decode(encode(v, share=True))`` keeps every identity of ``v``.
    """
    shared = _shared_containers(value) if share else set()
    return _encode(value, {}, _Encoder(shared))


def _shared_containers(value: object) -> set[int]:
    """Ids of the containers reachable more than once other than through a cycle."""
    counts: dict[int, int] = {}
    pending: list[tuple[object, tuple[int, ...]]] = [(value, ())]
    while pending:
        item, ancestors = pending.pop()
        if isinstance(item, LoopKeyFunction):
            pending.append((item.returns, ancestors))
        if not isinstance(item, Mapping | list) or id(item) in ancestors:
            continue
        counts[id(item)] = counts.get(id(item), 0) + 1
        if counts[id(item)] == 1:
            children = item.values() if isinstance(item, Mapping) else item
            pending.extend((child, (*ancestors, id(item))) for child in children)
    return {marker for marker, count in counts.items() if count > 1}


class _Encoder:
    """One :func:`encode` call: the shared containers and the anchors written so far."""

    def __init__(self, shared: set[int]) -> None:
        self.shared = shared
        self.anchors: dict[int, str] = {}


def _encode(value: object, stack: dict[int, int], encoder: _Encoder) -> object:
    """``stack``: the enclosing containers, by id, each with its position (a lookup of one
    step whatever the depth: a value 100,000 levels deep is encoded in linear time)."""
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
        return {TAG: "bigint", "value": value.digits}
    if isinstance(value, JsFunction):
        return {TAG: "symbol" if value.label == "symbol" else "function"}
    if isinstance(value, LoopKeyFunction):
        if value.throws is not None:
            return {TAG: "function", "throws": value.throws}
        return {TAG: "function", "returns": _encode(value.returns, stack, encoder)}
    if isinstance(value, Mapping | list):
        if id(value) in stack:
            return {TAG: "ref", "up": len(stack) - stack[id(value)]}
        if id(value) in encoder.anchors:
            return {TAG: "alias", "name": encoder.anchors[id(value)]}
        stack[id(value)] = len(stack)
        try:
            written = _encode_container(value, stack, encoder)
        finally:
            del stack[id(value)]
        if id(value) not in encoder.shared:
            return written
        name = encoder.anchors[id(value)] = f"a{len(encoder.anchors) + 1}"
        return {TAG: "anchor", "name": name, "value": written}
    return value


def _encode_container(
    value: Mapping[object, object] | list[object], stack: dict[int, int], encoder: _Encoder
) -> object:
    # loops, not comprehensions: two frames a level, so a value MAX_DEPTH deep fits the
    # recursion limit the kit sets (jsjson.RECURSION_LIMIT)
    if isinstance(value, list):
        items = []
        for item in value:
            items.append(_encode(item, stack, encoder))
        return items
    members = {}
    for key, member in value.items():
        members[str(key)] = _encode(member, stack, encoder)
    return {TAG: "object", "value": members} if TAG in members else members


def _negative_zero(value: float) -> bool:
    return value == 0 and math.copysign(1.0, value) < 0
