"""Function-form ``loopKey`` declarations written as data (ENG-39, ENG-40, ENG-41).

A scenario cannot carry code, so function loop keys are named forms that
every port implements the same way, as a JS function would behave:

* ``{"function": "project", "fields": {"query": ["trim", "lower"], "cwd": []}}``
  returns an object of the listed fields with the string transforms applied
  in order; a missing field is left undefined, and a transform on a value
  that is not a string fails, as calling ``.trim()`` on it would in JS;
* ``{"function": "returns", "value": V}`` returns ``V`` (``null`` exempts);
* ``{"function": "returns-undefined"}`` returns nothing;
* ``{"function": "throws", "message": M}`` fails with ``M``;
* ``{"function": "resolution-fails", "message": M}`` is a test double: the
  resolution itself fails, as it does in JS for argument objects with
  throwing getters or proxies, which JSON cannot carry (ENG-40).

Every built function counts its invocations (ENG-41).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from doomloop_kit.jsvalue.jsjson import array_index, stringify
from doomloop_kit.jsvalue.utf16 import JS_WHITESPACE
from doomloop_kit.reference import UNDEFINED

from .errors import ScenarioError

_TRANSFORMS: dict[str, Callable[[str], str]] = {
    "trim": lambda text: text.strip(JS_WHITESPACE),  # JS trim (TXT-04)
    "lower": str.lower,
}


class LoopKeyFunctionError(Exception):
    """What a function-form loop key throws; the resolver turns it into a fallback."""


@dataclass(frozen=True)
class ResolutionFault:
    """The ``resolution-fails`` double: resolving this tool's identity fails (ENG-40)."""

    message: str


def _member(args: object, name: str) -> object:
    """``args[name]`` as JS reads it: an object's member, an array's element or
    ``length``, and ``undefined`` on anything else (ENG-154)."""
    if isinstance(args, Mapping):
        return args.get(name, UNDEFINED)
    if isinstance(args, list):
        if name == "length":
            return len(args)
        index = array_index(name)
        if index is not None and index < len(args):
            return args[index]
    return UNDEFINED


def _project(fields: Mapping[str, list[str]], args: object) -> object:
    result: dict[str, object] = {}
    for name, transforms in fields.items():
        value = _member(args, name)
        for transform in transforms:
            if not isinstance(value, str):
                raise LoopKeyFunctionError(f"cannot {transform} field {stringify(name)}")
            value = _TRANSFORMS[transform](value)
        result[name] = value
    return result


def build_loop_key(form: object, tool_name: str, invocations: Counter[str]) -> object:
    """The reference resolver's ``loopKey`` for a JSON form (KEY-*, ENG-39).

    Absent, ``false`` and field lists pass through; function forms become
    counting callables; ``resolution-fails`` becomes a :class:`ResolutionFault`.
    Raises :class:`~.errors.ScenarioError` for an unknown form.
    """
    if not isinstance(form, Mapping):
        return form
    name = form.get("function")
    if name == "resolution-fails":
        return ResolutionFault(str(form.get("message", "")))

    body: Callable[[object], object]
    if name == "project":
        fields = form.get("fields")
        if not isinstance(fields, Mapping) or not all(
            isinstance(steps, list)
            and all(isinstance(step, str) and step in _TRANSFORMS for step in steps)
            for steps in fields.values()
        ):
            raise ScenarioError(f"tool {tool_name!r}: project needs fields with known transforms")
        projected: Mapping[str, list[str]] = fields

        def body(args: object) -> object:
            return _project(projected, args)
    elif name == "returns":
        value = form.get("value")

        def body(args: object) -> object:
            return value
    elif name == "returns-undefined":

        def body(args: object) -> object:
            return UNDEFINED
    elif name == "throws":
        message = str(form.get("message", ""))

        def body(args: object) -> object:
            raise LoopKeyFunctionError(message)
    else:
        raise ScenarioError(f"tool {tool_name!r}: unknown loopKey function {name!r}")

    def counted(args: object) -> object:
        invocations[tool_name] += 1
        return body(args)

    return counted
