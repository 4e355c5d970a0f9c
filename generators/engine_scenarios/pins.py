"""Engine scenarios that pin what the mutation job found unpinned (spec §15).

The engine's mutation job (``tests/mutation/run.py --package engine``) judges
each mutant of ``engine/`` by the engine vectors alone; a mutant no vector
kills is a behaviour no vector pins. Each entry here pins one such behaviour
with one fact, its expected value worked out by hand from the statement it
cites (the brief's section is ``rule``), in the format of :mod:`.brief`.
"""

from __future__ import annotations

import json

from .brief import DONE, ESCALATE_AT_2, FRONTIER, SAME, STUCK_20, WEB_SEARCH, server_turns
from .build import Json, JsonObject, call, fresh, repeated_calls, scenario, text, turn

OVERRIDE_OBSERVE: JsonObject = {"returns": {"overrideAction": "observe"}}
"""A handler overriding every verdict to observe: the default ladder's 4 identical calls
(observe 2, block 3) then apply observe, observe, observe (ENG-93)."""


def _skipped_handler_first(name: str, title: str, skipped: JsonObject) -> JsonObject:
    """A handler that is skipped, then one that overrides: the later one still wins (ENG-93)."""
    return {
        **scenario(
            name,
            title,
            ["ENG-91", "ENG-93"],
            [{"kind": "applied", "equals": ["observe", "observe", "observe"]}],
            tools=[WEB_SEARCH],
            hooks=[skipped, OVERRIDE_OBSERVE],
            doomLoop=True,
            runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        ),
        "rule": "5.1, 5.3.1",
    }


def _reads(count: int) -> list[JsonObject]:
    """``count`` responses, each one ``read`` call of a different path: no loop."""
    return [turn(call("read", {"path": f"p{i}"}, f"c{i}")) for i in range(count)]


def _stop_when_3(name: str, title: str, spec: list[str], **request: Json) -> JsonObject:
    """stopWhen 3 over four reads: rounds 1-3 run in the main loop, the fourth response's
    call runs on the stopWhen path, and dispatch 4 is the final one, tool choice none
    (ENG-147, ENG-132, ENG-145)."""
    return {
        **scenario(
            name,
            title,
            spec,
            [{"kind": "request", "dispatch": 4, "at": "/toolChoice", "equals": "none"}],
            tools=[{"name": "read"}],
            doomLoop=True,
            request={"stopWhenSteps": 3, **request},
            runs=[fresh([*_reads(4), DONE])],
        ),
        "rule": "7.5",
    }


def _toolchoice_every_dispatch(name: str, choice: JsonObject) -> JsonObject:
    """A tool choice that is not forced (an ``allowed_tools`` in mode ``auto``) is sent on
    every dispatch, the second included (ENG-145)."""
    return {
        **scenario(
            name,
            f"A tool choice of type {choice['type']} in mode {choice.get('mode')} is not forced: "
            "dispatch 1 still carries it",
            ["ENG-145"],
            [{"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": choice}],
            tools=[{"name": "read"}],
            doomLoop=True,
            request={"toolChoice": choice},
            runs=[fresh([*_reads(1), DONE])],
        ),
        "rule": "3.6",
    }


def _state_saved(name: str, accessor: Json) -> JsonObject:
    """A ``stateAccessor`` other than false leaves saving on (JS ``!== false``, ENG-23)."""
    return {
        **scenario(
            name,
            f"stateAccessor {json.dumps(accessor)} is not false (JS !== false): state is saved",
            ["ENG-23"],
            [{"kind": "state", "at": "/status", "equals": "complete"}],
            tools=[{"name": "read"}],
            doomLoop=True,
            stateAccessor=accessor,
            runs=[fresh([*_reads(1), DONE])],
        ),
        "rule": "6",
    }


def _not_text(name: str, title: str, item: JsonObject) -> JsonObject:
    """A response whose only item holds the stuck text outside an assistant message's
    ``output_text`` part: the text check sees no text, so no text verdict (ENG-157)."""
    return {
        **scenario(
            name,
            title,
            ["ENG-157"],
            [{"kind": "detection", "detector": "text-repetition", "count": 0}],
            doomLoop=True,
            runs=[fresh([turn(item)])],
        ),
        "rule": "4.1",
    }


def _message(part_type: str) -> JsonObject:
    """An assistant message whose one part, of type ``part_type``, holds the stuck text."""
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": part_type, "text": STUCK_20}],
    }


def _server_item(kind: str) -> JsonObject:
    """A server-tool item of type ``kind`` carrying the stuck text as message-like content."""
    return {"type": kind, "id": "si_1", "content": [{"type": "output_text", "text": STUCK_20}]}


