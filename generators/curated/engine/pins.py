"""Engine scenarios that pin what the mutation jobs found unpinned (spec §15).

The engine mutation jobs (the reference's, ``tests/mutation/run.py --package
engine``, and the Go port's, ``go run . -package engine`` in
``tests/mutation/gomutate``) judge each mutant by the engine vectors alone; a
mutant no vector kills is a behaviour no vector pins. Each entry here pins one
such behaviour with one fact, its expected value worked out by hand from the
statement it cites (the brief's section is ``rule``), in the format of
:mod:`.brief`. P-47 on come from the Go port's job (issue 26).
"""

from __future__ import annotations

import json

from .brief import DONE, ESCALATE_AT_2, FRONTIER, SAME, STUCK_20, WEB_SEARCH, server_turns
from .builders import Json, JsonObject, call, fresh, repeated_calls, scenario, text, turn

OVERRIDE_OBSERVE: JsonObject = {"returns": {"overrideAction": "observe"}}
"""A handler overriding every verdict to observe: the default ladder's 4 identical calls
(observe 2, block 3) then apply observe, observe, observe (ENG-93)."""


def _skipped_handler_first(
    name: str, title: str, skipped: JsonObject, spec: tuple[str, ...] = ("ENG-91", "ENG-93")
) -> JsonObject:
    """A handler that is skipped, then one that overrides: the later one still wins (ENG-93)."""
    return scenario(
        name,
        title,
        spec,
        [{"kind": "applied", "equals": ["observe", "observe", "observe"]}],
        tools=[WEB_SEARCH],
        hooks=[skipped, OVERRIDE_OBSERVE],
        doomLoop=True,
        runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        rule="5.1, 5.3.1",
    )


def _steer_when_action(name: str, title: str, action: str, applied: list[str]) -> JsonObject:
    """A handler overriding to steer only the verdicts whose ``action`` is ``action``,
    over the default ladder's 4 identical calls (observe 2, block 3, block 4)."""
    return scenario(
        name,
        title,
        ["ENG-91", "ENG-93"],
        [{"kind": "applied", "equals": applied}],
        tools=[WEB_SEARCH],
        hooks=[{"when": {"action": action}, "returns": {"overrideAction": "steer"}}],
        doomLoop=True,
        runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        rule="5.1, 5.3.1",
    )


def _reads(count: int) -> list[JsonObject]:
    """``count`` responses, each one ``read`` call of a different path: no loop."""
    return [turn(call("read", {"path": f"p{i}"}, f"c{i}")) for i in range(count)]


def _stop_when_3(name: str, title: str, spec: list[str], **request: Json) -> JsonObject:
    """stopWhen 3 over four reads: rounds 1-3 run in the main loop, the fourth response's
    call runs on the stopWhen path, and dispatch 4 is the final one, tool choice none
    (ENG-147, ENG-132, ENG-145)."""
    return scenario(
        name,
        title,
        spec,
        [{"kind": "request", "dispatch": 4, "at": "/toolChoice", "equals": "none"}],
        tools=[{"name": "read"}],
        doomLoop=True,
        request={"stopWhenSteps": 3, **request},
        runs=[fresh([*_reads(4), DONE])],
        rule="7.5",
    )


def _toolchoice_every_dispatch(name: str, choice: JsonObject) -> JsonObject:
    """A tool choice that is not forced (an ``allowed_tools`` in mode ``auto``) is sent on
    every dispatch, the second included (ENG-145)."""
    return scenario(
        name,
        f"A tool choice of type {choice['type']} in mode {choice.get('mode')} is not forced: "
        "dispatch 1 still carries it",
        ["ENG-145"],
        [{"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": choice}],
        tools=[{"name": "read"}],
        doomLoop=True,
        request={"toolChoice": choice},
        runs=[fresh([*_reads(1), DONE])],
        rule="3.6",
    )


def _state_saved(name: str, accessor: Json) -> JsonObject:
    """A ``stateAccessor`` other than false leaves saving on (JS ``!== false``, ENG-23)."""
    return scenario(
        name,
        f"stateAccessor {json.dumps(accessor)} is not false (JS !== false): state is saved",
        ["ENG-23"],
        [{"kind": "state", "at": "/status", "equals": "complete"}],
        tools=[{"name": "read"}],
        doomLoop=True,
        stateAccessor=accessor,
        runs=[fresh([*_reads(1), DONE])],
        rule="6",
    )


