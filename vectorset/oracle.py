"""The oracle: one vector step (or protocol request) run through the reference.

A step names an operation (``op``, one of :mod:`.vocabulary`'s) and carries
its inputs as tagged JSON (:mod:`doomloop_kit.jsvalue.wire`). The oracle is
the single place that maps an operation onto the reference API and its
result onto the wire, so the vector generator, the replay test and the
Python harness agree by construction. What a step expects of the result is
:mod:`.expectations`'.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeVar

from doomloop_kit.jsvalue import wire
from doomloop_kit.jsvalue.jsjson import stringify
from doomloop_kit.jsvalue.values import UNDEFINED, JsTypeError, finite_number, truthy
from doomloop_kit.reference import (
    CanonicalizationError,
    DoomLoopMonitor,
    Ladder,
    ToolCall,
    canonicalize,
    detect_text_repetition,
    fingerprint_key_material,
    fingerprint_tool_call,
    resolve_doom_loop_option,
    resolve_ladder_action,
    resolve_loop_key_material,
)
from doomloop_kit.reference.config import RUNGS
from doomloop_kit.reference.loop_keys import Presence, names_inherited_member
from doomloop_kit.reference.verdicts import DetectorKind

from . import vocabulary
from .expectations import ENGINE_ORDER
from .vocabulary import ENGINE_OP, MEMBER_RULES, OpError, UndecodableInput

T = TypeVar("T")


def _input(
    request: Mapping[str, object],
    name: str,
    *,
    required: bool = True,
    bindings: Mapping[str, object] | None = None,
) -> object:
    """A decoded input member; absent -> UNDEFINED, or bad-request when required.
    ``bindings`` are the session's bound objects (PROT-37), None for functions."""
    if name not in request:
        if required:
            raise OpError("bad-request", f"missing member {name!r}")
        return UNDEFINED
    try:
        return wire.decode(request[name], bindings)
    except wire.WireError as error:
        raise UndecodableInput(str(error)) from error


def _typed(
    request: Mapping[str, object],
    name: str,
    kind: type[T],
    bindings: Mapping[str, object] | None = None,
) -> T:
    value = _input(request, name, bindings=bindings)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise OpError("bad-request", f"member {name!r} must be a {kind.__name__}")
    return value


