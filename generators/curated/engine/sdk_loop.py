"""Engine scenarios pinning what the SDK's real run loop does (engine brief §10, issue 22).

The brief's §10 was measured on the SDK's own ``callModel`` loop, and the
SDK's answers are in ``../shared/upstream/sdk-engine-0.9.0-corpus.jsonl.gz``.
Each entry pins one fact of one §10 class (``rule`` names the section), its
expected value taken from the brief's text or the recorded answers, and
cites the statements that make it normative. Where the recordings are
silent the spec decides, says which JS semantics it assumed, and an entry
here pins the decision (marked *decision* in its title).
"""

from __future__ import annotations

from .brief import DONE, SAME, WEB_SEARCH
from .builders import Json, JsonObject, call, decide, fresh, scenario, text, turn

DIRECTIVE = (
    "You have reached the tool-use limit, and tools are no longer available. Do not attempt to "
    "call any more tools. Using the information you already have, write your final answer now."
)
SKIPPED = "Tool execution skipped: step limit reached."
READ: JsonObject = {"name": "read"}
ASK: JsonObject = {"name": "ask", "kind": "manual"}
CONFIRM: JsonObject = {"name": "confirm", "kind": "hitl"}
RISKY: JsonObject = {"name": "risky", "kind": "approval"}
EMPTY: JsonObject = {"output": []}


def _entry(
    name: str, title: str, rule: str, spec: list[str], fact: JsonObject, **scenario_data: Json
) -> JsonObject:
    """One §10 fact: one vector, one fact (``runs`` and the rest are the scenario)."""
    runs = scenario_data.pop("runs")
    tools = scenario_data.pop("tools", [READ])
    return scenario(name, title, spec, [fact], runs=runs, tools=tools, rule=rule, **scenario_data)  # type: ignore[arg-type]


def _read(arguments: str, call_id: str) -> JsonObject:
    return call("read", arguments, call_id)


def _two_reads() -> JsonObject:
    return turn(_read('{"p":1}', "a"), _read('{"p":2}', "b"))


def _stop_when(
    name: str, title: str, spec: list[str], fact: JsonObject, **request: Json
) -> JsonObject:
    """stopWhen 1: round 1 runs, the follow-up response's call runs on the stopWhen path."""
    return _entry(
        name,
        title,
        "10.5",
        spec,
        fact,
        doomLoop=True,
        request={"stopWhenSteps": 1, **request},
        runs=[fresh([turn(_read('{"p":1}', "c1")), turn(_read('{"p":2}', "c2")), DONE])],
    )


def _forced(name: str, title: str, choice: Json, fact: JsonObject, **data: Json) -> JsonObject:
    """A forced (or not) caller choice over two reads and a closing text."""
    runs = data.pop(
        "runs", [fresh([turn(_read('{"p":1}', "c1")), turn(_read('{"p":2}', "c2")), DONE])]
    )
    request = {"toolChoice": choice, **data.pop("request", {})}  # type: ignore[dict-item]
    return _entry(name, title, "10.6", ["ENG-145"], fact, request=request, runs=runs, **data)


