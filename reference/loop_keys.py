"""Loop-key resolution: what identifies one call of a tool (spec section 4, KEY-01..KEY-24).

Warning texts are the SDK's, byte for byte (KEY-17..KEY-22).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from doomloop_kit.jsvalue.values import UNDEFINED, JsBigInt, JsFunction, is_number

from . import messages

LoopKeyFunction = Callable[[Mapping[str, object]], object]
"""A loop-key function. It returns key material; ``None`` (JS null) exempts
the call; :data:`~doomloop_kit.jsvalue.values.UNDEFINED` ("returned nothing") and raising fall
back to the full arguments (KEY-12)."""

Presence = Literal["own", "in"]
"""How a field list tests that ``args`` holds a name: as an own member (KEY-09,
feature ``json-own-members``) or with JS ``in`` (KEY-23, ``js-inherited-members``)."""

INHERITED: Final[Mapping[str, object]] = {
    name: JsFunction()
    for name in (
        "constructor",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "toString",
        "valueOf",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    )
} | {"__proto__": {}}
"""What JS ``in`` finds on every plain object through ``Object.prototype``, with the
value it reads: a function, or for ``__proto__`` the prototype, whose canonical
form is ``{}`` (KEY-23)."""


@dataclass(frozen=True)
class LoopKeyResolution:
    """``exempt``, ``key`` with key material, or ``fallback`` to the full
    arguments with the SDK's warning text (KEY-01, KEY-17)."""

    kind: Literal["exempt", "key", "fallback"]
    key_material: object = UNDEFINED
    warning: str | None = None

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {"kind": self.kind}
        if self.kind != "exempt":
            result["keyMaterial"] = self.key_material
        if self.warning is not None:
            result["warning"] = self.warning
        return result


def _fallback(args: Mapping[str, object], warning: str) -> LoopKeyResolution:
    return LoopKeyResolution("fallback", args, warning)


def js_typeof(value: object) -> str:
    """JS ``typeof`` of a declaration that is none of the known shapes (KEY-22)."""
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, JsBigInt):
        return "bigint"
    if isinstance(value, JsFunction):
        return "symbol" if value.label == "symbol" else "function"
    return "undefined" if value is UNDEFINED else "object"


def _subset(
    names: list[object] | tuple[object, ...], args: Mapping[str, object], presence: Presence
) -> dict[str, object]:
    """The listed string fields ``args`` holds, with their values (KEY-09, KEY-23)."""
    subset: dict[str, object] = {}
    for name in names:
        if not isinstance(name, str):
            continue
        if name in args:
            subset[name] = args[name]
        elif presence == "in" and name in INHERITED:
            subset[name] = INHERITED[name]
    return subset


def resolve_loop_key_material(
    loop_key: object, args: Mapping[str, object], *, presence: Presence = "own"
) -> LoopKeyResolution:
    """Resolve a tool's ``loopKey`` declaration against one call's arguments (KEY-05..KEY-14).

    ``loop_key`` is :data:`~doomloop_kit.jsvalue.values.UNDEFINED` when the tool declares
    nothing, ``False`` to exempt the tool, a list of field names, or a
    :data:`LoopKeyFunction`; anything else falls back.
    """
    if loop_key is UNDEFINED:
        return LoopKeyResolution("key", args)
    if loop_key is False:
        return LoopKeyResolution("exempt")
    if isinstance(loop_key, list | tuple):
        if not loop_key:
            return _fallback(args, messages.LOOP_KEY_EMPTY)
        subset = _subset(loop_key, args, presence)
        if not subset:
            names = [name for name in loop_key if isinstance(name, str)]
            return _fallback(args, messages.loop_key_fields_absent(names))
        return LoopKeyResolution("key", subset)
    if isinstance(loop_key, JsFunction) and loop_key.label == "function":
        return _fallback(args, messages.LOOP_KEY_RETURNED_UNDEFINED)  # a body that returns nothing
    if callable(loop_key):
        try:
            result = loop_key(args)
        except Exception as error:  # a throwing loopKey must never take down a run
            return _fallback(args, messages.loop_key_threw(str(error)))
        if result is None:
            return LoopKeyResolution("exempt")
        if result is UNDEFINED:
            return _fallback(args, messages.LOOP_KEY_RETURNED_UNDEFINED)
        return LoopKeyResolution("key", result)
    return _fallback(args, messages.loop_key_unsupported(js_typeof(loop_key)))


def names_inherited_member(loop_key: object, args: object) -> bool:
    """True when a field list names a member of :data:`INHERITED` that ``args`` does
    not hold as its own: JS ``in`` and the own-member rule then differ (KEY-23, DIV-01)."""
    if not isinstance(loop_key, list) or not isinstance(args, Mapping):
        return False
    return any(
        isinstance(name, str) and name in INHERITED and name not in args for name in loop_key
    )
