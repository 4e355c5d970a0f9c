"""Hypothesis strategies drawing every member of the scenario format at its edges (§15.1.4).

The engine families of :mod:`.engine_families` each draw one behaviour with
typical values; the families here draw whole scenarios whose members reach
their edges, for differential fuzzing (``conformance fuzz``, the SDK
campaign of :mod:`doomloop_kit.conformance.campaign`). Every family draws
every member; its *focus* draws one group of members at the edges every
time, the others one time in five:

* ``messages``: several message items in one response, a first message
  with no ``output_text``, refusal, reasoning and server items, repeated text;
* ``inputs``: empty-string inputs, inputs that are arrays (empty, several
  items), initial conversations with and without messages;
* ``state``: persisted ``doomLoop`` blobs of odd shapes (``null``, truthy
  non-object ``stopVerdict``, odd ``pendingSteer``), unsent results of odd
  shapes, stored tool-choice keys;
* ``batches``: every tool kind in one batch with unknown names, large
  fan-outs, duplicate call ids with different items, malformed, blank and
  JSON-string arguments, unsafe integers, ``-0``, fractions, lone
  surrogates, ``__proto__`` names, every ``loopKey`` form;
* ``hooks``: handlers returning odd values, unknown actions, overrides to
  every action, failing handlers, ``when`` filters, tool-scoped handlers;
* ``resumes``: decisions mixing approvals, rejections and call outputs,
  ids that are not pending;
* ``request``: tool choices and ``toolChoiceFromDispatch``,
  ``stopWhenSteps``, ``allowFinalResponse``, ``stateAccessor`` off,
  options with per-run overrides, escalation and advisor configurations.

What is never drawn: a scenario that is not well formed (ENG-23, ENG-172,
ENG-173); a field list naming a member every object inherits (``toString``,
``__proto__``: outside the vectors, KEY-23, ENG-154); a pending call that is
not an item of the loaded history (unless the history is not an array at
all: the SDK keeps pending calls parsed, and its harness shows each as the
history item it came from); a decision naming a pending call twice, an
approval pause beside a HITL call, an approved HITL call whose body returns
``null`` (ENG-151: the draw avoids them, and a run that still reaches one
is dropped with the runs after it, :mod:`doomloop_kit.conformance.engine_domain`);
a forced tool choice applying from a dispatch > 0 in a scenario with a
decision resume, which the SDK cannot express (its dynamic tool choice
counts the turns of a fresh run, :func:`without_sdk_counterpart`). Later
runs answer the previous run's end, which the reference engine tells while
drawing; the draw stays a pure function of Hypothesis's choices.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from doomloop_kit.engine import Scenario, run_scenario
from doomloop_kit.engine.tool_choice import is_forced
from hypothesis.strategies import DrawFn, SearchStrategy, composite

from .curated.engine.builders import call, text, turn
from .engine_families import (
    ARGUMENTS,
    BLANK,
    ESCALATION_MODEL,
    LOOP_KEYS,
    MALFORMED,
    NON_OBJECTS,
    ODD_BLOBS,
    PENDING_STEER,
    RUNGS,
    STUCK,
    UNICODE_OBJECTS,
    DrawnScenario,
    JsonObject,
    _result_values,
    escalation_configs,
    ladders,
)
from .strategies import Family, st

FOCUSES: Final = ("messages", "inputs", "state", "batches", "hooks", "resumes", "request")
"""The groups of members a family draws at the edges every time (module docstring)."""

MAX_RESPONSES: Final = 8
"""Scripted responses per scenario, over all its runs."""

TOOLS: Final = {
    "read": "executable",
    "grep": "executable",
    "risky": "approval",
    "confirm": "hitl",
    "ask": "manual",
}
"""The declared tools and their kinds (ENG-18); ``ghost`` is called but never declared."""

ODD_TOOL_NAMES: Final = ("__proto__", "constructor", "toString", "", "\u00e9")
"""Tool names at JS's edges: object prototype members, the empty name, a non-ASCII one."""

# -- alphabets ----------------------------------------------------------------------