def _not_text(name: str, title: str, item: JsonObject) -> JsonObject:
    """A response whose only item holds the stuck text outside an assistant message's
    ``output_text`` part: the text check sees no text, so no text verdict (ENG-157)."""
    return scenario(
        name,
        title,
        ["ENG-157"],
        [{"kind": "detection", "detector": "text-repetition", "count": 0}],
        doomLoop=True,
        runs=[fresh([turn(item)])],
        rule="4.1",
    )


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


def _project_on_arrays(
    name: str, title: str, fields: JsonObject, arguments: list[str], facts: JsonObject
) -> JsonObject:
    """A ``project`` loop key over arguments that are arrays, one call a round: the
    function reads ``args[name]`` as JS does (ENG-154, §15.1.4 "as the equivalent JS
    functions would"), so the detections show which rounds got the same key material."""
    return scenario(
        name,
        title,
        ["ENG-39", "ENG-154"],
        [facts],
        tools=[{"name": "read", "loopKey": {"function": "project", "fields": fields}}],
        doomLoop=True,
        runs=[
            fresh([turn(call("read", raw, f"c{i}")) for i, raw in enumerate(arguments)] + [DONE])
        ],
        rule="10.10",
    )


def _read_detections(*pairs: tuple[str, int]) -> JsonObject:
    return {"kind": "detections", "equals": [list(pair) for pair in pairs]}


def _well_formed_item(name: str, title: str, item: JsonObject, fact: JsonObject) -> JsonObject:
    """ENG-23 checks the text of a message's ``output_text`` parts only: a response whose
    one item holds a non-string text elsewhere is well formed, and the run answers it."""
    return scenario(
        name, title, ["ENG-23"], [fact], doomLoop=True, runs=[fresh([turn(item)])], rule="8"
    )


def _message_parts(*parts: Json) -> JsonObject:
    return {"type": "message", "role": "assistant", "content": list(parts)}


def _choice_on_dispatch_1(name: str, title: str, choice: Json, sent: Json) -> JsonObject:
    """The caller's ``choice`` on dispatch 0 is answered with a call; dispatch 1 shows
    whether it was forced (relaxed there) or not (sent unchanged) (ENG-145)."""
    return scenario(
        name,
        title,
        ["ENG-145"],
        [{"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": sent}],
        tools=[{"name": "read"}],
        doomLoop=True,
        request={"toolChoice": choice},
        runs=[fresh([*_reads(1), DONE])],
        rule="10.6",
    )


def _search(i: int, action: Json) -> JsonObject:
    """A ``web_search_call`` server item (ENG-56)."""
    return {"type": "web_search_call", "id": f"ws_{i}", "status": "completed", "action": action}


def _nested_array(depth: int) -> Json:
    """A value ``depth`` arrays deep: past the canonical form's depth limit, no fingerprint."""
    value: Json = "x"
    for _ in range(depth):
        value = [value]
    return value


def _ghost_round(i: int) -> JsonObject:
    """An unknown call sharing its id with the first of two ``read`` calls (so it is answered,
    ENG-150, and the run goes on), then the two calls: one fan-out of two."""
    return turn(
        call("ghost", {}, f"c{i}a"),
        call("read", {"p": 1}, f"c{i}a"),
        call("read", {"p": 2}, f"c{i}b"),
    )


