"""A call's arguments and loop identity (ENG-37..ENG-41, ENG-49, ENG-137, ENG-152, ENG-154).

Arguments are parsed as JS ``JSON.parse`` would; a raw string that does not
parse makes the call *malformed*. The identity of a parsed call is its
``loopKey`` resolution, made by the reference resolver.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from doomloop_kit.jsvalue import jsjson
from doomloop_kit.jsvalue.utf16 import JS_WHITESPACE
from doomloop_kit.reference import UNDEFINED, LoopKeyResolution, resolve_loop_key_material

from .loop_key_functions import ResolutionFault, build_loop_key
from .scenario import ToolSpec


class ResolutionError(Exception):
    """Resolving a call's identity failed; the engine guards both call sites (ENG-40, ENG-46)."""


@dataclass(frozen=True)
class Malformed:
    """Arguments that did not parse as JSON: the raw string is the identity (ENG-37)."""

    raw: str


def parse_arguments(raw: str) -> object:
    """The parsed arguments, or :class:`Malformed` (ENG-37, ENG-38, ENG-137).

    The text is trimmed as JS ``trim`` does (TXT-04, not Python's whitespace)
    and then parsed: empty text parses as ``{}``; ``NaN`` and ``Infinity`` are
    not JSON, as in JS, and an integer of any length is a number (one beyond
    the double range is infinite, as ``1e400`` is, DATA-12). Text that does
    not parse is malformed with the raw text as its identity; text that
    parses to a string is malformed too, the parsed string being its identity
    (ENG-137).
    """
    text = raw.strip(JS_WHITESPACE)
    if not text:
        return {}
    try:
        parsed = cast(object, jsjson.DECODER.decode(text))  # JS reads any integer (ENG-38)
    except ValueError:
        return Malformed(raw)
    return Malformed(parsed) if isinstance(parsed, str) else parsed


@dataclass(frozen=True)
class Call:
    """One ``function_call`` item with its arguments parsed."""

    call_id: str
    name: str
    raw: str
    arguments: object
    item: Mapping[str, object]
    """The ``function_call`` item as the model emitted it."""

    @classmethod
    def of(cls, item: Mapping[str, object]) -> Call:
        """Scripted calls are checked by the scenario reader; a persisted pending call
        missing a member reads it as empty rather than failing (ENG-23)."""
        raw = str(item.get("arguments", ""))
        call_id, name = str(item.get("callId", "")), str(item.get("name", ""))
        return cls(call_id, name, raw, parse_arguments(raw), item)

    @property
    def malformed(self) -> bool:
        return isinstance(self.arguments, Malformed)


class IdentityResolver:
    """Resolves ``loopKey`` declarations, counting function invocations (ENG-39, ENG-41)."""

    def __init__(self, tools: tuple[ToolSpec, ...]) -> None:
        self.invocations: Counter[str] = Counter()
        self._loop_keys = {
            tool.name: build_loop_key(tool.loop_key, tool.name, self.invocations) for tool in tools
        }

    def resolve(self, call: Call) -> tuple[LoopKeyResolution, object]:
        """The resolution of a parsed call and the value handed to the resolver.

        Raises :class:`ResolutionError` when the resolution itself fails (ENG-40).
        """
        loop_key = self._loop_keys.get(call.name, UNDEFINED)
        if isinstance(loop_key, ResolutionFault):
            raise ResolutionError(loop_key.message)
        args = {} if call.arguments is None else call.arguments  # ENG-39
        if isinstance(loop_key, list | tuple) and loop_key and not isinstance(args, Mapping):
            return _fields_of_non_object(loop_key, args), args  # ENG-154
        return resolve_loop_key_material(loop_key, cast(Mapping[str, object], args)), args


def _fields_of_non_object(
    fields: list[object] | tuple[object, ...], args: object
) -> LoopKeyResolution:
    """A non-empty field list on arguments that are not an object (ENG-154).

    JS ``in`` on an array finds its index names and ``length``; on a number
    or a boolean it throws, so resolution fails (ENG-40). The fallback keys
    on the array itself.
    """
    if not isinstance(args, list):
        raise ResolutionError("cannot use 'in' to look up loopKey fields in a primitive")
    members: dict[str, object] = {str(index): value for index, value in enumerate(args)}
    members["length"] = len(args)
    resolution = resolve_loop_key_material(fields, members)
    if resolution.kind == "fallback":
        return LoopKeyResolution("fallback", args, resolution.warning)
    return resolution


def retry_identity(resolution: LoopKeyResolution, args: object) -> object:
    """The full arguments, unless the key material already is them (ENG-49)."""
    return UNDEFINED if resolution.key_material is args else args
