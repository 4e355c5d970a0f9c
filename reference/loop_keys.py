"""Loop-key resolution: what identifies one call of a tool (spec section 4, KEY-01)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from .jsvalues import UNDEFINED

LoopKeyFunction = Callable[[Mapping[str, object]], object]
"""A loop-key function. It returns key material; ``None`` (JS null) exempts
the call; :data:`~.jsvalues.UNDEFINED` ("returned nothing") and raising fall
back to the full arguments (KEY-12)."""


@dataclass(frozen=True)
class LoopKeyResolution:
    """``exempt``, ``key`` with key material, or ``fallback`` to the full
    arguments with an informative warning (KEY-01, KEY-02)."""

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


def resolve_loop_key_material(loop_key: object, args: Mapping[str, object]) -> LoopKeyResolution:
    """Resolve a tool's ``loopKey`` declaration against one call's arguments.

    KEY-05, KEY-06, KEY-07, KEY-08, KEY-09, KEY-12.

    ``loop_key`` is :data:`~.jsvalues.UNDEFINED` when the tool declares
    nothing, ``False`` to exempt the tool, a list of field names, or a
    :data:`LoopKeyFunction`; anything else falls back.
    """
    if loop_key is UNDEFINED:
        return LoopKeyResolution("key", args)
    if loop_key is False:
        return LoopKeyResolution("exempt")
    if isinstance(loop_key, list | tuple):
        if not loop_key:
            return _fallback(args, "loopKey lists no fields: every call would share one identity")
        subset = {name: args[name] for name in loop_key if isinstance(name, str) and name in args}
        if not subset:
            return _fallback(args, "none of the loopKey fields is present in the arguments")
        return LoopKeyResolution("key", subset)
    if callable(loop_key):
        try:
            result = loop_key(args)
        except Exception as error:  # a throwing loopKey must never take down a run
            return _fallback(args, f"loopKey function raised {type(error).__name__}: {error}")
        if result is None:
            return LoopKeyResolution("exempt")
        if result is UNDEFINED:
            return _fallback(args, "loopKey function returned nothing")
        return LoopKeyResolution("key", result)
    return _fallback(args, f"unsupported loopKey declaration of type {type(loop_key).__name__}")