EDGE_ARGUMENTS: Final = (
    '{"n":9007199254740993}',
    '{"n":-0}',
    '{"n":0.1}',
    '{"n":1e21}',
    '{"n":1e-7}',
    '{"q":"a","n":-0.0}',
    '"{\\"q\\":\\"a\\"}"',
    '{"constructor":1}',
    '{"toString":"x"}',
    '{"length":2}',
    '{"q":["a",{"b":null}]}',
    ' {"q":"a"} ',
    '\n{"q":"a"}\t',
)
"""Arguments beyond :mod:`.engine_families`' alphabets: unsafe integers, -0, fractions,
exponents, a JSON string holding JSON, prototype member names, padded objects."""

ALL_ARGUMENTS: Final = (
    ARGUMENTS + ARGUMENTS + MALFORMED + NON_OBJECTS + BLANK + UNICODE_OBJECTS + EDGE_ARGUMENTS
)

EDGE_LOOP_KEYS: Final = (
    *LOOP_KEYS,
    ["q", "q"],
    ["n", "q"],
    {"function": "project", "fields": {"__proto__": []}},
    {"function": "project", "fields": {"length": [], "q": ["lower"]}},
    {"function": "project", "fields": {}},
    {"function": "returns", "value": True},
    {"function": "returns", "value": -0.0},
    {"function": "returns", "value": "\ud800"},
    {"function": "resolution-fails", "message": "cannot resolve"},
)
"""Every ``loopKey`` form (ENG-39, ENG-40, ENG-154) and the test double. Field lists never
name a member every object inherits (``toString``, ``__proto__``): JS ``in`` finds it, the
own-member rule does not (KEY-23, DIV-01), so those are outside the vectors (ENG-154)."""

FAILURES: Final = ("boom", "", " ", "\ud800", "Error: nested")
"""Failure messages of bodies and handlers: the empty message included (ENG-21, ENG-97)."""

TEXTS: Final = ("done", "", " ", STUCK, "stuck stuck stuck stuck stuck stuck", "\ud800", "a\u2028b")


def _message(content: object, **extra: object) -> JsonObject:
    return {"type": "message", "role": "assistant", "content": content, **extra}