PINS: list[JsonObject] = [
    scenario(
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
        rule="3.4",
    ),
    scenario(
        "P-02",
        "A handler's block on a text verdict is applied as observe",
        ["ENG-94"],
        [{"kind": "applied", "equals": ["observe"]}],
        hooks=[{"returns": {"overrideAction": "block"}}],
        doomLoop=True,
        runs=[fresh([turn(text(STUCK_20))])],
        rule="5.3.3",
    ),
    scenario(
        "P-03",
        "A handler registered for another tool is not run; one registered for the looping tool is",
        ["ENG-91"],
        [{"kind": "applied", "equals": ["observe", "observe", "observe"]}],
        tools=[WEB_SEARCH],
        hooks=[
            {"tool": "other", "returns": {"overrideAction": "stop"}},
            {"tool": "web_search", "returns": {"overrideAction": "observe"}},
        ],
        doomLoop=True,
        runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        rule="5.1",
    ),
    _steer_when_action(
        "P-04",
        "A handler whose payload condition does not hold is not run",
        "block",
        ["observe", "steer", "steer"],
    ),
    scenario(
        "P-05",
        "A tool result holding 0 is sent as 0, not false",
        ["ENG-105"],
        [{"kind": "request", "dispatch": 1, "at": "/input/-1/output", "equals": '{"n":0}'}],
        tools=[{"name": "lookup", "result": {"n": 0}}],
        doomLoop=True,
        runs=[fresh([turn(call("lookup", {}, "c1")), DONE])],
        rule="3.4",
    ),
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
    scenario(
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
        rule="2.5.4",
    ),
    scenario(
        "P-13",
        "An advisor of 0 is not false (JS !== false): the escalated dispatch offers it",
        ["ENG-73"],
        [{"kind": "advisor", "dispatch": 2, "instructionsContain": "escalation advisor"}],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": ESCALATE_AT_2, "escalation": {"advisor": 0}},
        runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
        rule="3.3",
    ),
    scenario(
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
        rule="3.3",
    ),
    _state_saved("P-15", 0),
    _state_saved("P-16", "off"),
    _toolchoice_every_dispatch(
        "P-17",
        {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "read"}]},
    ),
    scenario(
        "P-18",
        "A forced object of a type other than function (web_search_preview) is consumed: "
        "dispatch 1 carries auto (engine brief 10.6)",
        ["ENG-145"],
        [{"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": "auto"}],
        tools=[{"name": "read"}],
        doomLoop=True,
        request={"toolChoice": {"type": "web_search_preview"}},
        runs=[fresh([*_reads(1), DONE])],
        rule="10.6",
    ),
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
    scenario(
        "P-23",
        "A server item whose type sorts before function_call is not a call: "
        "with no call the run completes",
        ["ENG-56", "ENG-161"],
        [{"kind": "end", "at": "/reason", "equals": "complete"}],
        tools=[{"name": "read"}],
        doomLoop=True,
        runs=[fresh([turn({"type": "code_interpreter_call", "id": "ci_1", "code": "1"})])],
        rule="7.1",
    ),
    scenario(
        "P-24",
        "A fresh turn on a conversation awaiting approval saves in_progress before its "
        "first dispatch (seen when that dispatch has no scripted response)",
        ["ENG-160"],
        [{"kind": "state", "at": "/status", "equals": "in_progress"}],
        doomLoop=True,
        initialState={"status": "awaiting_approval", "messages": []},
        runs=[fresh([])],
        rule="7.1",
    ),
    scenario(
        "P-25",
        "A fresh turn on a conversation awaiting client tools saves nothing before its "
        "first response (seen when that dispatch has no scripted response)",
        ["ENG-160"],
        [{"kind": "state", "at": "/status", "absent": True}],
        doomLoop=True,
        initialState={"status": "awaiting_client_tools", "messages": []},
        runs=[fresh([])],
        rule="7.1",
    ),
    scenario(
        "P-26",
        "The stopWhen final dispatch does not take an escalation latched in the round "
        "before it: it keeps the request's model",
        ["ENG-75", "ENG-147"],
        [{"kind": "dispatches", "models": ["cheap-model", "cheap-model", "cheap-model"]}],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": ESCALATE_AT_2, "escalation": FRONTIER},
        request={"stopWhenSteps": 1},
        runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
        rule="7.5",
    ),
    scenario(
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
        rule="7.5",
    ),
    scenario(
        "P-28",
        "toolInput copies a member whose name sorts before __proto__ (Path)",
        ["ENG-153"],
        [{"kind": "detection", "index": 0, "has": {"toolInput": {"Path": "a"}}}],
        tools=[{"name": "read"}],
        doomLoop=True,
        runs=[fresh([*repeated_calls("read", {"Path": "a"}, 2), DONE])],
        rule="5.1",
    ),
    _skipped_handler_first(
        "P-29",
        "A handler that fails is ignored; a later handler still runs",
        {"fails": "the handler broke"},
        ("ENG-93", "ENG-97"),
    ),
    _steer_when_action(
        "P-30",
        "A handler whose condition names a value sorting after the payload's is not run",
        "observe",
        ["steer", "block", "block"],
    ),
    scenario(
        "P-31",
        "A call whose identity cannot be resolved is left out of the declaration; "
        "the calls after it are still declared as one round set",
        ["ENG-35", "ENG-40"],
        [{"kind": "detection", "everyMessageContains": "same set of 2 parallel calls"}],
        tools=[
            {"name": "flaky", "loopKey": {"function": "resolution-fails", "message": "no"}},
            {"name": "read"},
        ],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(
                        call("flaky", {}, f"f{i}"),
                        call("read", {"p": "a"}, f"a{i}"),
                        call("read", {"p": "b"}, f"b{i}"),
                    )
                    for i in range(2)
                ]
                + [DONE]
            )
        ],
        rule="2.2.5",
    ),
    scenario(
        "P-32",
        "A server item with no identity is skipped; a later server item of the response "
        "is still recorded",
        ["ENG-57", "ENG-58"],
        [
            {
                "kind": "detections",
                "detector": "server-tool-fingerprint",
                "equals": [["observe", 2]],
            }
        ],
        tools=[{"name": "note"}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(
                        {"type": "web_search_call", "id": f"bare_{i}", "status": "completed"},
                        {
                            "type": "web_search_call",
                            "id": f"ws_{i}",
                            "status": "completed",
                            "action": {"type": "search", "query": "same"},
                        },
                        call("note", {"n": i}, f"c{i}"),
                    )
                    for i in range(2)
                ]
                + [DONE]
            )
        ],
        rule="2.5.2",
    ),
    _project_on_arrays(
        "P-33",
        "A project loop key reads an array's length: three arrays of length 1, then one "
        "of length 2",
        {"length": []},
        ["[1]", "[2]", "[3]", "[4,5]"],
        _read_detections(("observe", 2), ("block", 3)),
    ),
    _project_on_arrays(
        "P-34",
        "A project loop key reads an array element by its index name 0: three arrays "
        "starting with 1, then one starting with 2",
        {"0": []},
        ["[1]", "[1,2]", "[1,3]", "[2]"],
        _read_detections(("observe", 2), ("block", 3)),
    ),
    _project_on_arrays(
        "P-35",
        "A project loop key over names an array does not have (00, 01, zz) reads "
        "undefined: two different arrays give the same key",
        {"00": [], "01": [], "zz": []},
        ["[1,2]", "[3,4,5]"],
        _read_detections(("observe", 2)),
    ),
    _project_on_arrays(
        "P-36",
        "A project loop key over index names at or past the array's length (1, 2) "
        "reads undefined: two different one-element arrays give the same key",
        {"1": [], "2": []},
        ["[5]", "[6]"],
        _read_detections(("observe", 2)),
    ),
    scenario(
        "P-37",
        "A tool body returning null is answered with the output null",
        ["ENG-105", "ENG-151"],
        [{"kind": "request", "dispatch": 1, "at": "/input/-1/output", "equals": "null"}],
        tools=[{"name": "lookup", "result": None}],
        doomLoop=True,
        runs=[fresh([turn(call("lookup", {}, "c1")), DONE])],
        rule="3.4",
    ),
    scenario(
        "P-38",
        "A run that fails for an approval without a state accessor still reports its "
        "resolved configuration (default block rung 3)",
        ["ENG-143", "CFG-12"],
        [{"kind": "config", "at": "/ladder/block", "equals": 3}],
        tools=[{"name": "risky", "kind": "approval"}],
        doomLoop=True,
        stateAccessor=False,
        runs=[fresh([turn(call("risky", {}, "r1"))])],
        rule="10.11",
    ),
    scenario(
        "P-39",
        "allowFinalResponse 1 is neither true nor a string: the final dispatch ends with "
        "the round's output, no directive (decision: JS === true)",
        ["ENG-147"],
        [
            {
                "kind": "request",
                "dispatch": 2,
                "at": "/input/-1/type",
                "equals": "function_call_output",
            }
        ],
        tools=[{"name": "read"}],
        doomLoop=True,
        request={"stopWhenSteps": 1, "allowFinalResponse": 1},
        runs=[fresh([*_reads(2), DONE])],
        rule="10.5",
    ),
    scenario(
        "P-40",
        "A fresh turn on a conversation awaiting approval keeps its pending calls: only "
        "a client-tools pause is cleared by the first response",
        ["ENG-159", "ENG-161"],
        [{"kind": "state", "run": 1, "at": "/pendingToolCalls/0/callId", "equals": "r1"}],
        tools=[{"name": "risky", "kind": "approval"}],
        doomLoop=True,
        runs=[fresh([turn(call("risky", {}, "r1"))]), fresh([DONE], "never mind")],
        rule="10.3",
    ),
    _choice_on_dispatch_1(
        "P-41",
        "An allowed_tools choice without a mode is not forced: dispatch 1 carries it "
        "unchanged (decision: JS mode === 'required')",
        {"type": "allowed_tools", "tools": [{"type": "function", "name": "read"}]},
        {"type": "allowed_tools", "tools": [{"type": "function", "name": "read"}]},
    ),
    _choice_on_dispatch_1(
        "P-42",
        "An object choice without a type is forced: consumed by dispatch 0's call, "
        "dispatch 1 carries auto (decision: JS typeof object)",
        {"name": "read"},
        "auto",
    ),
    _well_formed_item(
        "P-43",
        "A message part sorting before output_text (input_text) may hold a text that is "
        "not a string",
        _message_parts({"type": "input_text", "text": 0}),
        {"kind": "end", "at": "/finalText", "equals": ""},
    ),
    _well_formed_item(
        "P-44",
        "A message part sorting after output_text (refusal) may hold a text that is not a string",
        _message_parts({"type": "refusal", "text": 0}),
        {"kind": "end", "at": "/finalText", "equals": ""},
    ),
    _well_formed_item(
        "P-45",
        "A server item sorting before message (code_interpreter_call) may hold an "
        "output_text part whose text is not a string",
        {
            "type": "code_interpreter_call",
            "id": "ci_1",
            "content": [{"type": "output_text", "text": 0}],
        },
        {"kind": "end", "at": "/reason", "equals": "complete"},
    ),
    _well_formed_item(
        "P-46",
        "A server item sorting after message (web_search_call) may hold an output_text "
        "part whose text is not a string",
        {
            "type": "web_search_call",
            "id": "ws_1",
            "content": [{"type": "output_text", "text": 0}],
        },
        {"kind": "end", "at": "/reason", "equals": "complete"},
    ),
    # -- found by the Go port's engine mutation job (issue 26) --
    scenario(
        "P-47",
        "An approval pause whose auto-run batch is empty keeps the unsent results stored before",
        ["ENG-155"],
        [{"kind": "state", "run": 1, "at": "/unsentToolResults/0/callId", "equals": "c1"}],
        tools=[{"name": "read"}, {"name": "risky", "kind": "approval"}],
        doomLoop=True,
        runs=[
            fresh([turn(call("read", {}, "c1"), call("risky", {}, "c2"))]),
            fresh([turn(call("risky", {"again": True}, "c3"))], user="again"),
        ],
        rule="7.7",
    ),
    scenario(
        "P-48",
        "An unknown call before the calls of a round leaves them declared: the round's "
        "two read calls repeat as a fan-out of two",
        ["ENG-35", "ENG-36"],
        [{"kind": "detection", "everyMessageContains": "the same set of 2 parallel calls"}],
        tools=[{"name": "read"}],
        doomLoop=True,
        runs=[fresh([_ghost_round(1), _ghost_round(2), DONE])],
        rule="2.2.2",
    ),
    scenario(
        "P-49",
        "A server item after a message item is recorded: its repetition is detected",
        ["ENG-56"],
        [{"kind": "detection", "detector": "server-tool-fingerprint", "count": 1}],
        tools=[{"name": "note"}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(text("first"), _search(1, SAME), call("note", {"n": 1}, "c1")),
                    turn(text("second"), _search(2, SAME), call("note", {"n": 2}, "c2")),
                    DONE,
                ]
            )
        ],
        rule="2.5.1",
    ),
    scenario(
        "P-50",
        "The final text is the first message's text, after a server item",
        ["ENG-157"],
        [{"kind": "end", "at": "/finalText", "equals": "done"}],
        doomLoop=True,
        runs=[fresh([turn(_search(1, SAME), text("done"))])],
        rule="4.2",
    ),
    scenario(
        "P-51",
        "The final text is the first message item's: a first message without output text "
        "gives the empty text, a later message's text is not read",
        ["ENG-157"],
        [{"kind": "end", "at": "/finalText", "equals": ""}],
        doomLoop=True,
        runs=[fresh([turn(_message_parts(), text("done"))])],
        rule="4.2",
    ),
    scenario(
        "P-52",
        "An empty field list falls back with its warning whatever the arguments, a number included",
        ["ENG-154", "ENG-168"],
        [
            {
                "kind": "warning",
                "contains": ['[DoomLoop] tool "read": loopKey is an empty field list'],
            }
        ],
        tools=[{"name": "read", "loopKey": []}],
        doomLoop=True,
        runs=[fresh([turn(call("read", "5", "c1")), DONE])],
        rule="10.10",
    ),
    scenario(
        "P-53",
        "The caller's model is the model of every dispatch",
        ["ENG-156"],
        [{"kind": "dispatches", "models": ["house-model", "house-model"]}],
        tools=[{"name": "read"}],
        doomLoop=True,
        request={"model": "house-model"},
        runs=[fresh([*_reads(1), DONE])],
        rule="1.1",
    ),
    scenario(
        "P-54",
        "Without declared tools a response with calls ends the run: no pause for client tools",
        ["ENG-161"],
        [{"kind": "end", "at": "/status", "equals": "complete"}],
        doomLoop=True,
        runs=[fresh([*_reads(1)])],
        rule="7.2",
    ),
    _choice_on_dispatch_1(
        "P-55",
        "A tool choice that is an array is forced (JS typeof object): consumed by "
        "dispatch 0's call, dispatch 1 carries auto",
        ["read"],
        "auto",
    ),
    scenario(
        "P-56",
        "A server item whose identity has no fingerprint (nested past the canonical "
        "form's limit) is not recorded: its repetition is never detected",
        ["ENG-50", "ENG-58"],
        [{"kind": "detection", "detector": "server-tool-fingerprint", "count": 0}],
        tools=[{"name": "note"}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(_search(1, _nested_array(70)), call("note", {"n": 1}, "c1")),
                    turn(_search(2, _nested_array(70)), call("note", {"n": 2}, "c2")),
                    DONE,
                ]
            )
        ],
        rule="2.3.5",
    ),
    scenario(
        "P-57",
        "A raw lone surrogate in the arguments text reaches the body unchanged: the "
        "parsed string holds U+D800, not a replacement character",
        ["ENG-137", "ENG-39"],
        [{"kind": "executions", "tool": "read", "arguments": [{"q": "\ud800"}]}],
        tools=[{"name": "read"}],
        doomLoop=True,
        runs=[fresh([turn(call("read", '{"q":"\ud800"}', "c1")), DONE])],
        rule="10.10",
    ),
    scenario(
        "P-58",
        "The project transform lower is JS toLowerCase, final sigma included: after a "
        "letter that is not cased (中) a capital sigma lowers to the medial sigma U+03C3, "
        "not the final U+03C2, so q 中 U+03A3 and q 中 U+03C3 give the same key",
        ["ENG-39", "ENG-154"],  # and §15.1.4: "as the equivalent JS functions would"
        [_read_detections(("observe", 2))],
        tools=[{"name": "read", "loopKey": {"function": "project", "fields": {"q": ["lower"]}}}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(call("read", {"q": "中Σ"}, "c1")),
                    turn(call("read", {"q": "中σ"}, "c2")),
                    DONE,
                ]
            )
        ],
        rule="10.10",
    ),
    scenario(
        "P-59",
        "A fraction in the arguments reaches the body as that number: only a number past "
        "the doubles (JS Infinity) is written null in the transcript",
        ["ENG-137", "ENG-156"],
        [{"kind": "executions", "tool": "read", "arguments": [{"n": 1.5}]}],
        tools=[{"name": "read"}],
        doomLoop=True,
        runs=[fresh([turn(call("read", '{"n":1.5}', "c1")), DONE])],
        rule="10.10",
    ),
]
