"""Engine scenarios decided by running the SDK's own run loop (issue 30).

The brief and the SDK's recorded answers were silent on these inputs, and the
kit's three engines agreed with each other but not with the SDK once the SDK
itself could be run (``../shared/sdk``). Each entry pins one fact the SDK
showed, cites the statement that now makes it normative, and names the
difference class it settles (``origin``).
"""

from __future__ import annotations

from .builders import Json, JsonObject, call, decide, fresh, scenario, text, turn

READ: JsonObject = {"name": "read"}
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