SDK_LOOP: list[JsonObject] = [
    # -- 10.1 concurrent batches ------------------------------------------------------
    _entry(
        "L-01",
        "The calls of a normal round are one concurrent batch: each event carries its call",
        "10.1",
        ["ENG-138", "ENG-139"],
        {
            "kind": "order",
            "of": "events",
            "equals": [None, [1, 0], [1, 0], [1, 1], [1, 1], None],
        },
        runs=[fresh([_two_reads(), DONE])],
    ),
    _entry(
        "L-02",
        "The bodies of a normal round may start in any order: the executions are one batch",
        "10.1",
        ["ENG-138", "ENG-139"],
        {"kind": "order", "of": "executions", "equals": [1, 1]},
        runs=[fresh([_two_reads(), DONE])],
    ),
    _entry(
        "L-03",
        "The approved calls of a decision resume run one after another: no slot",
        "10.1",
        ["ENG-138", "ENG-163"],
        {"kind": "order", "run": 1, "of": "events", "equals": [None, None, None, None]},
        tools=[RISKY],
        runs=[
            fresh([turn(call("risky", '{"p":1}', "r1"), call("risky", '{"p":2}', "r2"))]),
            decide([DONE], approve=["r1", "r2"]),
        ],
    ),
    _entry(
        "L-04",
        "The approval-pause batch is concurrent too",
        "10.1",
        ["ENG-138", "ENG-164"],
        {"kind": "order", "of": "events", "equals": [None, [1, 0], [1, 0], [1, 1], [1, 1], None]},
        tools=[READ, RISKY],
        runs=[
            fresh([turn(_read('{"p":1}', "a"), _read('{"p":2}', "b"), call("risky", "{}", "r"))])
        ],
    ),
    # -- 10.2 warnings ----------------------------------------------------------------
    _entry(
        "L-05",
        "The loop-key fallback warning is the one warning text compared",
        "10.2",
        ["ENG-48", "ENG-168"],
        {
            "kind": "warning",
            "contains": ['[DoomLoop] tool "read": loopKey is an empty field list'],
        },
        tools=[{"name": "read", "loopKey": []}],
        doomLoop=True,
        runs=[fresh([turn(_read('{"p":1}', "c1")), DONE])],
    ),
    # -- 10.3 client-tools pause --------------------------------------------------------
    _entry(
        "L-06",
        "A client-tools pause after a round persists the manual call as pending",
        "10.3",
        ["ENG-148", "ENG-159"],
        {"kind": "state", "at": "/pendingToolCalls/0/callId", "equals": "m1"},
        tools=[READ, ASK],
        runs=[fresh([turn(_read("{}", "c1"), call("ask", "{}", "m1"))])],
    ),
    _entry(
        "L-07",
        "A first response of manual calls only persists every call as pending",
        "10.3",
        ["ENG-148", "ENG-161"],
        {"kind": "state", "at": "/pendingToolCalls", "length": 2},
        tools=[ASK],
        runs=[fresh([turn(call("ask", "{}", "m1"), call("unknown_tool", "{}", "m2"))])],
    ),
    _entry(
        "L-08",
        "The first response of the turn that answers the client tools clears the pending calls",
        "10.3",
        ["ENG-148", "ENG-161"],
        {"kind": "state", "run": 1, "at": "/pendingToolCalls", "absent": True},
        tools=[ASK],
        runs=[
            fresh([turn(call("ask", "{}", "m1"))]),
            {
                "input": [{"type": "function_call_output", "callId": "m1", "output": '"ok"'}],
                "model": [DONE],
            },
        ],
    ),
    _entry(
        "L-09",
        "A manual call whose id an executed call shares counts as answered: no pause",
        "10.3",
        ["ENG-150"],
        {"kind": "end", "at": "/status", "equals": "complete"},
        tools=[READ, ASK],
        runs=[fresh([turn(_read("{}", "dup"), call("ask", "{}", "dup")), DONE])],
    ),
    # -- 10.4 HITL ----------------------------------------------------------------------
    _entry(
        "L-10",
        "A HITL call gets PreToolUse before its handler pauses the run",
        "10.4",
        ["ENG-140", "ENG-165"],
        {"kind": "hooks", "hook": "PreToolUse", "count": 1},
        tools=[CONFIRM],
        runs=[fresh([turn(call("confirm", "{}", "h1"))])],
    ),
    _entry(
        "L-11",
        "No PostToolUse follows the PreToolUse of a HITL call that paused",
        "10.4",
        ["ENG-140", "ENG-165"],
        {"kind": "hooks", "hook": "PostToolUse", "count": 0},
        tools=[CONFIRM],
        runs=[fresh([turn(call("confirm", "{}", "h1"))])],
    ),
    # -- 10.5 the stopWhen path -----------------------------------------------------------
    _stop_when(
        "L-12",
        "The stopWhen check fires the Stop hook",
        ["ENG-147"],
        {"kind": "hooks", "hook": "Stop", "count": 1},
    ),
    _stop_when(
        "L-13",
        "A run ended by stopWhen ends with the reason max_turns",
        ["ENG-147"],
        {"kind": "sessionEnd", "equals": ["max_turns"]},
    ),
    _stop_when(
        "L-14",
        "The final dispatch's input ends with the fixed directive",
        ["ENG-147", "ENG-169"],
        {"kind": "request", "dispatch": 2, "at": "/input/-1/content", "equals": DIRECTIVE},
    ),
    _stop_when(
        "L-15",
        "A string allowFinalResponse is the directive itself",
        ["ENG-147"],
        {"kind": "request", "dispatch": 2, "at": "/input/-1/content", "equals": "Answer now."},
        allowFinalResponse="Answer now.",
    ),
    _stop_when(
        "L-16",
        "An empty allowFinalResponse string adds no directive",
        ["ENG-147"],
        {
            "kind": "request",
            "dispatch": 2,
            "at": "/input/-1/type",
            "equals": "function_call_output",
        },
        allowFinalResponse="",
    ),
    _stop_when(
        "L-17",
        "decision: allowFinalResponse null adds no directive (JS: only true or absent gives it)",
        ["ENG-147"],
        {
            "kind": "request",
            "dispatch": 2,
            "at": "/input/-1/type",
            "equals": "function_call_output",
        },
        allowFinalResponse=None,
    ),
    _stop_when(
        "L-18",
        "The directive is sent, never persisted",
        ["ENG-147"],
        {"kind": "state", "at": "/messages/-2/type", "equals": "function_call_output"},
    ),
    _stop_when(
        "L-19",
        "allowFinalResponse false: no final dispatch after the Stop hook",
        ["ENG-147"],
        {"kind": "dispatches", "kinds": ["initial", "follow-up"]},
        allowFinalResponse=False,
    ),
    _entry(
        "L-20",
        "A manual call left by the stopWhen round gets the skipped output on the final dispatch",
        "10.5",
        ["ENG-147", "ENG-170"],
        {
            "kind": "request",
            "dispatch": 1,
            "at": "/input/-2",
            "equals": {"type": "function_call_output", "callId": "m1", "output": SKIPPED},
        },
        tools=[READ, ASK],
        request={"stopWhenSteps": 0},
        runs=[fresh([turn(_read("{}", "c1"), call("ask", "{}", "m1")), DONE])],
    ),
    _entry(
        "L-21",
        "A HITL pause on the stopWhen path ends with the reason max_turns",
        "10.5",
        ["ENG-147", "ENG-167"],
        {"kind": "sessionEnd", "equals": ["max_turns"]},
        tools=[READ, CONFIRM],
        request={"stopWhenSteps": 0},
        runs=[fresh([turn(_read("{}", "c1"), call("confirm", "{}", "h1"))])],
    ),
    # -- 10.6 forced tool choice -------------------------------------------------------------
    _forced(
        "L-22",
        "A consumed required choice becomes auto",
        "required",
        {"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": "auto"},
    ),
    _forced(
        "L-23",
        "A forced object other than a function is consumed and becomes auto",
        {"type": "web_search_preview"},
        {"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": "auto"},
    ),
    _forced(
        "L-24",
        "A consumed allowed_tools in mode required is relaxed to mode auto",
        {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "read"}],
        },
        {
            "kind": "request",
            "dispatch": 1,
            "at": "/toolChoice",
            "equals": {
                "type": "allowed_tools",
                "mode": "auto",
                "tools": [{"type": "function", "name": "read"}],
            },
        },
    ),
    _forced(
        "L-25",
        "An allowed_tools in mode auto is not forced: sent unchanged on every dispatch",
        {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "read"}]},
        {"kind": "request", "dispatch": 2, "at": "/toolChoice/mode", "equals": "auto"},
    ),
    _forced(
        "L-26",
        "The consumption key is the canonical JSON of the choice",
        "required",
        {"kind": "state", "at": "/consumedForcedToolChoiceKey", "equals": '"required"'},
        tools=[READ, ASK],
        runs=[fresh([turn(_read("{}", "c1"), call("ask", "{}", "m1"))])],
    ),
    _forced(
        "L-27",
        "A forced choice answered without a call is not consumed",
        "required",
        {"kind": "request", "run": 1, "dispatch": 0, "at": "/toolChoice", "equals": "required"},
        runs=[fresh([EMPTY]), fresh([DONE])],
    ),
    _forced(
        "L-28",
        "A stored key in another spelling does not match: the choice is forced again",
        "required",
        {"kind": "request", "dispatch": 0, "at": "/toolChoice", "equals": "required"},
        initialState={
            "status": "complete",
            "messages": [],
            "consumedForcedToolChoiceKey": "required",
        },
    ),
    _forced(
        "L-29",
        "The key is removed when the run completes",
        "required",
        {"kind": "state", "at": "/consumedForcedToolChoiceKey", "absent": True},
    ),
    _forced(
        "L-30",
        "A caller choice that is not forced removes a stored key",
        "auto",
        {"kind": "state", "at": "/consumedForcedToolChoiceKey", "absent": True},
        tools=[READ, ASK],
        initialState={
            "status": "complete",
            "messages": [],
            "consumedForcedToolChoiceKey": '"required"',
        },
        runs=[fresh([turn(call("ask", "{}", "m1"))])],
    ),
    _forced(
        "L-31",
        "A dispatch before toolChoiceFromDispatch removes a stored key: forced again after",
        "required",
        {"kind": "request", "dispatch": 1, "at": "/toolChoice", "equals": "required"},
        request={"toolChoiceFromDispatch": 1},
        initialState={
            "status": "complete",
            "messages": [],
            "consumedForcedToolChoiceKey": '"required"',
        },
    ),
    # -- 10.7 / 10.8 empty responses -----------------------------------------------------------
    _entry(
        "L-32",
        "An empty first response fails the run: invalid-final-response",
        "10.7",
        ["ENG-142", "ENG-141"],
        {"kind": "end", "at": "/error/kind", "equals": "invalid-final-response"},
        runs=[fresh([EMPTY])],
    ),
    _entry(
        "L-33",
        "The run failed on an empty first response ends with the reason error",
        "10.7",
        ["ENG-142", "ENG-141"],
        {"kind": "sessionEnd", "equals": ["error"]},
        runs=[fresh([EMPTY])],
    ),
    _entry(
        "L-34",
        "An empty response after a round is retried once with tool choice none",
        "10.8",
        ["ENG-142"],
        {"kind": "request", "dispatch": 2, "at": "/toolChoice", "equals": "none"},
        runs=[fresh([turn(_read("{}", "c1")), EMPTY, DONE])],
    ),
    _entry(
        "L-35",
        "The retry's response is the final response",
        "10.8",
        ["ENG-142"],
        {"kind": "end", "at": "/finalResponseId", "equals": "resp_3"},
        runs=[fresh([turn(_read("{}", "c1")), EMPTY, DONE])],
    ),
    _entry(
        "L-36",
        "The retry's calls are not run",
        "10.8",
        ["ENG-142"],
        {"kind": "executions", "tool": "read", "count": 1},
        runs=[fresh([turn(_read("{}", "c1")), EMPTY, turn(_read('{"p":2}', "c2"))])],
    ),
    _entry(
        "L-37",
        "The retry is taken as it is: an empty retry still ends the run normally",
        "10.8",
        ["ENG-142"],
        {"kind": "end", "at": "/reason", "equals": "complete"},
        runs=[fresh([turn(_read("{}", "c1")), EMPTY, EMPTY])],
    ),
    _entry(
        "L-38",
        "A decision resume's approved batch is not a round: an empty resume response fails",
        "10.7",
        ["ENG-142"],
        {"kind": "end", "run": 1, "at": "/error/kind", "equals": "invalid-final-response"},
        tools=[RISKY],
        runs=[fresh([turn(call("risky", "{}", "r1"))]), decide([EMPTY], approve=["r1"])],
    ),
    # -- 10.9 fresh input ------------------------------------------------------------------------
    _entry(
        "L-39",
        "A failed first dispatch leaves a state without the turn's new input",
        "10.9",
        ["ENG-146"],
        {"kind": "state", "at": "/messages", "length": 0},
        runs=[fresh([])],
    ),
    _entry(
        "L-40",
        "A failed resume from awaiting_client_tools keeps that status",
        "10.9",
        ["ENG-146", "ENG-160"],
        {"kind": "end", "run": 1, "at": "/status", "equals": "awaiting_client_tools"},
        tools=[ASK],
        runs=[
            fresh([turn(call("ask", "{}", "m1"))]),
            {
                "input": [{"type": "function_call_output", "callId": "m1", "output": "1"}],
                "model": [],
            },
        ],
    ),
    # -- 10.10 argument parsing --------------------------------------------------------------------
    _entry(
        "L-41",
        "JSON inside a byte-order mark and a no-break space parses (JS trim)",
        "10.10",
        ["ENG-137"],
        {"kind": "executions", "tool": "read", "arguments": [{"q": "a"}]},
        runs=[fresh([turn(_read('\ufeff{"q":"a"}\xa0', "c1")), DONE])],
    ),
    _entry(
        "L-42",
        "A field list on array arguments finds no field and falls back with the warning",
        "10.10",
        ["ENG-154"],
        {"kind": "warning", "contains": ["loopKey fields [q] are all absent"]},
        tools=[{"name": "read", "loopKey": ["q"]}],
        doomLoop=True,
        runs=[fresh([turn(_read("[1,2]", "c1")), DONE])],
    ),
    _entry(
        "L-43",
        "decision: a field list naming an index keys arrays on that element",
        "10.10",
        ["ENG-154"],
        {"kind": "detections", "equals": [["observe", 2]]},
        tools=[{"name": "read", "loopKey": ["0"]}],
        doomLoop=True,
        runs=[fresh([turn(_read("[7]", "c1")), turn(_read("[7,8]", "c2")), DONE])],
    ),
    _entry(
        "L-44",
        "A field list on number arguments fails to resolve",
        "10.10",
        ["ENG-154", "ENG-40"],
        {"kind": "warning", "contains": ["could not resolve loop identity"]},
        tools=[{"name": "read", "loopKey": ["q"]}],
        doomLoop=True,
        runs=[fresh([turn(_read("5", "c1")), DONE])],
    ),
    _entry(
        "L-45",
        "A malformed call sharing an id leaves the parsed call's cached identity in place",
        "10.10",
        ["ENG-152"],
        {"kind": "loopKeyInvocations", "tool": "read", "equals": 1},
        tools=[{"name": "read", "loopKey": {"function": "returns", "value": "k"}}],
        doomLoop=True,
        runs=[fresh([turn(_read("{oops", "dup"), _read("{}", "dup")), DONE])],
    ),
    # -- 10.11 the SDK's defects, adopted --------------------------------------------------
    _entry(
        "L-46",
        "Arguments that are a JSON string are malformed, the parsed string quoted",
        "10.11",
        ["ENG-137", "ENG-104"],
        {"kind": "toolOutputs", "lastContains": ['Raw arguments received: \\"x\\"']},
        runs=[fresh([turn(_read('"x"', "c1")), DONE])],
    ),
    _entry(
        "L-47",
        "decision: a JSON string holding JSON is not parsed a second time",
        "10.11",
        ["ENG-137"],
        {"kind": "executions", "tool": "read", "count": 0},
        runs=[fresh([turn(_read('"{\\"q\\":1}"', "c1")), DONE])],
    ),
    _entry(
        "L-48",
        "Array arguments get no tool hook",
        "10.11",
        ["ENG-140"],
        {"kind": "hooks", "hook": "PreToolUse", "count": 0},
        runs=[fresh([turn(_read("[1]", "c1")), DONE])],
    ),
    _entry(
        "L-49",
        "The body of a call with array arguments still runs",
        "10.11",
        ["ENG-140"],
        {"kind": "executions", "tool": "read", "count": 1},
        runs=[fresh([turn(_read("[1]", "c1")), DONE])],
    ),
    _entry(
        "L-50",
        "A persisted doomLoop of null fails the run with type-error",
        "10.11",
        ["ENG-144", "ENG-141"],
        {"kind": "end", "at": "/error/kind", "equals": "type-error"},
        doomLoop=True,
        initialState={"status": "complete", "messages": [], "doomLoop": None},
        runs=[fresh([DONE])],
    ),
    _entry(
        "L-51",
        "A persisted stopVerdict that is a string re-arms on a decision resume",
        "10.11",
        ["ENG-158"],
        {"kind": "end", "at": "/stopVerdict", "equals": "halt"},
        tools=[RISKY],
        doomLoop=True,
        initialState={
            "status": "awaiting_approval",
            "messages": [{"role": "user", "content": "go"}, call("risky", "{}", "r1")],
            "pendingToolCalls": [call("risky", "{}", "r1")],
            "doomLoop": {"stopVerdict": "halt"},
        },
        runs=[decide([DONE], approve=["r1"])],
    ),
    _entry(
        "L-52",
        "Without a state accessor an approval pause fails the run",
        "10.11",
        ["ENG-143"],
        {"kind": "end", "at": "/error/kind", "equals": "approval-needs-state-accessor"},
        tools=[RISKY],
        stateAccessor=False,
        runs=[fresh([turn(call("risky", "{}", "r1"))])],
    ),
    _entry(
        "L-53",
        "Without a state accessor a decision resume fails before it starts",
        "10.11",
        ["ENG-143"],
        {"kind": "end", "at": "/error/kind", "equals": "decisions-need-state-accessor"},
        tools=[RISKY],
        stateAccessor=False,
        runs=[decide([DONE], approve=["r1"])],
    ),
    _entry(
        "L-54",
        "Only the first text message is the response's text",
        "10.11",
        ["ENG-157"],
        {"kind": "end", "at": "/finalText", "equals": "first"},
        runs=[fresh([turn(text("first"), text("second"))])],
    ),
    # -- found in the SDK's answers -------------------------------------------------------
    _entry(
        "L-55",
        "toolInput leaves a top-level __proto__ member out",
        "10.11",
        ["ENG-153"],
        {"kind": "detection", "index": 0, "has": {"toolInput": {"q": 1}}},
        doomLoop={"ladder": {"observe": 1}},
        runs=[fresh([turn(_read('{"__proto__":{"a":1},"q":1}', "c1")), DONE])],
    ),
    _entry(
        "L-56",
        "A decision resume leaving a HITL call undecided pauses as awaiting approval",
        "10.11",
        ["ENG-149"],
        {"kind": "end", "run": 1, "at": "/status", "equals": "awaiting_approval"},
        tools=[CONFIRM],
        runs=[fresh([turn(call("confirm", "{}", "h1"))]), decide([DONE], approve=["ghost"])],
    ),
    _entry(
        "L-57",
        "An approval pause's results replace the unsent results stored before",
        "10.11",
        ["ENG-155"],
        {"kind": "state", "run": 1, "at": "/unsentToolResults/0/callId", "equals": "b1"},
        tools=[READ, RISKY],
        runs=[
            fresh([turn(_read('{"p":1}', "a1"), call("risky", "{}", "r1"))]),
            fresh([turn(_read('{"p":2}', "b1"), call("risky", "{}", "r2"))]),
        ],
    ),
    _entry(
        "L-58",
        "A failed run's end gives no stop verdict, even with one armed",
        "10.7",
        ["ENG-141"],
        {"kind": "end", "run": 1, "at": "/stopVerdict", "equals": None},
        tools=[WEB_SEARCH],
        doomLoop={"ladder": {"stop": 1}},
        runs=[
            fresh([turn(call("web_search", SAME, "c1"))]),
            decide([EMPTY], approve=["ghost"]),
        ],
    ),
    _entry(
        "L-59",
        "decision: a tool result's array-index member names come first in its output text, "
        "ascending, the others after them in the scenario's order (JS property order)",
        "3.4.2",
        ["ENG-105"],
        {
            "kind": "request",
            "dispatch": 1,
            "at": "/input/2/output",
            # the expected text is Node's JSON.stringify(JSON.parse(<the result's JSON>))
            "equals": '{"0":"c","2":"b","7":"a","10":8,"4294967294":6,'
            '"z":1,"4294967296":5,"01":2,"4294967295":7,"-1":3,"a":4}',
        },
        tools=[
            {
                "name": "read",
                # 2^32 - 2 is the largest array index; 2^32 - 1 and 2^32 are plain names
                "result": {
                    "z": 1,
                    "7": "a",
                    "4294967296": 5,
                    "01": 2,
                    "2": "b",
                    "4294967295": 7,
                    "-1": 3,
                    "0": "c",
                    "10": 8,
                    "4294967294": 6,
                    "a": 4,
                },
            }
        ],
        runs=[fresh([turn(_read("{}", "c1")), DONE])],
    ),
]
"""One fact of brief §10 each, in the format of :mod:`.brief` (``rule``: the §10 section)."""
