"""Engine scenarios beyond the brief's table: one rule of the brief each (spec §15).

The brief's §8 table leaves several of its numbered rules without a
scenario (steer placement, restored steer, pauses that pre-empt a stop,
condemned decision resumes, the fallback chain, hook outcome details, the
exact engine texts). Each entry here pins such a rule, with the expected
values taken from the rule's text in the brief (cited as ``rule``), in the
same format as :mod:`.brief`.
"""

from __future__ import annotations

from .brief import DONE, ESCALATE_AT_2, SAME, STUCK_20, WEB_SEARCH
from .builders import Json, JsonObject, call, decide, fresh, repeated_calls, scenario, text, turn

STEER_LADDER: JsonObject = {"observe": 2, "steer": 2, "block": False, "stop": 6}


def _deep(levels: int) -> Json:
    value: Json = "bottom"
    for _ in range(levels):
        value = {"next": value}
    return value


STATEMENTS: list[JsonObject] = [
    scenario(
        "S-01",
        "Steer precedes the response's calls on the wire and follows them when persisted",
        ["ENG-66", "ENG-67", "EQ-04"],
        [
            {
                "kind": "request",
                "dispatch": 2,
                "at": "/input/3/content",
                "contains": "Doom loop suspected",
            },
            {"kind": "request", "dispatch": 2, "at": "/input/4/callId", "equals": "call_2"},
            {"kind": "state", "at": "/messages/4/callId", "equals": "call_2"},
            {"kind": "state", "at": "/messages/5/content", "contains": "Doom loop suspected"},
        ],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": STEER_LADDER},
        runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
        rule="3.2.5",
    ),
    scenario(
        "S-02",
        "Restored steer is delivered at the first flush, never in the first dispatch",
        ["ENG-65", "ENG-171"],
        [
            {
                "kind": "userMessages",
                "dispatch": 0,
                "containing": "Mind the budget",
                "count": 0,
            },
            {
                "kind": "request",
                "dispatch": 1,
                "at": "/input/1/content",
                "equals": "Mind the budget.\nA",
            },
            {"kind": "state", "at": "/doomLoop/pendingSteer", "absent": True},
        ],
        tools=[WEB_SEARCH],
        doomLoop=True,
        initialState={
            "status": "complete",
            "messages": [],
            "doomLoop": {"tools": {}, "pendingSteer": ["Mind the budget.", "A", "A", 5]},
        },
        runs=[fresh([turn(call("web_search", SAME, "c1")), DONE])],
        rule="3.2.7",
    ),
    scenario(
        "S-03",
        "A pause pre-empts a stop armed in its round; a fresh turn clears it without a halt",
        ["ENG-167", "ENG-119", "ENG-148", "EQ-02"],
        [
            {"kind": "end", "run": 0, "at": "/status", "equals": "awaiting_client_tools"},
            {"kind": "sessionEnd", "run": 0, "equals": ["complete"]},
            {
                "kind": "state",
                "run": 0,
                "at": "/doomLoop/stopVerdict",
                "has": {"action": "stop"},
            },
            {"kind": "sessionEnd", "run": 1, "equals": ["complete"]},
            {"kind": "state", "run": 1, "at": "/doomLoop/stopVerdict", "absent": True},
        ],
        tools=[WEB_SEARCH, {"name": "ask_human", "kind": "manual"}],
        doomLoop={"ladder": {"observe": 2, "block": 2, "stop": 2}},
        runs=[
            fresh(
                [
                    turn(call("web_search", SAME, "c1")),
                    turn(call("web_search", SAME, "c2"), call("ask_human", {}, "h1")),
                ]
            ),
            {
                "input": [
                    {"type": "function_call_output", "callId": "h1", "output": "yes"},
                    {"role": "user", "content": "go on"},
                ],
                "model": [turn(text("fine"))],
            },
        ],
        rule="3.5.7, 6.4, 9.2",
    ),
    scenario(
        "S-04",
        "A first-response text stop does not prevent the approval pause",
        ["ENG-161", "EQ-01"],
        [
            {"kind": "executions", "run": 0, "tool": "web_search", "count": 1},
            {"kind": "end", "run": 0, "at": "/status", "equals": "awaiting_approval"},
            {"kind": "sessionEnd", "run": 0, "equals": ["complete"]},
            {
                "kind": "state",
                "run": 0,
                "at": "/doomLoop/stopVerdict",
                "has": {"action": "stop"},
            },
        ],
        tools=[WEB_SEARCH, {"name": "risky", "kind": "approval"}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(
                        text(STUCK_20),
                        call("web_search", SAME, "c1"),
                        call("risky", {"target": "prod"}, "r1"),
                    )
                ]
            )
        ],
        rule="9.1",
    ),
    scenario(
        "S-05",
        "A condemned decision resume runs the approved call and halts without dispatching",
        ["ENG-87", "ENG-99", "ENG-158", "ENG-120", "EQ-08"],
        [
            {"kind": "dispatches", "run": 1, "count": 0},
            {"kind": "executions", "run": 1, "tool": "risky", "count": 1},
            {"kind": "end", "run": 1, "at": "/status", "equals": "in_progress"},
            {"kind": "end", "run": 1, "at": "/finalResponseId", "equals": None},
            {"kind": "state", "run": 1, "at": "/unsentToolResults/0/callId", "equals": "r1"},
            {"kind": "sessionEnd", "run": 1, "equals": []},
        ],
        tools=[WEB_SEARCH, {"name": "risky", "kind": "approval"}],
        doomLoop=True,
        runs=[
            fresh([turn(text(STUCK_20), call("risky", {"target": "prod"}, "r1"))]),
            decide([turn(text("never sent"))], approve=["r1"]),
        ],
        rule="6.5, 7.4, 9.8",
    ),
    scenario(
        "S-06",
        "Unhashable key material falls back to the full arguments",
        ["ENG-49", "ENG-50"],
        [
            {"kind": "detections", "equals": [["observe", 2], ["block", 3]]},
            {"kind": "warning", "contains": ["falling back to full arguments"]},
        ],
        tools=[{"name": "probe", "loopKey": {"function": "returns", "value": _deep(80)}}],
        doomLoop=True,
        runs=[fresh([*repeated_calls("probe", {"x": 1}, 3), DONE])],
        rule="2.3.4",
    ),
    scenario(
        "S-07",
        "Unhashable arguments without a retry identity skip detection, never the call",
        ["ENG-49", "ENG-50"],
        [
            {"kind": "detection", "count": 0},
            {"kind": "executions", "tool": "probe", "count": 3},
            {"kind": "warning", "contains": ["skipping detection for this call"]},
        ],
        tools=[{"name": "probe"}],
        doomLoop=True,
        runs=[fresh([*repeated_calls("probe", {"deep": _deep(80)}, 3), DONE])],
        rule="2.3.4",
    ),
    scenario(
        "S-08",
        "A server item with only excluded members is skipped",
        ["ENG-57"],
        [{"kind": "state", "at": "/doomLoop/tools/server:web_search_call", "absent": True}],
        tools=[{"name": "note"}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(
                        {"type": "web_search_call", "id": "ws", "status": "completed"},
                        call("note", {}, "c1"),
                    ),
                    DONE,
                ]
            )
        ],
        rule="2.5.2",
    ),
    scenario(
        "S-09",
        "toolInput is given for parsed client calls only",
        ["ENG-89", "ENG-153"],
        [
            {"kind": "detection", "index": 0, "has": {"toolInput": {"query": "same"}}},
            {
                "kind": "detection",
                "index": 1,
                "has": {"toolName": "poll"},
                "lacks": ["toolInput"],
            },
        ],
        tools=[WEB_SEARCH, {"name": "poll"}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(call("web_search", SAME, "c1"), call("poll", "{oops", "p1")),
                    turn(call("web_search", SAME, "c2"), call("poll", "{oops", "p2")),
                    DONE,
                ]
            )
        ],
        rule="5.1",
    ),
    scenario(
        "S-10",
        "A tool-matched handler never sees text verdicts",
        ["ENG-91"],
        [{"kind": "end", "at": "/reason", "equals": "doom_loop"}],
        hooks=[{"tool": "web_search", "returns": {"overrideAction": "observe"}}],
        doomLoop=True,
        runs=[fresh([turn(text(STUCK_20))])],
        rule="5.1",
    ),
    scenario(
        "S-11",
        "Every handler runs; failing and malformed results are dropped; the last override wins",
        ["ENG-93", "ENG-97"],
        [
            {"kind": "end", "at": "/stopVerdict", "has": {"streak": 2}},
            {"kind": "warning", "contains": ["handler failed", "boom"]},
            {"kind": "warning", "contains": ["result dropped"]},
        ],
        tools=[WEB_SEARCH],
        hooks=[
            {"returns": {"overrideAction": "stop"}},
            {"fails": "boom"},
            {"returns": {"overrideAction": "explode"}},
            {"returns": {}},
        ],
        doomLoop=True,
        runs=[fresh([*repeated_calls("web_search", SAME, 3)])],
        rule="5.3.1, 5.4",
    ),
    scenario(
        "S-12",
        "With detection off, a loaded blob (stale stop verdict included) is left untouched",
        ["ENG-28", "ENG-123"],
        [
            {
                "kind": "state",
                "at": "/doomLoop",
                "equals": {"tools": {}, "stopVerdict": {"action": "stop"}},
            },
            {"kind": "end", "at": "/stopVerdict", "equals": None},
        ],
        tools=[WEB_SEARCH],
        initialState={
            "status": "complete",
            "messages": [],
            "doomLoop": {"tools": {}, "stopVerdict": {"action": "stop"}},
        },
        runs=[fresh([*repeated_calls("web_search", SAME, 3), DONE], doomLoop=False)],
        rule="1.4, 6.4",
    ),
    scenario(
        "S-13",
        "An escalation latched on the last response is lost; its notice is persisted",
        ["ENG-76", "EQ-05"],
        [
            {
                "kind": "state",
                "at": "/doomLoop/pendingSteer/0",
                "contains": "An escalated turn follows",
            },
            {"kind": "state", "at": "/doomLoop/escalationsUsed", "absent": True},
        ],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": ESCALATE_AT_2, "escalation": {"model": "frontier-model"}},
        runs=[
            fresh(
                [
                    turn(text("Same words."), call("web_search", {"query": "a"}, "c1")),
                    turn(text("Same words.")),
                ]
            )
        ],
        rule="3.3.7, 9.5",
    ),
    scenario(
        "S-14",
        "Malformed calls are not exempt and always answer the exact parse error",
        ["ENG-45", "ENG-104", "ENG-105", "EQ-14"],
        [
            {"kind": "detections", "equals": [["observe", 2], ["block", 3]]},
            {
                "kind": "request",
                "dispatch": 3,
                "at": "/input/-1/output",
                "equals": '{"error":"Failed to parse tool call arguments for \\"poll\\": The '
                'model provided invalid JSON. Raw arguments received: \\"{oops\\". Please '
                'provide valid JSON arguments for this tool call."}',
            },
        ],
        tools=[{"name": "poll", "loopKey": False}],
        doomLoop=True,
        runs=[fresh([*repeated_calls("poll", "{oops", 3), DONE])],
        rule="2.3.2, 3.6.4, 9.14",
    ),
    scenario(
        "S-15",
        "The seal text is the halt prefix and the verdict message",
        ["ENG-85", "ENG-106"],
        [
            {
                "kind": "state",
                "at": "/messages/-1/output",
                "contains": '{"error":"Run halted by doom-loop detection: Doom loop suspected: '
                'the response repeats \\"I am stuck.\\" 20 times in a row.',
            }
        ],
        tools=[WEB_SEARCH],
        doomLoop=True,
        runs=[fresh([turn(text(STUCK_20), call("web_search", SAME, "c1"))])],
        rule="3.5.4, 3.6.3",
    ),
    scenario(
        "S-16",
        "A model escalation drops the fallback list for one dispatch",
        ["ENG-72", "ENG-74"],
        [
            {"kind": "request", "dispatch": 2, "at": "/models", "absent": True},
            {"kind": "request", "dispatch": 2, "at": "/model", "equals": "frontier-model"},
            {"kind": "request", "dispatch": 3, "at": "/models", "equals": ["cheap-model", "b"]},
        ],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": ESCALATE_AT_2, "escalation": {"model": "frontier-model"}},
        request={"models": ["cheap-model", "b"]},
        runs=[
            fresh(
                [
                    *repeated_calls("web_search", SAME, 2),
                    turn(call("web_search", {"query": "other"}, "c3")),
                    DONE,
                ]
            )
        ],
        rule="3.3.4",
    ),
    scenario(
        "S-17",
        "Model and advisor together: both overrides, one unit of budget",
        ["ENG-73"],
        [
            {"kind": "request", "dispatch": 2, "at": "/model", "equals": "frontier-model"},
            {"kind": "advisor", "dispatch": 2, "has": {"forwardTranscript": True}},
            {"kind": "state", "at": "/doomLoop/escalationsUsed", "equals": 1},
        ],
        tools=[WEB_SEARCH],
        doomLoop={
            "ladder": ESCALATE_AT_2,
            "escalation": {"model": "frontier-model", "advisor": True, "maxEscalations": 5},
        },
        runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
        rule="3.3.4",
    ),
    scenario(
        "S-18",
        "A blocked call fires no PreToolUse or PostToolUse",
        ["ENG-78", "ENG-140"],
        [
            {"kind": "hooks", "hook": "PreToolUse", "count": 2},
            {"kind": "hooks", "hook": "PostToolUse", "count": 2},
        ],
        tools=[{"name": "noisy"}],
        doomLoop=True,
        runs=[fresh([*repeated_calls("noisy", {}, 3), DONE])],
        rule="3.4.1, 5.6",
    ),
    scenario(
        "S-19",
        "A call blocked in the approval-pause batch becomes a rejected unsent result",
        ["ENG-80", "ENG-164"],
        [
            {"kind": "end", "at": "/status", "equals": "awaiting_approval"},
            {
                "kind": "state",
                "at": "/unsentToolResults/0",
                "has": {"callId": "call_3", "name": "lookup", "output": None},
            },
            {
                "kind": "state",
                "at": "/unsentToolResults/0/error",
                "contains": "Doom loop suspected",
            },
            {"kind": "state", "at": "/pendingToolCalls/0/callId", "equals": "r1"},
        ],
        tools=[{"name": "lookup"}, {"name": "risky", "kind": "approval"}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    *repeated_calls("lookup", SAME, 2),
                    turn(call("lookup", SAME, "call_3"), call("risky", {}, "r1")),
                ]
            )
        ],
        rule="3.4.3, 7.7",
    ),
    scenario(
        "S-20",
        "An approved call of an unknown tool is answered without a checkpoint",
        ["ENG-163"],
        [
            {
                "kind": "request",
                "dispatch": 0,
                "at": "/input/-1/output",
                "equals": '{"error":"Tool not found or not executable"}',
            },
            {"kind": "detection", "count": 0},
        ],
        tools=[WEB_SEARCH],
        doomLoop=True,
        initialState={
            "status": "awaiting_approval",
            "messages": [
                {"role": "user", "content": "go"},
                call("vanished", {}, "v1"),
            ],
            "pendingToolCalls": [call("vanished", {}, "v1")],
        },
        runs=[decide([DONE], approve=["v1"])],
        rule="7.4",
    ),
    scenario(
        "S-21",
        "Steer has no memory of delivered messages: identical guidance is delivered again",
        ["ENG-64", "ENG-65"],
        [
            {
                "kind": "userMessages",
                "dispatch": 2,
                "containing": 'this exact "read" call',
                "count": 1,
            },
            {
                "kind": "userMessages",
                "dispatch": 3,
                "containing": 'this exact "read" call',
                "count": 2,
            },
        ],
        tools=[{"name": "read"}],
        doomLoop={"ladder": STEER_LADDER},
        runs=[
            fresh(
                [
                    turn(
                        call("read", {"path": "a"}, f"a{i}"),
                        call("read", {"path": other}, f"o{i}"),
                    )
                    for i, other in enumerate("bcd")
                ]
                + [DONE]
            )
        ],
        rule="3.2.2",
    ),
    scenario(
        "S-22",
        "When the retry identity is unhashable too, detection is skipped for the call",
        ["ENG-50"],
        [
            {"kind": "detection", "count": 0},
            {"kind": "executions", "tool": "probe", "count": 3},
            {"kind": "warning", "contains": ["falling back to full arguments"]},
            {"kind": "warning", "contains": ["also unhashable"]},
        ],
        tools=[{"name": "probe", "loopKey": ["deep"]}],
        doomLoop=True,
        runs=[fresh([*repeated_calls("probe", {"deep": _deep(80), "n": 1}, 3), DONE])],
        rule="2.3.4",
    ),
    scenario(
        "S-23",
        "The stopWhen final dispatch: tool choice none, its response never checked, "
        "the run's reason max_turns",
        ["ENG-75", "ENG-109", "ENG-147", "EQ-16"],
        [
            {"kind": "dispatches", "count": 3},
            {"kind": "request", "dispatch": 2, "at": "/toolChoice", "equals": "none"},
            {"kind": "executions", "tool": "web_search", "count": 2},
            {"kind": "detection", "count": 0},
            {"kind": "end", "at": "/finalText", "equals": STUCK_20},
            {"kind": "sessionEnd", "equals": ["max_turns"]},
        ],
        tools=[WEB_SEARCH],
        doomLoop=True,
        request={"stopWhenSteps": 1},
        runs=[
            fresh(
                [
                    turn(call("web_search", {"query": "one"}, "c1")),
                    turn(call("web_search", {"query": "two"}, "c2")),
                    turn(text(STUCK_20)),
                ]
            )
        ],
        rule="4.1, 7.5, 9.16",
    ),
    scenario(
        "S-24",
        "A handler's block on a server verdict is applied as observe",
        ["ENG-94", "ENG-98"],
        [
            {"kind": "detections", "equals": [["observe", 2]]},
            {"kind": "applied", "equals": ["observe"]},
        ],
        tools=[{"name": "note"}],
        hooks=[{"returns": {"overrideAction": "block"}}],
        doomLoop=True,
        runs=[
            fresh(
                [
                    turn(
                        {"type": "web_search_call", "action": {"query": "same"}},
                        call("note", {"n": i}, f"c{i}"),
                    )
                    for i in range(2)
                ]
                + [DONE]
            )
        ],
        rule="5.3.3",
    ),
    scenario(
        "S-25",
        "An escalation latched in an approved batch waits for the first follow-up",
        ["ENG-65", "ENG-71", "ENG-75", "EQ-06"],
        [
            {
                "kind": "request",
                "run": 2,
                "dispatch": 0,
                "at": "/model",
                "equals": "cheap-model",
            },
            {
                "kind": "userMessages",
                "run": 2,
                "dispatch": 0,
                "containing": "escalated turn follows",
                "count": 0,
            },
            {
                "kind": "request",
                "run": 2,
                "dispatch": 1,
                "at": "/model",
                "equals": "frontier-model",
            },
            {
                "kind": "userMessages",
                "run": 2,
                "dispatch": 1,
                "containing": "escalated turn follows",
                "count": 1,
            },
        ],
        tools=[WEB_SEARCH, {"name": "risky", "kind": "approval"}],
        doomLoop={"ladder": ESCALATE_AT_2, "escalation": {"model": "frontier-model"}},
        runs=[
            fresh([turn(call("risky", {"target": "prod"}, "r1"))]),
            decide([turn(call("risky", {"target": "prod"}, "r2"))], approve=["r1"]),
            decide(
                [turn(call("web_search", {"query": "x"}, "c1")), DONE],
                approve=["r2"],
            ),
        ],
        rule="3.3.6, 9.6",
    ),
]
