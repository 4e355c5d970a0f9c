"""What an engine scenario is made of, read from plain JSON (ENG-16, ENG-23).

A scenario is configuration + tool declarations + hook handlers + the
caller's request + runs; each run is a fresh turn or a decision resume with
its own scripted model. Everything is data, so that a scenario can be stored
as a vector and replayed by any port. :func:`Scenario.from_json` rejects a
malformed scenario with :class:`ScenarioError` before anything runs.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, cast

from doomloop_kit.reference import UNDEFINED, CanonicalizationError, canonicalize

from .errors import ScenarioError
from .loop_key_functions import build_loop_key

ToolKind = Literal["executable", "approval", "hitl", "manual"]
TOOL_KINDS: tuple[ToolKind, ...] = ("executable", "approval", "hitl", "manual")


def _object(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{where}: expected an object, got {type(value).__name__}")
    return cast(Mapping[str, object], value)


def _known(data: Mapping[str, object], allowed: set[str], where: str) -> None:
    """Reject members this format does not define, so a typo is an error (ENG-23)."""
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ScenarioError(f"{where}: unknown member(s) {', '.join(unknown)}")


def _list(value: object, where: str) -> Sequence[object]:
    if not isinstance(value, list | tuple):
        raise ScenarioError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _string(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ScenarioError(f"{where}: expected a string, got {type(value).__name__}")
    return value


def _message_content(item: Mapping[str, object], where: str) -> None:
    """A message item's ``content`` is a list of objects, and every ``output_text``
    part carries its text as a string (ENG-23, ENG-174)."""
    for number, part in enumerate(_list(item.get("content"), f"{where}.content")):
        data = _object(part, f"{where}.content[{number}]")
        if data.get("type") == "output_text":
            _string(data.get("text"), f"{where}.content[{number}].text")


def _strings(value: object, where: str) -> tuple[str, ...]:
    return tuple(_string(item, f"{where}[{i}]") for i, item in enumerate(_list(value, where)))


def _tool_choice(choice: object, where: str) -> None:
    """A tool choice is not ``null`` (ENG-172) and has a canonical JSON form, the
    form its consumption is recorded under (ENG-173, ENG-145)."""
    if choice is None:
        raise ScenarioError(f"{where}: null is not a tool choice")
    try:
        canonicalize(choice)
    except CanonicalizationError as error:
        raise ScenarioError(f"{where}: no canonical JSON form ({error})") from None


def _json(value: object) -> object:
    """A private copy of a JSON value, so that later mutation cannot reach it."""
    return copy.deepcopy(value)


@dataclass(frozen=True)
class ToolSpec:
    """One declared tool: name, kind, ``loopKey`` form and what its body does (ENG-18).

    ``loop_key`` is the JSON form: absent (UNDEFINED), ``false``, a list of
    field names, or a named function object (see :mod:`.loop_key_functions`).
    ``result`` is what the body returns; ``fails`` makes the body fail with
    that message instead (ENG-21).
    """

    name: str
    kind: ToolKind = "executable"
    loop_key: object = UNDEFINED
    result: object = field(default_factory=lambda: {"ok": True})
    fails: str | None = None

    @property
    def executable(self) -> bool:
        return self.kind != "manual"

    @classmethod
    def from_json(cls, value: object, where: str) -> ToolSpec:
        data = _object(value, where)
        _known(data, {"name", "kind", "loopKey", "result", "fails"}, where)
        kind = data.get("kind", "executable")
        if kind not in TOOL_KINDS:
            raise ScenarioError(f"{where}.kind: unknown tool kind {kind!r}")
        fails = data.get("fails")
        return cls(
            name=_string(data.get("name"), f"{where}.name"),
            kind=kind,
            loop_key=_json(data["loopKey"]) if "loopKey" in data else UNDEFINED,
            result=_json(data.get("result", {"ok": True})),
            fails=None if fails is None else _string(fails, f"{where}.fails"),
        )


@dataclass(frozen=True)
class HandlerSpec:
    """A ``DoomLoopDetected`` handler with a fixed outcome (ENG-91..ENG-97).

    ``tool`` registers it for one tool name; ``when`` holds payload members it
    requires (equality); ``returns`` is its raw result (UNDEFINED: nothing);
    ``fails`` makes it fail with that message.
    """

    tool: str | None = None
    when: Mapping[str, object] = field(default_factory=dict)
    returns: object = UNDEFINED
    fails: str | None = None

    @classmethod
    def from_json(cls, value: object, where: str) -> HandlerSpec:
        data = _object(value, where)
        _known(data, {"tool", "when", "returns", "fails"}, where)
        tool, fails = data.get("tool"), data.get("fails")
        return cls(
            tool=None if tool is None else _string(tool, f"{where}.tool"),
            when=dict(_object(data.get("when", {}), f"{where}.when")),
            returns=_json(data["returns"]) if "returns" in data else UNDEFINED,
            fails=None if fails is None else _string(fails, f"{where}.fails"),
        )


@dataclass(frozen=True)
class RequestSpec:
    """The caller's request: model, fallback models, tool choice, stopWhen (ENG-132, ENG-145)."""

    model: str = "cheap-model"
    models: tuple[str, ...] | None = None
    tool_choice: object = UNDEFINED
    tool_choice_from: int = 0
    stop_when_steps: int | None = None
    allow_final_response: object = True
    """As given (ENG-23: only ``false`` turns it off; a string is the directive, ENG-147)."""

    @classmethod
    def from_json(cls, value: object, where: str) -> RequestSpec:
        data = _object(value, where)
        _known(
            data,
            {
                "model",
                "models",
                "toolChoice",
                "toolChoiceFromDispatch",
                "stopWhenSteps",
                "allowFinalResponse",
            },
            where,
        )
        models = data.get("models")
        steps = data.get("stopWhenSteps")
        if "toolChoice" in data:
            _tool_choice(data["toolChoice"], f"{where}.toolChoice")
        start = _count(data.get("toolChoiceFromDispatch", 0), where)
        if steps is not None:
            steps = _count(steps, where)
        return cls(
            model=_string(data.get("model", "cheap-model"), f"{where}.model"),
            models=None if models is None else _strings(models, f"{where}.models"),
            tool_choice=_json(data["toolChoice"]) if "toolChoice" in data else UNDEFINED,
            tool_choice_from=start,
            stop_when_steps=steps,
            allow_final_response=_json(data.get("allowFinalResponse", True)),
        )