PINS: list[JsonObject] = [
    {
        **scenario(
            "P-01",
            "A tool result is sent as JS JSON.stringify writes it: arrays, literals, "
            "an integer past 2^53 as its double, 1e-7 in exponent form",
            ["ENG-105"],
            [
                {
                    "kind": "request",
                    "dispatch": 1,
                    "at": "/input/-1/output",
                    "equals": '{"list":[1,2.5,true,false,null,"x"],"big":9007199254740992,'
                    '"edge":9007199254740992,"tiny":1e-7}',
                }
            ],
            tools=[
                {
                    "name": "lookup",
                    "result": {
                        "list": [1, 2.5, True, False, None, "x"],
                        "big": 9007199254740993,
                        "edge": 9007199254740992,
                        "tiny": 1e-7,
                    },
                }
            ],
            doomLoop=True,
            runs=[fresh([turn(call("lookup", {}, "c1")), DONE])],
        ),
        "rule": "3.4",
    },
    {
        **scenario(
            "P-02",
            "A handler's block on a text verdict is applied as observe",
            ["ENG-94"],
            [{"kind": "applied", "equals": ["observe"]}],
            hooks=[{"returns": {"overrideAction": "block"}}],
            doomLoop=True,
            runs=[fresh([turn(text(STUCK_20))])],
        ),
        "rule": "5.3.3",
    },
    {
        **scenario(
            "P-03",
            "A handler registered for another tool is not run; one registered for the "
            "looping tool is",
            ["ENG-91"],
            [{"kind": "applied", "equals": ["observe", "observe", "observe"]}],
            tools=[WEB_SEARCH],
            hooks=[
                {"tool": "other", "returns": {"overrideAction": "stop"}},
                {"tool": "web_search", "returns": {"overrideAction": "observe"}},
            ],
            doomLoop=True,
            runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        ),
        "rule": "5.1",
    },
    {
        **scenario(
            "P-04",
            "A handler whose payload condition does not hold is not run",
            ["ENG-91", "ENG-93"],
            [{"kind": "applied", "equals": ["observe", "steer", "steer"]}],
            tools=[WEB_SEARCH],
            hooks=[{"when": {"action": "block"}, "returns": {"overrideAction": "steer"}}],
            doomLoop=True,
            runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        ),
        "rule": "5.1, 5.3.1",
    },
    {
        **scenario(
            "P-05",
            "A tool result holding 0 is sent as 0, not false",
            ["ENG-105"],
            [{"kind": "request", "dispatch": 1, "at": "/input/-1/output", "equals": '{"n":0}'}],
            tools=[{"name": "lookup", "result": {"n": 0}}],
            doomLoop=True,
            runs=[fresh([turn(call("lookup", {}, "c1")), DONE])],
        ),
        "rule": "3.4",
    },
    _stop_when_3(
        "P-06", "stopWhen 3 holds after the third round, not before", ["ENG-147", "ENG-132"]
    ),
    _stop_when_3(
        "P-07",
        "allowFinalResponse 0 is not false (JS !== false): the final dispatch is sent",
        ["ENG-23", "ENG-147"],
        allowFinalResponse=0,
    ),
    _skipped_handler_first(
        "P-08",
        "A handler whose condition does not hold is skipped; a later handler still runs",
        {"when": {"action": "stop"}, "returns": {"overrideAction": "steer"}},
    ),
    _skipped_handler_first(
        "P-09", "A handler returning nothing is skipped; a later handler still runs", {}
    ),
    _skipped_handler_first(
        "P-10",
        "A handler result without overrideAction is skipped; a later handler still runs",
        {"returns": {}},
    ),
    _skipped_handler_first(
        "P-11",
        "A handler result with an unknown action is dropped; a later handler still runs",
        {"returns": {"overrideAction": "explode"}},
    ),
    {
        **scenario(
            "P-12",
            "A server item repeated to the block rung is observed, never blocked",
            ["ENG-57", "ENG-58"],
            [
                {
                    "kind": "detections",
                    "detector": "server-tool-fingerprint",
                    "equals": [["observe", 2], ["observe", 3], ["observe", 4]],
                }
            ],
            tools=[{"name": "note"}],
            doomLoop=True,
            runs=[fresh([*server_turns([{"type": "search", "query": "same query"}] * 4), DONE])],
        ),
        "rule": "2.5.4",
    },
    {
        **scenario(
            "P-13",
            "An advisor of 0 is not false (JS !== false): the escalated dispatch offers it",
            ["ENG-73"],
            [{"kind": "advisor", "dispatch": 2, "instructionsContain": "escalation advisor"}],
            tools=[WEB_SEARCH],
            doomLoop={"ladder": ESCALATE_AT_2, "escalation": {"advisor": 0}},
            runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
        ),
        "rule": "3.3",
    },
    {
        **scenario(
            "P-14",
            "A model-only escalation keeps the caller's forced choice on the wire: "
            "it is consumed there and the next dispatch carries the relaxed auto",
            ["ENG-74", "ENG-145"],
            [{"kind": "request", "dispatch": 3, "at": "/toolChoice", "equals": "auto"}],
            tools=[WEB_SEARCH],
            doomLoop={"ladder": ESCALATE_AT_2, "escalation": FRONTIER},
            request={
                "toolChoice": {"type": "function", "name": "web_search"},
                "toolChoiceFromDispatch": 2,
            },
            runs=[
                fresh(
                    [
                        *repeated_calls("web_search", SAME, 2),
                        turn(call("web_search", {"query": "different"}, "c3")),
                        DONE,
                    ]
                )
            ],
        ),
        "rule": "3.3",
    },
    _state_saved("P-15", 0),
    _state_saved("P-16", "off"),
    _toolchoice_every_dispatch(
        "P-17",
        {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "read"}]},
    ),
    {
        **scenario(
            "P-18",
            "A forced object of a type other than function (web_search_preview) is consumed: "
            "dispatch 1 carries auto (engine brief 10.6)",
            ["ENG-145"],
            [{"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": "auto"}],
            tools=[{"name": "read"}],
            doomLoop=True,
            request={"toolChoice": {"type": "web_search_preview"}},
            runs=[fresh([*_reads(1), DONE])],
        ),
        "rule": "10.6",
    },
    _not_text(
        "P-19",
        "A server item sorting before message (code_interpreter_call) is not text",
        _server_item("code_interpreter_call"),
    ),
    _not_text(
        "P-20",
        "A server item sorting after message (web_search_call) is not text",
        _server_item("web_search_call"),
    ),
    _not_text(
        "P-21",
        "A message part sorting before output_text (input_text) is not text",
        _message("input_text"),
    ),
    _not_text(
        "P-22",
        "A message part sorting after output_text (refusal) is not text",
        _message("refusal"),
    ),
    {
        **scenario(
            "P-23",
            "A server item whose type sorts before function_call is not a call: "
            "with no call the run completes",
            ["ENG-56", "ENG-161"],
            [{"kind": "end", "at": "/reason", "equals": "complete"}],
            tools=[{"name": "read"}],
            doomLoop=True,
            runs=[fresh([turn({"type": "code_interpreter_call", "id": "ci_1", "code": "1"})])],
        ),
        "rule": "7.1",
    },
    {
        **scenario(
            "P-24",
            "A fresh turn on a conversation awaiting approval saves in_progress before its "
            "first dispatch (seen when that dispatch has no scripted response)",
            ["ENG-160"],
            [{"kind": "state", "at": "/status", "equals": "in_progress"}],
            doomLoop=True,
            initialState={"status": "awaiting_approval", "messages": []},
            runs=[fresh([])],
        ),
        "rule": "7.1",
    },
    {
        **scenario(
            "P-25",
            "A fresh turn on a conversation awaiting client tools saves nothing before its "
            "first response (seen when that dispatch has no scripted response)",
            ["ENG-160"],
            [{"kind": "state", "at": "/status", "absent": True}],
            doomLoop=True,
            initialState={"status": "awaiting_client_tools", "messages": []},
            runs=[fresh([])],
        ),
        "rule": "7.1",
    },
    {
        **scenario(
            "P-26",
            "The stopWhen final dispatch does not take an escalation latched in the round "
            "before it: it keeps the request's model",
            ["ENG-75", "ENG-147"],
            [{"kind": "dispatches", "models": ["cheap-model", "cheap-model", "cheap-model"]}],
            tools=[WEB_SEARCH],
            doomLoop={"ladder": ESCALATE_AT_2, "escalation": FRONTIER},
            request={"stopWhenSteps": 1},
            runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
        ),
        "rule": "7.5",
    },
    {
        **scenario(
            "P-27",
            "The stopWhen final dispatch carries tool choice none, so it does not consume "
            "the caller's forced choice: the state records no consumed key",
            ["ENG-145"],
            [{"kind": "state", "at": "/consumedForcedToolChoiceKey", "absent": True}],
            tools=[{"name": "read"}],
            doomLoop=True,
            request={
                "stopWhenSteps": 1,
                "toolChoice": {"type": "function", "name": "read"},
                "toolChoiceFromDispatch": 9,
            },
            runs=[fresh([*_reads(2), DONE])],
        ),
        "rule": "7.5",
    },
]
