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

Each form has exactly the members shown (ENG-182): :func:`check_form` refuses
any other member, and a ``message`` that is not a string, when the scenario is
read. Every built function counts its invocations (ENG-41).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

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


FORM_MEMBERS: dict[str, frozenset[str]] = {
    "project": frozenset({"function", "fields"}),
    "returns": frozenset({"function", "value"}),
    "returns-undefined": frozenset({"function"}),
    "throws": frozenset({"function", "message"}),
    "resolution-fails": frozenset({"function", "message"}),
}
"""Each function form and the members it has, exactly (ENG-182)."""


def check_form(form: Mapping[str, object], where: str) -> None:
    """Refuse a function form that is not well formed (ENG-182, ENG-23): an unknown
    ``function``, a member the form does not have, ``fields`` that are not lists of
    known transforms, a ``message`` that is not a string. ``where`` names the form."""
    name = form.get("function")
    if not isinstance(name, str) or name not in FORM_MEMBERS:
        raise ScenarioError(f"{where}: unknown loopKey function {stringify(name)}")
    extra = sorted(set(form) - FORM_MEMBERS[name])
    if extra:
        raise ScenarioError(f"{where}: unknown member(s) {', '.join(extra)} of the {name} form")
    if "message" in form and not isinstance(form["message"], str):
        raise ScenarioError(f"{where}.message: the {name} form's message must be a string")
    if name == "project":
        fields = form.get("fields")
        if not isinstance(fields, Mapping) or not all(
            isinstance(steps, list)
            and all(isinstance(step, str) and step in _TRANSFORMS for step in steps)
            for steps in fields.values()
        ):
            raise ScenarioError(f"{where}.fields: project needs fields with known transforms")


def build_loop_key(form: object, tool_name: str, invocations: Counter[str]) -> object:
    """The reference resolver's ``loopKey`` for a JSON form (KEY-*, ENG-39).

    Absent, ``false``, field lists and other values pass through; function forms
    become counting callables; ``resolution-fails`` becomes a :class:`ResolutionFault`.
    A form :func:`check_form` refuses raises :class:`~.errors.ScenarioError` (a
    scenario read from JSON was checked already; a :class:`ToolSpec` built in code
    was not).
    """
    if not isinstance(form, Mapping):
        return form
    check_form(form, f"tool {stringify(tool_name)}: loopKey")
    name = form["function"]
    message = str(form.get("message", ""))  # a string, or "" when left out
    if name == "resolution-fails":
        return ResolutionFault(message)

    body: Callable[[object], object]
    if name == "project":
        projected = cast(Mapping[str, list[str]], form["fields"])

        def body(args: object) -> object:
            return _project(projected, args)
    elif name == "returns":
        value = form.get("value")  # None (null, exempt) when left out

        def body(args: object) -> object:
            return value
    elif name == "returns-undefined":

        def body(args: object) -> object:
            return UNDEFINED
    else:  # throws

        def body(args: object) -> object:
            raise LoopKeyFunctionError(message)

    def counted(args: object) -> object:
        invocations[tool_name] += 1
        return body(args)

    return counted