def _count(value: object, where: str) -> int:
    """A dispatch or step count (ENG-23): a JSON number whose value is an integer, as JS
    ``Number.isInteger`` reads it (``2``, ``2.0`` and ``2e0`` are 2); ``true`` and
    ``false`` are not counts."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScenarioError(f"{where}: dispatch and step counts must be integers")
    if isinstance(value, float):
        if not value.is_integer():  # a fraction, or not finite
            raise ScenarioError(f"{where}: dispatch and step counts must be integers")
        return int(value)
    return value


@dataclass(frozen=True)
class ScriptedResponse:
    """One scripted model response: its output items, in order (ENG-19)."""

    output: tuple[Mapping[str, object], ...]

    @classmethod
    def from_json(cls, value: object, where: str) -> ScriptedResponse:
        data = _object(value, where)
        _known(data, {"output"}, where)
        items = _list(data.get("output"), f"{where}.output")
        output = []
        for index, raw in enumerate(items):
            item = _object(raw, f"{where}.output[{index}]")
            kind = _string(item.get("type"), f"{where}.output[{index}].type")
            if kind == "function_call":
                for member in ("name", "arguments", "callId"):
                    _string(item.get(member), f"{where}.output[{index}].{member}")
            if kind == "message":
                _message_content(item, f"{where}.output[{index}]")
            output.append(cast(Mapping[str, object], _json(item)))
        return cls(tuple(output))


@dataclass(frozen=True)
class RunSpec:
    """One invocation: a fresh turn (``input``) or a decision resume (ENG-160, ENG-163)."""

    doom_loop: object = UNDEFINED
    """UNDEFINED: the scenario's option applies."""
    input: tuple[Mapping[str, object], ...] | None = None
    approve: tuple[str, ...] = ()
    reject: tuple[str, ...] = ()
    model: tuple[ScriptedResponse, ...] = ()
    empty_text: bool = False
    """The input was the empty string: later dispatches may leave it out (ENG-174)."""

    @property
    def decision_resume(self) -> bool:
        """A non-empty approval or rejection list makes a decision resume (ENG-158)."""
        return bool(self.approve or self.reject)

    @classmethod
    def from_json(cls, value: object, where: str) -> RunSpec:
        data = _object(value, where)
        _known(data, {"doomLoop", "input", "approve", "reject", "model"}, where)
        given = data.get("input")
        items: tuple[Mapping[str, object], ...] | None
        if isinstance(given, str):
            items = ({"role": "user", "content": given},)
        elif given is None:
            items = None
        else:
            listed = _list(given, f"{where}.input")
            items = tuple(
                cast(Mapping[str, object], _json(_object(item, f"{where}.input[{i}]")))
                for i, item in enumerate(listed)
            )
        run = cls(
            doom_loop=_json(data["doomLoop"]) if "doomLoop" in data else UNDEFINED,
            input=items,
            empty_text=given == "",
            approve=_strings(data.get("approve", []), f"{where}.approve"),
            reject=_strings(data.get("reject", []), f"{where}.reject"),
            model=tuple(
                ScriptedResponse.from_json(response, f"{where}.model[{i}]")
                for i, response in enumerate(_list(data.get("model", []), f"{where}.model"))
            ),
        )
        if run.input is None and not run.decision_resume:
            raise ScenarioError(f"{where}: a run needs input (fresh turn) or decisions")
        return run


