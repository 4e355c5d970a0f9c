"""Engine scenarios decided by running the SDK's own run loop (issue 30).

The brief and the SDK's recorded answers were silent on these inputs, and the
kit's three engines agreed with each other but not with the SDK once the SDK
itself could be run (``../shared/sdk``). Each entry pins one fact the SDK
showed, cites the statement that now makes it normative, and names the
difference class it settles (``origin``). The entries of origin "issue 31"
pin format facts of §15.1.4 that no vector pinned, each checked against the
SDK's run loop before it was written.
"""

from __future__ import annotations

from .builders import Json, JsonObject, call, decide, fresh, repeated_calls, scenario, text, turn

READ: JsonObject = {"name": "read"}
EMPTY: JsonObject = {"output": []}
READ_TOOL: JsonObject = {"type": "function", "name": "read"}
RISKY: JsonObject = {"name": "risky", "kind": "approval"}
HALT_PREFIX = "Run halted by doom-loop detection: "


def _entry(
    name: str, title: str, origin: str, spec: list[str], fact: JsonObject, **scenario_data: Json
) -> JsonObject:
    """One fact the SDK showed: one vector (``runs`` and the rest are the scenario)."""
    runs = scenario_data.pop("runs")
    tools = scenario_data.pop("tools", [READ])
    entry = scenario(name, title, spec, [fact], runs=runs, tools=tools, **scenario_data)  # type: ignore[arg-type]
    return {**entry, "origin": f"checked against the SDK (issue 30 {origin})"}


def _message(*parts: JsonObject) -> JsonObject:
    return {"type": "message", "role": "assistant", "content": list(parts)}


def _output_text(content: str) -> JsonObject:
    return {"type": "output_text", "text": content}


def _condemned(stop_verdict: Json) -> JsonObject:
    """A decision resume of a completed conversation whose blob holds ``stop_verdict``:
    re-armed, the first response's call is sealed at stop gate A (EQ-08, ENG-158)."""
    state = {
        "status": "complete",
        "messages": [{"role": "user", "content": "go"}],
        "doomLoop": {"version": 1, "tools": {}, "stopVerdict": stop_verdict},
    }
    return {
        "doomLoop": True,
        "initialState": state,
        "runs": [decide([turn(call("read", {}, "c1"))], approve=["elsewhere"])],
    }


def _sealed(output: str) -> JsonObject:
    return {"kind": "state", "at": "/messages/2/output", "equals": output}


def _halt(message: str) -> str:
    return '{"error":"' + HALT_PREFIX + message + '"}'


def _pending_fold(unsent: JsonObject) -> JsonObject:
    """A conversation awaiting approval of ``c1`` with ``unsent`` stored for ``c9``; the
    approval folds it into the resume dispatch's input before c1's own result."""
    state = {
        "status": "awaiting_approval",
        "messages": [
            {"role": "user", "content": "go"},
            call("risky", {}, "c1"),
            call("read", {}, "c9"),
        ],
        "pendingToolCalls": [call("risky", {}, "c1")],
        "unsentToolResults": [{"callId": "c9", "name": "read", **unsent}],
    }
    return {
        "tools": [RISKY, READ],
        "doomLoop": True,
        "initialState": state,
        "runs": [decide([turn(text("done"))], approve=["c1"])],
    }


def _keyed(form: JsonObject, arguments: JsonObject) -> JsonObject:
    """Two identical calls of ``read`` with ``form`` as its loopKey, then a text: the
    second call would reach the default ladder's observe rung (2)."""
    return {
        "tools": [{"name": "read", "loopKey": form}],
        "doomLoop": True,
        "runs": [fresh([*repeated_calls("read", arguments, 2), turn(text("done"))])],
    }


def _fallback(thrown: str) -> JsonObject:
    """The loop-key fallback warning quoting ``thrown`` (KEY-20, ENG-168)."""
    return {
        "kind": "warning",
        "contains": [f'[DoomLoop] tool "read": loopKey threw ({thrown}); falling back'],
    }