MESSAGE_ITEMS: Final[tuple[JsonObject, ...]] = (
    _message([]),
    _message([{"type": "refusal", "refusal": "I will not."}]),
    _message([{"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}]),
    _message([{"type": "output_text", "text": STUCK, "annotations": []}]),
    _message([{"type": "output_text", "text": ""}], id="msg_1", status="completed"),
    _message([{"type": "refusal", "refusal": "no"}, {"type": "output_text", "text": "x"}]),
    {"type": "message", "content": [{"type": "output_text", "text": "no role"}]},
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"q": "x"}},
    {"type": "web_search_call", "id": "ws_2", "status": "completed", "action": {"q": "x"}},
    {"type": "file_search_call", "id": "fs_1", "queries": ["x"], "results": None},
    {"type": "mystery", "payload": {"__proto__": 1}},
)
"""Output items other than function calls: message items with no ``output_text``, with
several, with a refusal, without a role; reasoning, server-tool and unknown items."""

ODD_CONTENT: Final[tuple[JsonObject, ...]] = (
    _message("plain string"),
    _message([5]),
    _message(None),
)
"""Message items whose ``content`` is not an array of objects: the SDK throws a
TypeError on them (the known difference ``message-content``); drawn rarely."""

INPUTS: Final[tuple[object, ...]] = (
    "go",
    "",
    " ",
    STUCK,
    [],
    [{"role": "user", "content": "hi"}],
    [{"role": "user", "content": ""}],
    [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
    [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
    [{"type": "message", "role": "user", "content": "typed"}],
    [{"role": "developer", "content": "be brief"}, {"role": "user", "content": "go"}],
    [{"role": "assistant", "content": "earlier"}, {"role": "user", "content": "go"}],
)
"""Fresh-turn inputs: strings (empty and blank included) and lists of input items."""

ODD_HISTORY: Final[tuple[list[JsonObject], ...]] = (
    [call("read", '{"q":"a"}', "call_unanswered")],
    [{"type": "function_call_output", "callId": "call_unknown", "output": '"late"'}],
    [{"role": "user", "content": [{"type": "input_text", "text": "listed"}]}],
    [call("read", '{"q":"a"}', "call_old"), call("read", '{"q":"a"}', "call_old")],
    [{"type": "reasoning", "id": "rs_0", "summary": []}],
)
"""Loaded history at its edges: a call never answered, an output for no call, a
listed user message, one call id twice, a reasoning item."""

STATUSES: Final = ("complete", "in_progress", "awaiting_approval", "awaiting_hitl")
STATUSES_ODD: Final = (*STATUSES, "awaiting_client_tools", "unknown")

STOP_VERDICTS: Final[tuple[object, ...]] = (
    "halt",
    1,
    True,
    [],
    ["x"],
    {},
    {"message": 5},
    {"message": "Halt.", "action": "stop"},
    {
        "action": "stop",
        "detector": "tool-fingerprint",
        "toolName": "read",
        "streak": 6,
        "message": "Stopped.",
    },
    0,
    "",
    False,
)
"""Persisted ``stopVerdict`` values: truthy non-objects (a string, numbers, ``true``,
arrays), objects with and without a string message, and falsy values (ENG-158)."""

UNSENT_ERRORS: Final[tuple[object, ...]] = ("absent", "boom", "", None, 0, False, {"x": 1})
UNSENT_OUTPUTS: Final[tuple[object, ...]] = ("absent", None, "text", 5, {"a": 1}, [], "")

TOOL_CHOICES: Final[tuple[object, ...]] = (
    "auto",
    "none",
    "required",
    {"type": "function", "name": "read"},
    {"type": "function", "name": "ghost"},
    {"type": "web_search_preview"},
    {"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "read"}]},
    {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "read"}]},
    {"type": "allowed_tools", "tools": []},
    ["read"],
    "something",
)
"""Tool choices (ENG-145): not forced, forced strings, objects and arrays, ``allowed_tools``
in each mode and without one, an unknown string."""

ALLOW_FINAL: Final[tuple[object, ...]] = (True, False, "Answer now.", "", 0, None, {}, [], "off")
STATE_ACCESSORS: Final[tuple[object, ...]] = ("absent", True, False, 0, None, "off")
"""``stateAccessor`` values: only ``false`` turns it off (ENG-23)."""

OVERRIDES: Final[tuple[object, ...]] = (
    *({"overrideAction": rung} for rung in RUNGS),
    {"overrideAction": "proceed"},
    {"overrideAction": "STOP"},
    {"overrideAction": ""},
    {"overrideAction": None},
    {"overrideAction": 3},
    {"overrideAction": "stop", "extra": 1},
    {"action": "stop"},
    {},
    None,
    5,
    "stop",
    True,
    [],
    [{"overrideAction": "stop"}],
)
"""Handler results: an override to every action, unknown and non-string actions, other
members, and values that are not objects (ENG-93)."""

WHEN_FILTERS: Final[tuple[Mapping[str, object], ...]] = (
    {"toolName": "read"},
    {"toolName": "grep"},
    {"action": "block"},
    {"action": "observe"},
    {"detector": "tool-fingerprint"},
    {"detector": "text-repetition"},
    {"streak": 2},
    {"streak": 2.0},
    {"streak": True},
    {"missing": None},
    {"toolInput": {"q": "a"}},
)


# -- building blocks -------------------------------------------------------------------


def _rarely(draw: DrawFn, one_in: int) -> bool:
    """True one time in ``one_in``; it shrinks to False, the plain scenario."""
    drawn: int = draw(st.integers(0, one_in - 1))
    return drawn == one_in - 1


def _edgy(draw: DrawFn, focus: str, group: str) -> bool:
    """Whether ``group`` is drawn at its edges: always for the focus, else one in five."""
    return group == focus or _rarely(draw, 5)


def _tools(draw: DrawFn, edgy: bool) -> list[JsonObject]:
    """Every kind of tool (each but ``read`` left out one time in six, which shrinking
    prefers); at the edges, odd names, loop keys, results and failures."""
    keys = EDGE_LOOP_KEYS if edgy else LOOP_KEYS
    tools: list[JsonObject] = []
    for name, kind in TOOLS.items():
        if name != "read" and draw(st.integers(0, 5)) == 0:
            continue
        tool: JsonObject = {"name": name}
        if kind != "executable" or draw(st.booleans()):
            tool["kind"] = kind
        key = draw(st.sampled_from(keys))
        if key is not None:
            tool["loopKey"] = copy.deepcopy(key)
        if edgy and kind in ("executable", "approval") and _rarely(draw, 3):
            tool["result"] = draw(_result_values())
        if kind == "hitl" and draw(st.booleans()):
            tool["result"] = draw(st.sampled_from(["human says yes", 0, {"ok": False}]))
        if kind != "manual" and _rarely(draw, 5 if edgy else 10):
            tool["fails"] = draw(st.sampled_from(FAILURES))
        tools.append(tool)
    if edgy and _rarely(draw, 3):
        tools.append({"name": draw(st.sampled_from(ODD_TOOL_NAMES))})
    return tools


def _arguments(draw: DrawFn, edgy: bool) -> str:
    raw: str = draw(st.sampled_from(ALL_ARGUMENTS if edgy else ARGUMENTS))
    return raw


def _call_names(draw: DrawFn, tools: Sequence[JsonObject], edgy: bool) -> list[str]:
    """Names for one response's calls: repeated ``read`` calls, sometimes every kind."""
    names = [str(tool["name"]) for tool in tools] + ["ghost"]
    if edgy and _rarely(draw, 4):
        return names  # every tool kind in one batch
    width = draw(st.integers(0, 3))
    if edgy and _rarely(draw, 6):
        width = draw(st.sampled_from([12, 25, 40]))  # a large fan-out
    return [draw(st.sampled_from(["read", "read", "grep", *names])) for _ in range(width)]


def _in_domain(draw: DrawFn, names: list[str]) -> list[str]:
    """No HITL call beside an approval call: the SDK loses it (ENG-151 (b)); one of the
    two kinds is dropped."""
    if "risky" not in names or "confirm" not in names:
        return names
    dropped = draw(st.sampled_from(["risky", "confirm"]))
    return [name for name in names if name != dropped]


def _message_items(draw: DrawFn, edgy: bool) -> list[JsonObject]:
    """The items of a response other than its calls."""
    if not edgy:
        return [text(draw(st.sampled_from(TEXTS[:4])))] if _rarely(draw, 3) else []
    items = [
        copy.deepcopy(draw(st.sampled_from(MESSAGE_ITEMS))) for _ in range(draw(st.integers(0, 3)))
    ]
    if draw(st.integers(0, 2)):
        items.insert(draw(st.integers(0, len(items))), text(draw(st.sampled_from(TEXTS))))
    if _rarely(draw, 20):
        items.append(copy.deepcopy(draw(st.sampled_from(ODD_CONTENT))))
    return items


class _Ids:
    """Call ids for one scenario: fresh ones, sometimes one used again (ENG-152)."""

    def __init__(self) -> None:
        self.used: list[str] = []

    def next(self, draw: DrawFn, edgy: bool) -> str:
        if edgy and self.used and _rarely(draw, 4):
            again: str = draw(st.sampled_from(self.used))
            return again
        call_id = f"call_{len(self.used)}"
        self.used.append(call_id)
        return call_id


@composite
def _responses(
    draw: DrawFn, tools: Sequence[JsonObject], ids: _Ids, budget: int, focus: str
) -> list[JsonObject]:
    """One run's scripted responses (at least one, at most ``budget``)."""
    responses: list[JsonObject] = []
    repeat = _arguments(draw, False)
    for _ in range(draw(st.integers(1, max(1, budget)))):
        batch_edgy = _edgy(draw, focus, "batches")
        items = _message_items(draw, _edgy(draw, focus, "messages"))
        for name in _in_domain(draw, _call_names(draw, tools, batch_edgy)):
            raw = _arguments(draw, batch_edgy) if _rarely(draw, 3) else repeat
            items.append(call(name, raw, ids.next(draw, batch_edgy)))
            if batch_edgy and _rarely(draw, 6):  # members a provider adds to a call
                items[-1].update({"id": f"fc_{len(items)}", "status": "completed"})
        if batch_edgy and _rarely(draw, 4):
            items = list(draw(st.permutations(items)))
        responses.append(turn(*items))
    if len(responses) < budget and draw(st.integers(0, 2)):
        responses.append(turn(text(draw(st.sampled_from(TEXTS)))))
    elif _rarely(draw, 10):
        responses.append({"output": []})  # an empty response: invalid or retried (ENG-142)
    return responses


def _option(draw: DrawFn, edgy: bool) -> object:
    """A ``doomLoop`` option with small thresholds; at the edges, every configuration."""
    option: JsonObject = {"ladder": draw(ladders(low=("observe",)))}
    if _rarely(draw, 3):
        option["text"] = {"minRepeats": 2, "minCoveredTokens": 4, "maxPeriodTokens": 4}
    if not edgy:
        return option
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from([True, False, {}, "yes", 1, 0, [], {"enabled": False}]))
    if kind == 1:
        return None  # the resolver throws (CFG-41)
    if kind <= 5:
        option["escalation"] = draw(escalation_configs())
    if kind == 6:
        option["ladder"] = {rung: 1 for rung in RUNGS}
    if kind == 7:
        option["enabled"] = draw(st.sampled_from([True, False, 0, "no"]))
    return option


def _hooks(draw: DrawFn, edgy: bool) -> list[JsonObject]:
    if not edgy:
        if not _rarely(draw, 4):
            return []
        return [{"returns": {"overrideAction": draw(st.sampled_from(RUNGS))}}]
    handlers: list[JsonObject] = []
    for _ in range(draw(st.integers(1, 3))):
        handler: JsonObject = {}
        if _rarely(draw, 3):
            handler["tool"] = draw(st.sampled_from(["read", "grep", "risky", "ghost"]))
        if _rarely(draw, 3):
            handler["when"] = dict(draw(st.sampled_from(WHEN_FILTERS)))
        if _rarely(draw, 5):
            handler["fails"] = draw(st.sampled_from(FAILURES))
        elif not _rarely(draw, 6):
            handler["returns"] = copy.deepcopy(draw(st.sampled_from(OVERRIDES)))
        handlers.append(handler)
    return handlers


def _request(draw: DrawFn, edgy: bool) -> JsonObject:
    request: JsonObject = {}
    if not edgy:
        if _rarely(draw, 4):
            request["stopWhenSteps"] = draw(st.integers(1, 3))
        return request
    if _rarely(draw, 4):
        request["model"] = draw(st.sampled_from(["m", ESCALATION_MODEL]))
    if _rarely(draw, 4):
        request["models"] = draw(st.sampled_from([[], ["fallback-a", "fallback-b"]]))
    if draw(st.booleans()):
        request["toolChoice"] = copy.deepcopy(draw(st.sampled_from(TOOL_CHOICES)))
        if draw(st.booleans()):
            request["toolChoiceFromDispatch"] = draw(st.sampled_from([0, 1, 2, 3, -1, 2.0]))
    if draw(st.booleans()):
        request["stopWhenSteps"] = draw(st.sampled_from([0, 1, 2, 3, -1, 1.0]))
    if draw(st.booleans()):
        request["allowFinalResponse"] = copy.deepcopy(draw(st.sampled_from(ALLOW_FINAL)))
    return request


def _unsent(draw: DrawFn, ids: Sequence[str]) -> object:
    """``unsentToolResults`` of odd shapes: falsy errors, odd outputs, non-object entries."""
    if _rarely(draw, 6):
        return draw(st.sampled_from(["x", {}, None, 5]))
    results: list[object] = []
    for call_id in [*ids, "call_earlier"][: draw(st.integers(0, len(ids) + 1))]:
        if _rarely(draw, 8):
            results.append(draw(st.sampled_from([5, "x", None, []])))
            continue
        result: JsonObject = {"callId": call_id, "name": "read"}
        output = draw(st.sampled_from(UNSENT_OUTPUTS))
        if output != "absent":
            result["output"] = output
        error = draw(st.sampled_from(UNSENT_ERRORS))
        if error != "absent":
            result["error"] = error
        results.append(result)
    return results


def _blob(draw: DrawFn) -> object:
    """A persisted ``doomLoop`` member of an odd shape (ENG-144, ENG-158, ENG-171)."""
    if _rarely(draw, 4):
        return copy.deepcopy(draw(st.sampled_from(ODD_BLOBS)))
    blob: JsonObject = {}
    if draw(st.booleans()):
        blob["stopVerdict"] = copy.deepcopy(draw(st.sampled_from(STOP_VERDICTS)))
    if draw(st.booleans()):
        blob["pendingSteer"] = copy.deepcopy(draw(st.sampled_from(PENDING_STEER)))
    if draw(st.booleans()):
        blob["tools"] = {"read": {"streak": draw(st.integers(1, 3)), "fingerprint": "f"}}
    return blob


@composite
def _initial_state(draw: DrawFn, focus: str) -> JsonObject | None:
    """The conversation the first run loads, or None (no ``initialState``).

    Pending calls are always items of the history (the SDK keeps parsed calls and
    the harness shows each as the history item it came from).
    """
    inputs, state_edgy = _edgy(draw, focus, "inputs"), _edgy(draw, focus, "state")
    if not (inputs or state_edgy) or draw(st.integers(0, 3)) == 0:  # shrinks to no state
        return None
    state: JsonObject = {"status": draw(st.sampled_from(STATUSES_ODD if state_edgy else STATUSES))}
    messages: list[JsonObject] = []
    if draw(st.booleans()):
        messages.append({"role": "user", "content": draw(st.sampled_from(["earlier", ""]))})
        messages.append(text("earlier answer"))
    if (inputs or state_edgy) and _rarely(draw, 4):
        messages += copy.deepcopy(draw(st.sampled_from(ODD_HISTORY)))
    pending: list[JsonObject] = []
    if state["status"] in ("awaiting_approval", "awaiting_hitl") and draw(st.integers(0, 3)):
        name = "risky" if state["status"] == "awaiting_approval" else "confirm"
        for number in range(draw(st.integers(1, 3))):
            item = call(name, _arguments(draw, state_edgy), f"call_stored_{number}")
            messages.append(item)
            pending.append(copy.deepcopy(item))
        state["pendingToolCalls"] = pending
    state["messages"] = messages
    if state_edgy and _rarely(draw, 12):
        state["messages"] = draw(st.sampled_from(["", {}, 5]))
    if state_edgy and draw(st.booleans()):
        state["unsentToolResults"] = _unsent(draw, [str(item["callId"]) for item in pending])
    if state_edgy and _rarely(draw, 4):
        state["consumedForcedToolChoiceKey"] = draw(st.sampled_from(['"required"', "required"]))
    if state_edgy or _rarely(draw, 4):
        state["doomLoop"] = _blob(draw)
    return state


# -- runs answering the previous run ------------------------------------------------------


def _last_end(scenario: JsonObject) -> tuple[str, list[str], list[str]] | None:
    """Status, pending call ids and unanswered client call ids after the scenario's last
    run, from the reference engine; None when it cannot run the scenario."""
    try:
        last = run_scenario(Scenario.from_json(scenario)).runs[-1].to_json()
    except Exception:  # outside the domain, or a scenario the reference fails on
        return None
    state = last["state"] if isinstance(last["state"], dict) else {}
    end = last["end"]
    status = str(state.get("status", end["status"] if isinstance(end, dict) else ""))
    pending = [
        str(item.get("callId"))
        for item in state.get("pendingToolCalls", [])
        if isinstance(item, dict)
    ]
    return status, pending, pending if status == "awaiting_client_tools" else []


@composite
def _decisions(draw: DrawFn, pending: Sequence[str], edgy: bool) -> JsonObject:
    """Approvals and rejections naming each pending call at most once (ENG-151 (a));
    at the edges, ids that are not pending, repeated when not pending, undecided calls."""
    run: JsonObject = {"approve": [], "reject": []}
    for call_id in dict.fromkeys(pending):
        choice = draw(st.sampled_from(["approve", "reject", "undecided" if edgy else "approve"]))
        if choice != "undecided":
            run[choice].append(call_id)
    if edgy and _rarely(draw, 3):
        ghost = draw(st.sampled_from(["call_ghost", "call_0", ""]))
        if ghost not in pending:
            for _ in range(draw(st.integers(1, 2))):
                run[draw(st.sampled_from(["approve", "reject"]))].append(ghost)
    if not run["approve"] and not run["reject"]:
        run["approve"] = [pending[0] if pending else "call_ghost"]
    if edgy and draw(st.booleans()):
        run["approve"].reverse()
    for name in ("approve", "reject"):
        if not run[name] and draw(st.booleans()):
            del run[name]
    return run


def _outputs(draw: DrawFn, call_ids: Sequence[str], edgy: bool) -> list[object]:
    """``function_call_output`` items for client calls; at the edges some missing, for
    ids not pending, or with outputs that are not strings."""
    items: list[object] = []
    for call_id in call_ids:
        if edgy and _rarely(draw, 4):
            continue
        output = draw(st.sampled_from(['"client result"', "", "{}"] if edgy else ['"ok"']))
        items.append({"type": "function_call_output", "callId": call_id, "output": output})
    if edgy and _rarely(draw, 4):
        items.append({"type": "function_call_output", "callId": "call_ghost", "output": "x"})
    if edgy and _rarely(draw, 4):
        items.append({"role": "user", "content": draw(st.sampled_from(["and then", ""]))})
    return items


@composite
def _next_run(
    draw: DrawFn, scenario: JsonObject, tools: Sequence[JsonObject], ids: _Ids, focus: str
) -> JsonObject | None:
    """A run answering the previous run's end, or None when the scenario cannot go on."""
    budget = MAX_RESPONSES - sum(len(run["model"]) for run in scenario["runs"])
    end = _last_end(scenario)
    if budget <= 0 or end is None:
        return None
    status, pending, client = end
    resumes, inputs = _edgy(draw, focus, "resumes"), _edgy(draw, focus, "inputs")
    run: JsonObject
    if pending and status in ("awaiting_approval", "awaiting_hitl") and draw(st.integers(0, 5)):
        run = draw(_decisions(pending, resumes))
        if resumes and _rarely(draw, 4):
            run["input"] = copy.deepcopy(draw(st.sampled_from(INPUTS)))
    elif client and draw(st.integers(0, 3)):
        run = {"input": _outputs(draw, client, resumes)}
    elif pending and resumes and _rarely(draw, 3):
        run = {"input": _outputs(draw, pending, True)}  # outputs for calls awaiting a decision
    elif resumes and _rarely(draw, 5):
        run = draw(_decisions([], True))  # decisions with nothing pending (ENG-22)
    else:
        run = {"input": copy.deepcopy(draw(st.sampled_from(INPUTS if inputs else INPUTS[:2])))}
    if _edgy(draw, focus, "request") and _rarely(draw, 4):
        run["doomLoop"] = _option(draw, True)
    run["model"] = draw(_responses(tools, ids, min(budget, 3), focus))
    return run


def without_sdk_counterpart(scenario: Mapping[str, Any]) -> bool:
    """A forced tool choice applying from a dispatch > 0, in a scenario with a decision
    resume: the SDK's dynamic tool choice counts the turns of a fresh run, not the run's
    dispatches, so the scenario has no SDK counterpart."""
    request = scenario.get("request")
    if not isinstance(request, Mapping) or "toolChoice" not in request:
        return False
    start = request.get("toolChoiceFromDispatch", 0)
    late = isinstance(start, int | float) and not isinstance(start, bool) and start > 0
    runs = scenario.get("runs")
    decisions = isinstance(runs, list) and any(
        isinstance(run, Mapping) and (run.get("approve") or run.get("reject")) for run in runs
    )
    return late and decisions and is_forced(request["toolChoice"])


@composite
def edge_scenarios(draw: DrawFn, focus: str) -> DrawnScenario:
    """A whole scenario, its ``focus`` group drawn at the edges (module docstring)."""
    tools = _tools(draw, _edgy(draw, focus, "batches"))
    ids = _Ids()
    scenario: JsonObject = {"id": f"engine-edge-{focus}"}
    request_edgy = _edgy(draw, focus, "request")
    if not _rarely(draw, 10) or request_edgy:
        scenario["doomLoop"] = _option(draw, request_edgy)
    scenario["tools"] = tools
    hooks = _hooks(draw, _edgy(draw, focus, "hooks"))
    if hooks:
        scenario["hooks"] = hooks
    request = _request(draw, request_edgy)
    if request:
        scenario["request"] = request
    accessor = draw(st.sampled_from(STATE_ACCESSORS)) if request_edgy else "absent"
    if accessor != "absent":
        scenario["stateAccessor"] = accessor
    initial = draw(_initial_state(focus))
    if initial is not None:
        scenario["initialState"] = initial
    first: JsonObject
    pending = [str(item["callId"]) for item in (initial or {}).get("pendingToolCalls", [])]
    resumes = _edgy(draw, focus, "resumes")
    if pending and draw(st.integers(0, 2)):
        first = draw(_decisions(pending, resumes))
    else:
        inputs = _edgy(draw, focus, "inputs")
        first = {"input": copy.deepcopy(draw(st.sampled_from(INPUTS if inputs else INPUTS[:1])))}
        if initial is not None and resumes and _rarely(draw, 3):
            # a decision resume of a settled conversation: a stored stop re-arms (ENG-158)
            first.update(draw(_decisions([], True)))
    first["model"] = draw(_responses(tools, ids, 4, focus))
    if "input" in first and ("approve" in first or "reject" in first):
        # a call for the re-armed stop to seal, with its halt text (ENG-106)
        first["model"][0]["output"].append(call("read", '{"q":"a"}', ids.next(draw, False)))
    scenario["runs"] = [first]
    for _ in range(draw(st.integers(0, 3))):
        run = draw(_next_run(scenario, tools, ids, focus))
        if run is None:
            break
        scenario["runs"].append(run)
    if without_sdk_counterpart(scenario):
        del scenario["request"]["toolChoiceFromDispatch"]
    return _shape(focus, scenario), scenario


def _shape(focus: str, scenario: JsonObject) -> str:
    """``<focus>-<runs>run[-resume][-restored]``: how the vector id names the draw."""
    parts = [focus, f"{len(scenario['runs'])}run"]
    if any(run.get("approve") or run.get("reject") for run in scenario["runs"]):
        parts.append("resume")
    if "initialState" in scenario:
        parts.append("restored")
    return "-".join(parts)


def _family(focus: str, spec: tuple[str, ...], description: str) -> Family:
    return Family(
        f"engine-edge-{focus}",
        lambda: edge_scenarios(focus),
        0,
        0,
        ("ENG-16", *spec),
        description,
    )


EDGE_FAMILIES: Final[dict[str, Family]] = {
    family.name: family
    for family in (
        _family(
            "messages",
            ("ENG-157", "ENG-109", "ENG-56"),
            "several message items per response, first without output_text, server items",
        ),
        _family(
            "inputs",
            ("ENG-146", "ENG-160"),
            "empty-string and array inputs over conversations with and without messages",
        ),
        _family(
            "state",
            ("ENG-144", "ENG-155", "ENG-158", "ENG-171"),
            "odd persisted doomLoop blobs, unsent results and stored tool-choice keys",
        ),
        _family(
            "batches",
            ("ENG-18", "ENG-37", "ENG-39", "ENG-152", "ENG-154"),
            "every tool kind in one batch, large fan-outs, odd arguments and loop keys",
        ),
        _family(
            "hooks",
            ("ENG-91", "ENG-93", "ENG-94", "ENG-95", "ENG-97"),
            "handlers returning odd values, failing, filtered by tool and payload",
        ),
        _family(
            "resumes",
            ("ENG-22", "ENG-148", "ENG-163"),
            "decisions mixing approvals, rejections and outputs, ids not pending",
        ),
        _family(
            "request",
            ("ENG-23", "ENG-143", "ENG-145", "ENG-147"),
            "tool choices, stopWhen, allowFinalResponse, stateAccessor and options at edges",
        ),
    )
}
"""The edge families (fuzzing only: no committed vectors, so ``count`` and ``seed`` are 0);
each draws ``(shape, scenario)`` pairs like :data:`.engine_families.ENGINE_FAMILIES`."""


def scenarios(family: str) -> SearchStrategy[DrawnScenario]:
    """The ``(shape, scenario)`` strategy of an edge family."""
    strategy: SearchStrategy[DrawnScenario] = EDGE_FAMILIES[family].strategy()
    return strategy