@dataclass(frozen=True)
class Scenario:
    """A whole engine scenario (ENG-16)."""

    id: str
    tools: tuple[ToolSpec, ...] = ()
    hooks: tuple[HandlerSpec, ...] = ()
    request: RequestSpec = field(default_factory=RequestSpec)
    runs: tuple[RunSpec, ...] = ()
    doom_loop: object = UNDEFINED
    state_accessor: bool = True
    initial_state: object = None

    @cached_property
    def _by_name(self) -> dict[str, ToolSpec]:
        return {tool.name: tool for tool in self.tools}

    def tool(self, name: str) -> ToolSpec | None:
        """The declared tool of that name, or None: an unknown call (ENG-18)."""
        return self._by_name.get(name)

    @classmethod
    def from_json(cls, value: object) -> Scenario:
        """Read and check a scenario (ENG-23); raises :class:`ScenarioError`."""
        data = _object(value, "scenario")
        _known(
            data,
            {
                "id",
                "tools",
                "hooks",
                "request",
                "runs",
                "doomLoop",
                "stateAccessor",
                "initialState",
            },
            "scenario",
        )
        tools = tuple(
            ToolSpec.from_json(tool, f"tools[{i}]")
            for i, tool in enumerate(_list(data.get("tools", []), "tools"))
        )
        for tool in tools:
            build_loop_key(tool.loop_key, tool.name, Counter())  # ENG-23: check the form now
        names: set[str] = set()
        for i, tool in enumerate(tools):
            if tool.name in names:
                raise ScenarioError(f"tools[{i}].name: a second tool named {tool.name!r}")
            names.add(tool.name)
        initial = data.get("initialState")
        if initial is not None:
            _object(initial, "initialState")
        runs = tuple(
            RunSpec.from_json(run, f"runs[{i}]")
            for i, run in enumerate(_list(data.get("runs"), "runs"))
        )
        return cls(
            id=_string(data.get("id"), "id"),
            tools=tools,
            hooks=tuple(
                HandlerSpec.from_json(hook, f"hooks[{i}]")
                for i, hook in enumerate(_list(data.get("hooks", []), "hooks"))
            ),
            request=RequestSpec.from_json(data.get("request", {}), "request"),
            runs=runs,
            doom_loop=_json(data.get("doomLoop", UNDEFINED)),
            state_accessor=data.get("stateAccessor", True) is not False,
            initial_state=_json(initial),
        )