def _choice_from_1(choice: Json) -> JsonObject:
    """A tool choice with toolChoiceFromDispatch 1, over a call and a text."""
    return {
        "doomLoop": True,
        "request": {"toolChoice": choice, "toolChoiceFromDispatch": 1},
        "runs": [fresh([turn(call("read", {}, "c1")), turn(text("done"))])],
    }


def _unsent(result: Json) -> JsonObject:
    """An approval pause beside ``read``, whose body returns ``result``: its result is
    stored unsent (ENG-155)."""
    return {
        "tools": [RISKY, {"name": "read", "result": result}],
        "doomLoop": True,
        "runs": [fresh([turn(call("risky", {}, "r1"), call("read", {}, "c1"))])],
    }


def _stored_unsent(result: Json) -> JsonObject:
    return {
        "kind": "state",
        "at": "/unsentToolResults/0",
        "equals": {"callId": "c1", "name": "read", "output": result},
    }


def _not_replaced(state: JsonObject) -> JsonObject:
    """A run over the loaded ``state`` that fails before it is built (doomLoop null,
    ENG-176), so the store keeps that state."""
    return {"doomLoop": None, "initialState": state, "runs": [fresh([turn(text("ok"))])]}


SDK_CHECKED: list[JsonObject] = [
    # -- R1: the text of a response is its first message item's (ENG-157) -------------
    _entry(
        "C-01",
        "The text check reads the first message item only: a text in a second message "
        "item is never recorded",
        "R1",
        ["ENG-157", "ENG-109"],
        {"kind": "state", "at": "/doomLoop", "lacks": ["text"]},
        doomLoop=True,
        runs=[fresh([turn(_message(), _message(_output_text("stuck")))])],
    ),
    _entry(
        "C-02",
        "The first message item counts whatever its role: a user-role message's text is the "
        "final text",
        "R1",
        ["ENG-157"],
        {"kind": "end", "at": "/finalText", "equals": "u"},
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(
                        {"type": "message", "role": "user", "content": [_output_text("u")]},
                        _message(_output_text("a")),
                    )
                ]
            )
        ],
    ),
    _entry(
        "C-03",
        "Only output_text parts count: a first message holding a refusal part and no "
        "output_text gives the empty final text",
        "R1",
        ["ENG-157"],
        {"kind": "end", "at": "/finalText", "equals": ""},
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(
                        _message({"type": "refusal", "refusal": "no"}),
                        _message(_output_text("a")),
                    )
                ]
            )
        ],
    ),
    # -- R2: an empty text input on an empty conversation (ENG-174) ---------------------
    _entry(
        "C-04",
        "An empty text input on a conversation without messages is left out of the "
        "follow-up dispatch's input",
        "R2",
        ["ENG-174"],
        {"kind": "request", "dispatch": 1, "at": "/input/0/type", "equals": "function_call"},
        doomLoop=True,
        runs=[fresh([turn(call("read", {}, "c1")), turn(text("ok"))], user="")],
    ),
    _entry(
        "C-05",
        "An empty text input on a conversation without messages is saved with the first "
        "response all the same",
        "R2",
        ["ENG-174", "ENG-146"],
        {"kind": "state", "at": "/messages/0", "equals": {"role": "user", "content": ""}},
        doomLoop=True,
        runs=[fresh([turn(call("read", {}, "c1")), turn(text("ok"))], user="")],
    ),
    _entry(
        "C-06",
        "An empty text input on a conversation that holds messages stays in the follow-up "
        "dispatch's input",
        "R2",
        ["ENG-174"],
        {
            "kind": "request",
            "dispatch": 1,
            "at": "/input/2",
            "equals": {"role": "user", "content": ""},
        },
        doomLoop=True,
        initialState={
            "status": "complete",
            "messages": [{"role": "user", "content": "earlier"}, text("ok")],
        },
        runs=[fresh([turn(call("read", {}, "c1")), turn(text("ok"))], user="")],
    ),
    _entry(
        "C-07",
        "An empty text input on a conversation without messages is left out of the stopWhen "
        "final dispatch's input too",
        "R2",
        ["ENG-174", "ENG-147"],
        {"kind": "request", "dispatch": 1, "at": "/input/0/type", "equals": "function_call"},
        doomLoop=True,
        request={"stopWhenSteps": 1},
        runs=[fresh([turn(call("read", {}, "c1")), turn(text("ok"))], user="")],
    ),
    # -- R3: how an unsent result is folded (ENG-175) -----------------------------------
    _entry(
        "C-08",
        "An approved call whose body fails with an empty message is sent as the text null "
        "(its error is falsy, its output null)",
        "R3",
        ["ENG-175", "ENG-155"],
        {"kind": "request", "run": 1, "dispatch": 0, "at": "/input/2/output", "equals": "null"},
        tools=[{"name": "risky", "kind": "approval", "fails": ""}],
        doomLoop=True,
        runs=[fresh([turn(call("risky", {}, "c1"))]), decide([turn(text("done"))], approve=["c1"])],
    ),
    _entry(
        "C-09",
        "A stored unsent result whose error is falsy (0) is sent as its output",
        "R3",
        ["ENG-175"],
        {"kind": "request", "dispatch": 0, "at": "/input/3/output", "equals": "5"},
        **_pending_fold({"output": 5, "error": 0}),
    ),
    _entry(
        "C-10",
        "A stored unsent result without output and without error is sent as an output item "
        "without an output member",
        "R3",
        ["ENG-175"],
        {"kind": "request", "dispatch": 0, "at": "/input/3", "lacks": ["output"]},
        **_pending_fold({}),
    ),
    # -- R4: the halt text of a re-armed stop verdict (ENG-106) -------------------------
    _entry(
        "C-11",
        "A re-armed stop verdict that is a string seals with the halt text ending in undefined",
        "R4",
        ["ENG-106", "ENG-158"],
        _sealed(_halt("undefined")),
        **_condemned("stuck"),
    ),
    _entry(
        "C-12",
        "A re-armed stop verdict whose message is null seals with the halt text ending in null",
        "R4",
        ["ENG-106", "ENG-158"],
        _sealed(_halt("null")),
        **_condemned({"message": None}),
    ),
    _entry(
        "C-13",
        "A re-armed stop verdict whose message is an array seals with the elements joined "
        "by commas",
        "R4",
        ["ENG-106", "ENG-158"],
        _sealed(_halt("a,,b")),
        **_condemned({"message": ["a", None, "b"]}),
    ),
    # -- the doomLoop option null (ENG-176) ---------------------------------------------
    _entry(
        "C-14",
        "A doomLoop option of null fails the run with type-error before it is built",
        "null option",
        ["ENG-176", "ENG-141"],
        {"kind": "end", "at": "/error", "equals": {"kind": "type-error"}},
        doomLoop=None,
        runs=[fresh([turn(text("ok"))])],
    ),
    _entry(
        "C-15",
        "A run whose own doomLoop is null fails with no dispatch",
        "null option",
        ["ENG-176"],
        {"kind": "dispatches", "run": 1, "count": 0},
        doomLoop=True,
        runs=[fresh([turn(text("ok"))]), fresh([turn(text("ok"))], doomLoop=None)],
    ),
    _entry(
        "C-16",
        "A run failing on a null doomLoop keeps the status the state holds",
        "null option",
        ["ENG-176", "ENG-141"],
        {"kind": "end", "run": 1, "at": "/status", "equals": "complete"},
        doomLoop=True,
        runs=[fresh([turn(text("ok"))]), fresh([turn(text("ok"))], doomLoop=None)],
    ),
    _entry(
        "C-18",
        "A null escalation throws after the ladder's warnings were printed: the failed run "
        "lists them",
        "null option",
        ["ENG-176", "CFG-47"],
        {"kind": "config", "warningCode": "dead-rung"},
        doomLoop={"ladder": {"block": 6, "stop": 6}, "escalation": None},
        runs=[fresh([turn(text("ok"))])],
    ),
    _entry(
        "C-19",
        "A null text throws after the escalation block's warning was printed: the failed run "
        "lists it",
        "null option",
        ["ENG-176", "CFG-47"],
        {"kind": "config", "warningCode": "escalation-rung-unconfigured"},
        doomLoop={"ladder": {"escalate": 2}, "text": None},
        runs=[fresh([turn(text("ok"))])],
    ),
    # -- rows of issue 31 the vectors left unpinned --------------------------------------
    _entry(
        "C-20",
        "The early exit of a first response with no tools declared does not seal: an armed "
        "stop leaves the unknown call without output",
        "issue 31",
        ["ENG-161", "ENG-85", "ENG-113"],
        {"kind": "state", "at": "/messages", "length": 3},
        tools=[],
        doomLoop={"ladder": {"observe": False, "block": False, "stop": 1}},
        runs=[fresh([turn(text("hello"), call("ghost", {}, "g1"))])],
    ),
    _entry(
        "C-21",
        "On the stopWhen path a call of an approval tool runs without the caller's approval",
        "issue 31",
        ["ENG-147", "EQ-19"],
        {"kind": "executions", "tool": "risky", "count": 1},
        tools=[READ, RISKY],
        doomLoop=True,
        request={"stopWhenSteps": 1},
        runs=[
            fresh([turn(call("read", {}, "c1")), turn(call("risky", {}, "r1")), turn(text("ok"))])
        ],
    ),
    _entry(
        "C-22",
        "A body that fails in an approval-pause batch is stored as an unsent result with output "
        "null and its message as error",
        "issue 31",
        ["ENG-80", "ENG-155"],
        {
            "kind": "state",
            "at": "/unsentToolResults/0",
            "equals": {"callId": "c2", "name": "flaky", "output": None, "error": "boom"},
        },
        tools=[RISKY, {"name": "flaky", "fails": "boom"}],
        doomLoop=True,
        runs=[fresh([turn(call("risky", {}, "c1"), call("flaky", {}, "c2"))])],
    ),
    # -- issue 31: the format facts of section 15.1.4 no vector pinned ------------------
    _entry(
        "C-23",
        "A returns loopKey form without value returns null, which exempts the call: two "
        "identical calls are never detected",
        "issue 31",
        ["ENG-182", "KEY-12"],
        {"kind": "detection", "detector": "tool-fingerprint", "count": 0},
        **_keyed({"function": "returns"}, {"q": "a"}),
    ),
    _entry(
        "C-24",
        "A throws loopKey form without message throws the empty message, which the fallback "
        "warning quotes",
        "issue 31",
        ["ENG-182", "KEY-20", "ENG-168"],
        _fallback(""),
        **_keyed({"function": "throws"}, {"q": "a"}),
    ),
    _entry(
        "C-25",
        "A project loopKey form whose lower transform meets a missing field throws "
        'cannot lower field "q"',
        "issue 31",
        ["ENG-182", "ENG-168"],
        _fallback('cannot lower field "q"'),
        **_keyed({"function": "project", "fields": {"q": ["lower"]}}, {"p": "a"}),
    ),
    _entry(
        "C-26",
        "A project loopKey form whose trim transform meets a present number throws as for a "
        "missing field",
        "issue 31",
        ["ENG-182", "ENG-168"],
        _fallback('cannot trim field "q"'),
        **_keyed({"function": "project", "fields": {"q": ["trim"]}}, {"q": 5}),
    ),
    _entry(
        "C-27",
        "The thrown text writes the field name as JSON.stringify does: a quote, a backslash "
        "and a line feed escaped",
        "issue 31",
        ["ENG-182", "ENG-168"],
        _fallback('cannot trim field "a\\"b\\\\c\\n"'),
        **_keyed({"function": "project", "fields": {'a"b\\c\n': ["trim"]}}, {"p": 1}),
    ),
    _entry(
        "C-28",
        "An allowed_tools choice in mode auto is not forced: it is sent from dispatch 0, "
        "before toolChoiceFromDispatch",
        "issue 31",
        ["ENG-184", "ENG-145"],
        {
            "kind": "request",
            "dispatch": 0,
            "at": "/toolChoice",
            "equals": {"type": "allowed_tools", "mode": "auto", "tools": [READ_TOOL]},
        },
        **_choice_from_1({"type": "allowed_tools", "mode": "auto", "tools": [READ_TOOL]}),
    ),
    _entry(
        "C-29",
        "An array tool choice is forced: no dispatch before toolChoiceFromDispatch carries it",
        "issue 31",
        ["ENG-184", "ENG-145"],
        {"kind": "request", "dispatch": 0, "at": "/toolChoice", "absent": True},
        **_choice_from_1(["read"]),
    ),
    _entry(
        "C-30",
        "A handler with both fails and returns fails: its returned override never applies",
        "issue 31",
        ["ENG-183", "ENG-97"],
        {"kind": "applied", "equals": ["observe"]},
        hooks=[{"fails": "nope", "returns": {"overrideAction": "stop"}}],
        **_keyed({"function": "returns", "value": "k"}, {"q": "a"}),
    ),
    _entry(
        "C-31",
        "A tool with both fails and result fails: its call is answered with the error",
        "issue 31",
        ["ENG-181", "ENG-21"],
        {"kind": "request", "dispatch": 1, "at": "/input/-1/output", "equals": '{"error":"bad"}'},
        tools=[{"name": "read", "fails": "bad", "result": 7}],
        doomLoop=True,
        runs=[fresh([turn(call("read", {}, "c1")), turn(text("done"))])],
    ),
    _entry(
        "C-32",
        "An escalation model of null is a mechanism: the escalated dispatch names the model null",
        "issue 31",
        ["ENG-188", "ENG-72", "CFG-44"],
        {"kind": "request", "dispatch": 2, "at": "/model", "equals": None},
        doomLoop={
            "ladder": {"observe": 1, "steer": False, "escalate": 2, "block": 5, "stop": 8},
            "escalation": {"model": None},
        },
        request={"models": ["fallback-model"]},
        runs=[fresh([*repeated_calls("read", {"q": 1}, 2), turn(text("done"))])],
    ),
    _entry(
        "C-33",
        "An approved pending call of a manual tool is answered Tool not found or not executable",
        "issue 31",
        ["ENG-163", "ENG-192"],
        {
            "kind": "request",
            "dispatch": 0,
            "at": "/input/-1/output",
            "equals": '{"error":"Tool not found or not executable"}',
        },
        tools=[{"name": "hand", "kind": "manual"}],
        doomLoop=True,
        initialState={
            "status": "awaiting_approval",
            "messages": [{"role": "user", "content": "go"}, call("hand", {}, "m1")],
            "pendingToolCalls": [call("hand", {}, "m1")],
        },
        runs=[decide([turn(text("done"))], approve=["m1"])],
    ),
    _entry(
        "C-34",
        "A body result that is a number is stored unsent as that number",
        "issue 31",
        ["ENG-192", "ENG-155"],
        _stored_unsent(5),
        **_unsent(5),
    ),
    _entry(
        "C-35",
        "A body result that is a string is stored unsent as that string",
        "issue 31",
        ["ENG-192", "ENG-155"],
        _stored_unsent("x"),
        **_unsent("x"),
    ),
    _entry(
        "C-36",
        "A body result of null is stored unsent with the output null and no error",
        "issue 31",
        ["ENG-192", "ENG-155"],
        _stored_unsent(None),
        **_unsent(None),
    ),
    _entry(
        "C-37",
        "A loaded state without status that the run does not replace leaves end.status out",
        "issue 31",
        ["ENG-191", "ENG-176"],
        {"kind": "end", "at": "/status", "absent": True},
        **_not_replaced({"messages": []}),
    ),
    _entry(
        "C-38",
        "A loaded status that is not a string is the end's status as it is",
        "issue 31",
        ["ENG-191", "ENG-176"],
        {"kind": "end", "at": "/status", "equals": 5},
        **_not_replaced({"status": 5, "messages": []}),
    ),
    _entry(
        "C-39",
        "A member of the loaded state the format does not name is kept in the saved state",
        "issue 31",
        ["ENG-192", "ENG-159"],
        {"kind": "state", "at": "/custom", "equals": {"a": [1]}},
        doomLoop=True,
        initialState={"status": "complete", "messages": [], "custom": {"a": [1]}},
        runs=[fresh([turn(text("done"))])],
    ),
    _entry(
        "C-40",
        "A handler's when compares by JSON equality: streak true never matches the streak 1",
        "issue 31",
        ["ENG-183"],
        {"kind": "applied", "equals": ["observe", "observe"]},
        doomLoop={"ladder": {"observe": 1, "block": 3, "stop": 6}},
        hooks=[{"when": {"streak": True}, "returns": {"overrideAction": "stop"}}],
        runs=[fresh([*repeated_calls("read", {"q": "a"}, 2), turn(text(""))])],
    ),
    # -- what the clean-room implementation found pinned by the SDK's corpus only --------
    _entry(
        "C-41",
        "A function loopKey receives {} for arguments that parse to null: trim of the missing "
        "field throws its own text",
        "clean room G-01",
        ["ENG-154", "ENG-39", "ENG-168"],
        {
            "kind": "warning",
            "contains": ['[DoomLoop] tool "read": loopKey threw (cannot trim field "q")'],
        },
        tools=[{"name": "read", "loopKey": {"function": "project", "fields": {"q": ["trim"]}}}],
        doomLoop=True,
        runs=[fresh([turn(call("read", "null", "c1")), turn(text("ok"))])],
    ),
    _entry(
        "C-42",
        "A final dispatch, which sends none, keeps the consumed key of a forced choice: a retry "
        "that finds the script exhausted leaves it saved",
        "clean room G-07",
        ["ENG-145", "ENG-147", "ENG-142"],
        {"kind": "state", "at": "/consumedForcedToolChoiceKey", "equals": '"required"'},
        doomLoop=True,
        request={"toolChoice": "required", "stopWhenSteps": 1},
        runs=[
            fresh([turn(call("read", {"p": 1}, "c1")), turn(call("read", {"p": 2}, "c2")), EMPTY])
        ],
    ),
    _entry(
        "C-43",
        "Without a state accessor a forced choice is consumed all the same: the next dispatch "
        "sends its relaxed form",
        "clean room G-08",
        ["ENG-145"],
        {"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": "auto"},
        doomLoop=True,
        stateAccessor=False,
        request={"toolChoice": "required"},
        runs=[fresh([turn(call("read", {}, "c1")), turn(text("ok"))])],
    ),
    _entry(
        "C-44",
        "Two unanswered calls sharing an id are sealed once each at a stop gate",
        "clean room G-14",
        ["ENG-85", "ENG-150"],
        {"kind": "toolOutputs", "count": 3},
        tools=[{"name": "read", "loopKey": False}],
        doomLoop={"ladder": {"observe": False, "block": False, "stop": 1}},
        runs=[
            fresh(
                [
                    turn(call("read", {}, "c1")),
                    turn(text("hi"), call("ghost", {}, "g1"), call("ghost", {"x": 1}, "g1")),
                ]
            )
        ],
    ),
    _entry(
        "C-45",
        "A HITL call whose arguments do not parse takes the malformed path: the run does not pause",
        "clean room G-17",
        ["ENG-165", "ENG-45"],
        {"kind": "end", "at": "/status", "equals": "complete"},
        tools=[{"name": "confirm", "kind": "hitl"}],
        doomLoop=True,
        runs=[fresh([turn(call("confirm", "{bad", "h1")), turn(text("ok"))])],
    ),
    _entry(
        "C-46",
        "Arguments holding an integer of 5,000 digits parse, as JS reads them: the number is "
        "infinite (as 1e400 is), so the call is not malformed and its body runs",
        "hostile inputs, issue 34",
        ["DATA-12", "ENG-37"],
        {"kind": "executions", "tool": "read", "count": 1},
        doomLoop=True,
        runs=[fresh([turn(call("read", '{"n":1' + "0" * 5000 + "}", "c1")), turn(text("ok"))])],
    ),
    # -- a decision resume that also has input (ENG-163) ---------------------------------
    _entry(
        "C-17",
        "A decision resume of a conversation awaiting approval sends none of its own input",
        "input with decisions",
        ["ENG-163", "ENG-160"],
        {"kind": "userMessages", "run": 1, "dispatch": 0, "containing": "later", "count": 0},
        tools=[RISKY],
        doomLoop=True,
        runs=[
            fresh([turn(call("risky", {}, "c1"))]),
            {**decide([turn(text("done"))], approve=["c1"]), "input": "later"},
        ],
    ),
]