def _number(request: Mapping[str, object], name: str) -> float:
    value = _input(request, name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise OpError("bad-request", f"member {name!r} must be a number")
    return value


def _canonical(compute: Callable[[], T]) -> T:
    """Run ``compute``; the JS package's expected failures become their error codes:
    ``canonicalization`` (CAN-20) and ``type-error`` (PROT-23)."""
    try:
        return compute()
    except CanonicalizationError as error:
        raise OpError("canonicalization", str(error)) from error
    except JsTypeError as error:
        raise OpError("type-error", f"TypeError: {error}") from error


# -- monitors ---------------------------------------------------------------


def create_monitor(request: Mapping[str, object]) -> DoomLoopMonitor:
    """``create``: a monitor from ``option`` and, when present, ``state`` (STATE-*)."""
    option = _input(request, "option")
    resolution = _canonical(lambda: resolve_doom_loop_option(option))
    if resolution.config is None:
        raise OpError("bad-request", "the option turns detection off: there is no monitor")
    return DoomLoopMonitor(resolution.config, _input(request, "state", required=False))


def resume(monitor: DoomLoopMonitor, option: object) -> tuple[DoomLoopMonitor, object]:
    """``resume``: save the state, round-trip it through JSON text, build a new
    monitor from ``option`` (tagged JSON) and that state; return both."""
    blob = json.loads(json.dumps(wire.encode(monitor.get_state())))
    return create_monitor({"option": option, "state": blob}), blob


def _declare_round(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    calls = _typed(request, "calls", list, bindings(monitor))
    parsed = []
    for call in calls:
        if not isinstance(call, Mapping) or not isinstance(call.get("toolName"), str):
            raise OpError("bad-request", "each call needs a string toolName")
        parsed.append(ToolCall(str(call["toolName"]), call.get("keyMaterial", UNDEFINED)))
    monitor.declare_round(_number(request, "round"), parsed)
    return None


_RECORD_DETECTORS: Final[dict[object, DetectorKind]] = {
    "tool-fingerprint": "tool-fingerprint",
    "server-tool-fingerprint": "server-tool-fingerprint",
}


def _record_tool_call(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    """An options member holding undefined is absent (MON-61); a non-boolean
    ``allowBlock`` or an unknown detector is outside the domain (PROT-28)."""
    options = _input(request, "options", required=False)
    options = options if isinstance(options, Mapping) else {}
    allow_block = options.get("allowBlock", UNDEFINED)
    allow_block = True if allow_block is UNDEFINED else allow_block
    given = options.get("detector", UNDEFINED)
    detector = _RECORD_DETECTORS.get("tool-fingerprint" if given is UNDEFINED else given)
    if not isinstance(allow_block, bool) or detector is None:
        raise OpError("bad-request", "options.allowBlock must be boolean, options.detector known")
    record = _canonical(
        lambda: monitor.record_tool_call(
            _typed(request, "toolName", str),
            _input(request, "keyMaterial", bindings=bindings(monitor)),
            _number(request, "round"),
            allow_block=allow_block,
            detector=detector,
        )
    )
    return record.to_json()


def _record_assistant_text(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    text = _typed(request, "text", str)
    verdict = _canonical(lambda: monitor.record_assistant_text(text))
    return None if verdict is None else verdict.to_json()


def _restore(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    monitor.restore(_input(request, "state"))
    return None


def _reset_text_streak(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    monitor.reset_text_streak()
    return None


def _consume_escalation(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    monitor.consume_escalation()
    return None


# -- objects a session holds (PROT-36, feature object-identity) ---------------

_BINDINGS: Final[weakref.WeakKeyDictionary[DoomLoopMonitor, dict[str, object]]] = (
    weakref.WeakKeyDictionary()
)


def bindings(monitor: DoomLoopMonitor) -> dict[str, object]:
    """The objects bound by name in the session of ``monitor`` (PROT-36); they
    live as long as the session, so a ``resume`` (a new session) starts without."""
    return _BINDINGS.setdefault(monitor, {})


def _bind_object(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    """``bindObject``: decode ``value`` once and hold it under ``name`` (PROT-36)."""
    held = bindings(monitor)
    name = _typed(request, "name", str)
    value = _input(request, "value", bindings=held)
    if not name or not isinstance(value, dict | list):
        raise OpError("bad-request", "bindObject needs a non-empty name and an array or object")
    held[name] = value
    return None


def _set_member(monitor: DoomLoopMonitor, request: Mapping[str, object]) -> object:
    """``setMember``: JS assignment ``bound[path[0]]...[path[-1]] = value`` (PROT-38)."""
    held = bindings(monitor)
    name = _typed(request, "name", str)
    path = _typed(request, "path", list)
    if name not in held or not path:
        raise OpError(
            "bad-request", f"setMember needs a bound name and a non-empty path ({name!r})"
        )
    target = held[name]
    for step in path[:-1]:
        target = _member_place(target, step, extend=False)[step]
    place = _member_place(target, path[-1], extend=True)
    value = _input(request, "value", bindings=held)
    if isinstance(place, list):
        place[path[-1] : path[-1] + 1] = [value]
    else:
        place[path[-1]] = value
    return None


def _member_place(target: object, step: object, *, extend: bool) -> Any:
    """``target`` when ``step`` names a member of it: a string an object member,
    a whole number an array index; ``extend`` also allows a new member or the
    index just past the end. Anything else is bad-request (PROT-38)."""
    if isinstance(target, dict) and isinstance(step, str) and (extend or step in target):
        return target
    is_index = isinstance(step, int) and not isinstance(step, bool)
    if isinstance(target, list) and is_index and 0 <= step < len(target) + extend:  # type: ignore[operator]
        return target
    raise OpError("bad-request", f"setMember path step {step!r} names no member")


MONITOR_OPS: Final[dict[str, Callable[[DoomLoopMonitor, Mapping[str, object]], object]]] = {
    "declareRound": _declare_round,
    "recordToolCall": _record_tool_call,
    "recordAssistantText": _record_assistant_text,
    "resetTextStreak": _reset_text_streak,
    "canEscalate": lambda monitor, request: monitor.can_escalate(),
    "consumeEscalation": _consume_escalation,
    "getState": lambda monitor, request: wire.encode(monitor.get_state()),
    "restore": _restore,
    "bindObject": _bind_object,
    "setMember": _set_member,
}
"""Operations on one monitor (a protocol session)."""


# -- pure functions -----------------------------------------------------------


def _resolve_option(request: Mapping[str, object]) -> object:
    option = _input(request, "option", required=False)
    resolution = _canonical(lambda: resolve_doom_loop_option(option))
    return {
        "config": None if resolution.config is None else wire.encode(resolution.config.to_json()),
        "warnings": [warning.to_json() for warning in resolution.warnings],
    }


def _resolve_loop_key(request: Mapping[str, object], presence: Presence = "own") -> object:
    args = _typed(request, "args", dict)
    loop_key = _input(request, "loopKey", required=False)
    resolution = resolve_loop_key_material(loop_key, args, presence=presence)
    return wire.encode(resolution.to_json())


def _ladder(request: Mapping[str, object]) -> Ladder:
    given = _typed(request, "ladder", dict)
    rungs: dict[str, object] = {}
    for rung in RUNGS:
        value = given.get(rung)
        number = finite_number(value)
        if value is not False and (number is None or not number.is_integer()):
            raise OpError("bad-request", f"ladder.{rung} must be an integer or false (PROT-28)")
        rungs[rung] = False if value is False else int(number or 0)
    return Ladder(**rungs)  # type: ignore[arg-type]


def _resolve_ladder_action(request: Mapping[str, object]) -> object:
    """Rungs must be integers or false and ``allowBlock`` a boolean (PROT-28);
    ``allowEscalate`` is read by JS truthiness, undefined meaning absent (LAD-08, CFG-46)."""
    given = _input(request, "allowEscalate", required=False)
    allow_escalate = True if given is UNDEFINED else truthy(given)
    return resolve_ladder_action(
        _ladder(request),
        _number(request, "streak"),
        allow_block=_typed(request, "allowBlock", bool),
        allow_escalate=allow_escalate,
    )


def _detect_text_repetition(request: Mapping[str, object]) -> object:
    options = _input(request, "options", required=False)
    text = _typed(request, "text", str)
    found = _canonical(
        lambda: detect_text_repetition(text, options if isinstance(options, Mapping) else None)
    )
    return None if found is None else found.to_json()


def engine_expectation(request: Mapping[str, object]) -> dict[str, object]:
    """``runScenario`` (PROT-31) as an engine vector expects it: ``{"result", "order"}``.

    ``result`` is the reference engine's transcript of a plain-JSON scenario, as
    JS ``JSON.stringify`` would write it (ENG-105: a non-finite number is
    ``null``, ``-0`` is ``0``); ``order`` its partial order (ENG-139). A
    malformed scenario (ENG-23), or a run outside the engine level's domain
    (ENG-151), raises the expected outcome ``bad-scenario``.
    """
    from doomloop_kit.engine import Scenario, ScenarioError, run_scenario  # engine ops only

    if "scenario" not in request:
        raise OpError("bad-request", "missing member 'scenario'")
    try:
        transcript = run_scenario(Scenario.from_json(request["scenario"]))
    except ScenarioError as error:
        raise OpError("bad-scenario", str(error)) from error
    return {
        "result": json.loads(stringify(transcript.to_json())),
        ENGINE_ORDER: transcript.event_order(),
    }


def _run_scenario(request: Mapping[str, object]) -> object:
    """``runScenario`` (PROT-31): the transcript a harness answers."""
    return engine_expectation(request)["result"]


FUNCTION_OPS: Final[dict[str, Callable[[Mapping[str, object]], object]]] = {
    "resolveOption": _resolve_option,
    "resolveLoopKey": _resolve_loop_key,
    "canonicalize": lambda request: _canonical(lambda: canonicalize(_input(request, "value"))),
    "fingerprintKeyMaterial": lambda request: _canonical(
        lambda: fingerprint_key_material(_input(request, "keyMaterial"))
    ),
    "fingerprintToolCall": lambda request: _canonical(
        lambda: fingerprint_tool_call(
            _typed(request, "toolName", str), _input(request, "keyMaterial")
        )
    ),
    "detectTextRepetition": _detect_text_repetition,
    "resolveLadderAction": _resolve_ladder_action,
    ENGINE_OP: _run_scenario,
}
"""Operations that need no monitor; ``resolveLoopKey`` tests presence as an own
member (KEY-09, feature ``json-own-members``)."""

if (tuple(MONITOR_OPS), tuple(FUNCTION_OPS)) != (vocabulary.MONITOR_OPS, vocabulary.FUNCTION_OPS):
    raise RuntimeError("the oracle must answer exactly the operations the vocabulary names")


def function_ops(features: Iterable[str]) -> dict[str, Callable[[Mapping[str, object]], object]]:
    """:data:`FUNCTION_OPS` for a vector with these features: ``js-inherited-members``
    resolves field lists with JS ``in`` (KEY-23)."""
    if "js-inherited-members" not in features:
        return FUNCTION_OPS
    return {**FUNCTION_OPS, "resolveLoopKey": lambda request: _resolve_loop_key(request, "in")}


def needs_member_rule(request: Mapping[str, object]) -> bool:
    """True for a ``resolveLoopKey`` request whose field list names a member JS ``in``
    finds by inheritance and ``args`` lacks: the only inputs where the own-member rule
    and JS ``in`` differ, so its vector carries ``json-own-members`` or
    ``js-inherited-members`` (CONF-13). A request that does not decode needs neither."""
    if request.get("op") != "resolveLoopKey":
        return False
    try:
        loop_key = _input(request, "loopKey", required=False)
        args = _input(request, "args", required=False)
    except OpError:
        return False
    return names_inherited_member(loop_key, args)


def declares_member_rule_rightly(
    features: Iterable[str], requests: Iterable[Mapping[str, object]]
) -> bool:
    """A vector with these features and step requests declares one of
    :data:`MEMBER_RULES` exactly when a request needs it, never both (CONF-13)."""
    declared = MEMBER_RULES.intersection(features)
    return len(declared) <= 1 and bool(declared) == any(map(needs_member_rule, requests))
