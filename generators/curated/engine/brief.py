"""The 58 engine scenarios of the brief's §8, as data (spec §15).

Each entry: the brief's id, a title, the ENG statements it exercises, the
scenario (configuration, tools, hook handlers, request, runs with scripted
models and decisions) and the facts the brief's table says it pins. The
expected values are the brief's, written here by hand; none is copied from
an engine's output. Two brief rows (I-15, E-14) pin a fact in two settings
and have two variants.

Conventions of the brief's harness: responses are ``resp_1``, ``resp_2``, …;
"dispatch N" is 0-based; ``doomLoop: true`` unless stated; the loop keys
"trimmed lower-case query" and "command (trimmed), cwd" are the ``project``
function form (engine/loop_key_functions.py).
"""

from __future__ import annotations

from doomloop_kit.reference import fingerprint_tool_call

from .builders import Json, JsonObject, call, decide, fresh, repeated_calls, scenario, text, turn

ON: Json = True
QUERY_KEY: JsonObject = {"function": "project", "fields": {"query": ["trim", "lower"]}}
BASH_KEY: JsonObject = {"function": "project", "fields": {"command": ["trim"], "cwd": []}}
WEB_SEARCH: JsonObject = {"name": "web_search", "loopKey": QUERY_KEY}
STUCK_20 = " ".join(["I am stuck."] * 20)
FOX_40 = " ".join(["The quick brown fox jumps over the lazy dog."] * 40)
ESCALATE_AT_2: JsonObject = {"observe": 1, "steer": False, "escalate": 2, "block": 5, "stop": 8}
FRONTIER: JsonObject = {"model": "frontier-model"}
DONE = turn(text("done"))
SAME: JsonObject = {"query": "same"}


def _detections(*pairs: tuple[str, int], run: int = 0) -> JsonObject:
    return {"kind": "detections", "run": run, "equals": [list(pair) for pair in pairs]}


def _tool_detections(*pairs: tuple[str, int], run: int = 0) -> JsonObject:
    """Detections of client calls only: the brief's "tool detections"."""
    return {**_detections(*pairs, run=run), "detector": "tool-fingerprint"}


def _no_detections(run: int = 0) -> JsonObject:
    return {"kind": "detection", "run": run, "count": 0}


def _final_text(value: str, run: int = 0) -> JsonObject:
    return {"kind": "end", "run": run, "at": "/finalText", "equals": value}


def _dispatch_count(count: int, run: int = 0) -> JsonObject:
    return {"kind": "dispatches", "run": run, "count": count}


def _verdict(run: int = 0, **subset: Json) -> JsonObject:
    return {"kind": "end", "run": run, "at": "/stopVerdict", "has": subset}


def _ran(tool: str, count: int, run: int = 0) -> JsonObject:
    return {"kind": "executions", "run": run, "tool": tool, "count": count}


def _escalating(option: JsonObject | None = None, **escalation: Json) -> JsonObject:
    return {"ladder": ESCALATE_AT_2, "escalation": {**FRONTIER, **escalation}, **(option or {})}


# -- 8.1 integration ------------------------------------------------------------

INTEGRATION: list[JsonObject] = [
    scenario(
        "I-01",
        "Repeating distinct-argument fan-out",
        ["ENG-35", "ENG-52", "ENG-79", "ENG-81", "ENG-162"],
        [
            _detections(*[("observe", 2)] * 3, *[("block", 3)] * 3, *[("block", 4)] * 3),
            {
                "kind": "executions",
                "tool": "read",
                "arguments": [{"path": p} for p in "abcabc"],
            },
            {"kind": "detection", "everyMessageContains": "same set of 3 parallel calls"},
            _final_text("recovered"),
        ],
        tools=[{"name": "read"}],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(*(call("read", {"path": p}, f"call_{t}{p}") for p in "abc"))
                    for t in range(4)
                ]
                + [turn(text("recovered"))]
            )
        ],
    ),
    scenario(
        "I-02",
        "Duplicate call ids",
        ["ENG-41", "ENG-152", "ENG-46"],
        [{"kind": "detectionsInclude", "inOrder": [["observe", 2], ["block", 3]]}],
        tools=[{"name": "read", "loopKey": ["path"]}],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(
                        call("read", {"path": "a"}, "call_X"),
                        call("read", {"path": f"b{i}"}, "call_X"),
                    )
                    for i in range(4)
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "I-03",
        "Single repeated call, observe then block, recovery",
        ["ENG-39", "ENG-44", "ENG-79", "ENG-89", "ENG-162"],
        [
            _ran("web_search", 2),
            _detections(("observe", 2), ("block", 3)),
            {
                "kind": "detection",
                "index": 0,
                "has": {"detector": "tool-fingerprint", "toolName": "web_search"},
            },
            {
                "kind": "toolOutputs",
                "dispatch": 3,
                "lastContains": ["Doom loop suspected", "web_search", "3 consecutive rounds"],
            },
            _final_text("done"),
        ],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(call("web_search", {"query": q}, f"call_{i}"))
                    for i, q in enumerate(
                        ["openrouter sdk", "OpenRouter SDK", "  openrouter sdk  "]
                    )
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "I-04",
        "Stop threshold",
        ["ENG-82", "ENG-166", "ENG-86", "ENG-131"],
        [
            _dispatch_count(4),
            _verdict(action="stop", detector="tool-fingerprint", streak=4, toolName="web_search"),
            {"kind": "end", "at": "/finalResponseId", "equals": "resp_4"},
            {"kind": "end", "at": "/error", "absent": True},
        ],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": {"observe": 2, "block": 3, "stop": 4}},
        runs=[fresh(repeated_calls("web_search", SAME, 10))],
    ),
    scenario(
        "I-05",
        "SessionEnd reason",
        ["ENG-86", "ENG-99"],
        [{"kind": "sessionEnd", "equals": ["doom_loop"]}],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": {"stop": 3}},
        runs=[fresh(repeated_calls("web_search", SAME, 6))],
    ),
    scenario(
        "I-06",
        "Healthy run untouched",
        ["ENG-62", "ENG-162"],
        [_no_detections(), _dispatch_count(4), _final_text("done")],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(call("web_search", {"query": q}, f"call_{q}"))
                    for q in ("one", "two", "three")
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "I-07",
        "Off by default",
        ["ENG-27"],
        [_ran("web_search", 4), {"kind": "noToolOutputContains", "text": "Doom loop"}],
        tools=[WEB_SEARCH],
        runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
    ),
    scenario(
        "I-08",
        "Empty {} calls",
        ["ENG-38", "ENG-79"],
        [
            _detections(("observe", 2), ("block", 3)),
            {"kind": "toolOutputs", "dispatch": 3, "lastContains": ["Doom loop suspected"]},
        ],
        tools=[{"name": "list_tasks"}],
        doomLoop=ON,
        runs=[fresh([*repeated_calls("list_tasks", {}, 3), DONE])],
    ),
    scenario(
        "I-09",
        "Same invalid JSON",
        ["ENG-37", "ENG-45", "ENG-60", "ENG-83"],
        [
            _detections(("observe", 2), ("stop", 3)),
            _dispatch_count(3),
            _verdict(action="stop", streak=3),
        ],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": {"observe": 2, "block": 3, "stop": 3}},
        runs=[fresh(repeated_calls("web_search", '{"query": broken', 4))],
    ),
    scenario(
        "I-10",
        "Degenerate text, no tools",
        ["ENG-109", "ENG-113", "ENG-161"],
        [
            _final_text(FOX_40),
            {"kind": "detection", "count": 1},
            {
                "kind": "detection",
                "index": 0,
                "has": {"detector": "text-repetition", "action": "stop", "streak": 40},
            },
        ],
        doomLoop=ON,
        runs=[fresh([turn(text(FOX_40))])],
    ),
    scenario(
        "I-11",
        "Identical filler text with varying calls",
        ["ENG-109", "ENG-157", "ENG-113", "ENG-162"],
        [_dispatch_count(3), _verdict(detector="text-streak", action="stop", streak=3)],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": {"observe": 2, "block": 3, "stop": 3}, "text": True},
        runs=[
            fresh(
                [
                    turn(
                        text("Let me look that up."),
                        call("web_search", {"query": f"q{i}"}, f"c{i}"),
                    )
                    for i in range(5)
                ]
            )
        ],
    ),
    scenario(
        "I-12",
        "Subset loopKey (bash)",
        ["ENG-39"],
        [_ran("bash", 3)],
        tools=[{"name": "bash", "loopKey": BASH_KEY}],
        doomLoop={"ladder": {"block": 2}},
        runs=[
            fresh(
                [
                    turn(call("bash", {"command": "ls", "cwd": d}, f"c{d}"))
                    for d in ("/a", "/b", "/c")
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "I-13",
        "loopKey returns null",
        ["ENG-47"],
        [_no_detections(), _final_text("done")],
        tools=[{"name": "poll", "loopKey": {"function": "returns", "value": None}}],
        doomLoop=ON,
        runs=[fresh([*repeated_calls("poll", {"job": "1"}, 5), DONE])],
    ),
    scenario(
        "I-14",
        "Throwing loopKey",
        ["ENG-48", "ENG-49"],
        [
            _detections(("observe", 2), ("block", 3)),
            {"kind": "warning", "contains": ['tool "lookup"', "loopKey bug"]},
        ],
        tools=[{"name": "lookup", "loopKey": {"function": "throws", "message": "loopKey bug"}}],
        doomLoop=ON,
        runs=[fresh([*repeated_calls("lookup", {"id": 7}, 3), DONE])],
    ),
    *[
        scenario(
            "I-15",
            "The resolver can fail: both call sites guard it",
            ["ENG-40", "ENG-46"],
            [
                {"kind": "warning", "contains": ["while declaring the round", message]},
                {"kind": "warning", "contains": ["skipping detection for this call", message]},
                _ran("bash", 3),
                _no_detections(),
                _final_text("done"),
            ],
            variant=variant,
            tools=[
                {"name": "bash", "loopKey": {"function": "resolution-fails", "message": message}}
            ],
            doomLoop=ON,
            runs=[fresh([*repeated_calls("bash", {"command": "ls"}, 3), DONE])],
        )
        for variant, message in (("getter", "getter boom"), ("proxy", "has boom"))
    ],
    scenario(
        "I-16",
        "Hook de-escalates block",
        ["ENG-93", "ENG-96", "ENG-98"],
        [_ran("noisy", 3)],
        tools=[{"name": "noisy"}],
        hooks=[{"returns": {"overrideAction": "observe"}}],
        doomLoop=ON,
        runs=[fresh([*repeated_calls("noisy", {}, 3), DONE])],
    ),
    scenario(
        "I-17",
        "Hook escalates observe to stop",
        ["ENG-82", "ENG-93", "ENG-96"],
        [
            _dispatch_count(2),
            _verdict(streak=2),
            _verdict(action="observe"),  # brief §9.7, EQ-07
        ],
        tools=[WEB_SEARCH],
        hooks=[{"returns": {"overrideAction": "stop"}}],
        doomLoop=ON,
        runs=[fresh(repeated_calls("web_search", SAME, 3))],
    ),
    scenario(
        "I-18",
        "Streaks survive a fresh turn",
        ["ENG-114", "ENG-171", "ENG-119"],
        [
            {"kind": "state", "run": 0, "at": "/doomLoop/tools/web_search/streak", "equals": 2},
            _detections(("block", 3), run=1),
        ],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[
            fresh([*repeated_calls("web_search", SAME, 2), DONE]),
            fresh([*repeated_calls("web_search", SAME, 1), turn(text("done again"))], user="again"),
        ],
    ),
    scenario(
        "I-19",
        "The blob survives a JSON round trip",
        ["ENG-121"],
        [{"kind": "stateRoundTrip"}],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
    ),
    scenario(
        "I-20",
        "loopKey runs once per call",
        ["ENG-41"],
        [{"kind": "loopKeyInvocations", "tool": "web_search", "equals": 2}],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(
                        call("web_search", {"query": "one"}, "c1"),
                        call("web_search", {"query": "two"}, "c2"),
                    ),
                    DONE,
                ]
            )
        ],
    ),
    scenario(
        "I-21",
        "A manual tool's loopKey never runs",
        ["ENG-36", "ENG-44", "ENG-148"],
        [
            {"kind": "loopKeyInvocations", "tool": "web_search", "equals": 1},
            {"kind": "loopKeyInvocations", "tool": "ask_human", "equals": 0},
        ],
        tools=[
            WEB_SEARCH,
            {
                "name": "ask_human",
                "kind": "manual",
                "loopKey": {"function": "project", "fields": {"question": []}},
            },
        ],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(
                        call("web_search", {"query": "x"}, "c1"),
                        call("ask_human", {"question": "ok?"}, "c2"),
                    )
                ]
            )
        ],
    ),
]

# -- 8.2 escalation ---------------------------------------------------------------


def _config_only(brief: str, title: str, option: JsonObject, facts: list[JsonObject]) -> JsonObject:
    return scenario(
        brief, title, ["ENG-24", "ENG-26"], facts, doomLoop=option, runs=[fresh([DONE])]
    )


def _same_same_other(
    brief: str,
    title: str,
    spec: list[str],
    facts: list[JsonObject],
    option: JsonObject,
    request: JsonObject | None = None,
) -> JsonObject:
    """The brief's "same, same, different, text" script over ``web_search``."""
    return scenario(
        brief,
        title,
        spec,
        facts,
        tools=[WEB_SEARCH],
        doomLoop=option,
        request=request or {},
        runs=[
            fresh(
                [
                    *repeated_calls("web_search", SAME, 2),
                    turn(call("web_search", {"query": "different"}, "c3")),
                    DONE,
                ]
            )
        ],
    )


ESCALATION: list[JsonObject] = [
    _config_only(
        "E-01",
        "Resolve with the default budget",
        {"ladder": {"escalate": 3}, "escalation": {"model": "openai/gpt-5"}},
        [
            {
                "kind": "config",
                "at": "/escalation",
                "equals": {"model": "openai/gpt-5", "maxEscalations": 2},
            },
            {"kind": "config", "at": "/ladder/escalate", "equals": 3},
        ],
    ),
    _config_only(
        "E-02",
        "Rung without mechanism",
        {"ladder": {"escalate": 3}},
        [
            {"kind": "config", "at": "/escalation", "equals": None},
            {"kind": "config", "warningCode": "escalation-rung-unconfigured"},
        ],
    ),
    _config_only(
        "E-03",
        "Mechanism without rung",
        {"escalation": {"model": "frontier-model"}},
        [
            {"kind": "config", "at": "/escalation/model", "equals": "frontier-model"},
            {"kind": "config", "at": "/ladder/escalate", "equals": False},
            {"kind": "config", "warningCode": "escalation-unused"},
        ],
    ),
    _config_only(
        "E-04",
        "Invalid budget",
        {"ladder": {"escalate": 3}, "escalation": {"model": "m", "maxEscalations": 0}},
        [{"kind": "config", "at": "/escalation/maxEscalations", "equals": 2}],
    ),
    scenario(
        "E-05",
        "Escalate placement: the budget is untouched until a dispatch applies it",
        ["ENG-69", "ENG-71"],
        [_tool_detections(("observe", 1), ("escalate", 2), ("escalate", 3))],
        tools=[WEB_SEARCH],
        doomLoop=_escalating(),
        runs=[fresh([*repeated_calls("web_search", SAME, 3), DONE])],
    ),
    scenario(
        "E-06",
        "Exhaustion falls through to weaker rungs",
        ["ENG-71", "ENG-77"],
        [
            _tool_detections(
                ("observe", 1), ("escalate", 2), ("observe", 3), ("observe", 4), ("block", 5)
            )
        ],
        tools=[WEB_SEARCH],
        doomLoop=_escalating(maxEscalations=1),
        runs=[fresh([*repeated_calls("web_search", SAME, 5), DONE])],
    ),
    scenario(
        "E-07",
        "The budget persists across runs",
        ["ENG-114", "ENG-171"],
        [
            {"kind": "state", "run": 0, "at": "/doomLoop/escalationsUsed", "equals": 1},
            _tool_detections(("escalate", 3), ("observe", 4), run=1),
        ],
        tools=[WEB_SEARCH],
        doomLoop=_escalating(),
        runs=[
            fresh([*repeated_calls("web_search", SAME, 2), DONE]),
            fresh([*repeated_calls("web_search", SAME, 2), turn(text("done again"))], user="again"),
        ],
    ),
    _same_same_other(
        "E-08",
        "One-turn model swap",
        ["ENG-71", "ENG-72", "ENG-74"],
        [
            {
                "kind": "dispatches",
                "models": ["cheap-model", "cheap-model", "frontier-model", "cheap-model"],
            }
        ],
        _escalating(),
    ),
    _same_same_other(
        "E-09",
        "Advisor injection",
        ["ENG-73", "ENG-74", "ENG-103"],
        [
            {
                "kind": "advisor",
                "dispatch": 2,
                "has": {"forwardTranscript": True},
                "instructionsContain": "escalation advisor",
            },
            {
                "kind": "request",
                "dispatch": 2,
                "at": "/toolChoice",
                "has": {"type": "allowed_tools", "mode": "required"},
            },
            {"kind": "request", "dispatch": 2, "at": "/model", "equals": "cheap-model"},
            {"kind": "advisor", "dispatch": 3, "present": False},
            {
                "kind": "request",
                "dispatch": 3,
                "at": "/toolChoice",
                "notHas": {"type": "allowed_tools"},
            },
        ],
        {"ladder": ESCALATE_AT_2, "escalation": {"advisor": True}},
    ),
    _same_same_other(
        "E-10",
        "The caller's forced choice is preserved",
        ["ENG-74", "ENG-145"],
        [
            {"kind": "request", "dispatch": 2, "at": "/toolChoice/type", "equals": "allowed_tools"},
            {
                "kind": "request",
                "dispatch": 3,
                "at": "/toolChoice",
                "equals": {"type": "function", "name": "web_search"},
            },
        ],
        {"ladder": ESCALATE_AT_2, "escalation": {"advisor": True}},
        {
            "toolChoice": {"type": "function", "name": "web_search"},
            "toolChoiceFromDispatch": 2,
        },
    ),
    _same_same_other(
        "E-11",
        "Advisor object merge",
        ["ENG-73"],
        [
            {
                "kind": "advisor",
                "dispatch": 2,
                "has": {"model": "anthropic/claude-opus-4.6", "forwardTranscript": False},
                "instructionsContain": "escalation advisor",
            }
        ],
        {
            "ladder": ESCALATE_AT_2,
            "escalation": {
                "advisor": {"model": "anthropic/claude-opus-4.6", "forwardTranscript": False}
            },
        },
    ),
    scenario(
        "E-12",
        "The notice accompanies the escalated turn",
        ["ENG-65", "ENG-70", "ENG-102"],
        [
            {
                "kind": "userMessages",
                "dispatch": 2,
                "containing": "escalated turn follows",
                "count": 1,
            }
        ],
        tools=[WEB_SEARCH],
        doomLoop=_escalating(),
        runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
    ),
    scenario(
        "E-13",
        "The budget is spent per applied escalation",
        ["ENG-71", "ENG-77", "ENG-114"],
        [
            _tool_detections(
                ("observe", 1),
                ("escalate", 2),
                ("observe", 3),
                ("observe", 4),
                ("block", 5),
                ("block", 6),
            ),
            {"kind": "dispatches", "modelCount": {"model": "frontier-model", "equals": 1}},
            {"kind": "state", "at": "/doomLoop/escalationsUsed", "equals": 1},
        ],
        tools=[WEB_SEARCH],
        doomLoop=_escalating(maxEscalations=1),
        runs=[fresh([*repeated_calls("web_search", SAME, 6), DONE])],
    ),
    *[
        scenario(
            "E-14",
            "A handler override to escalate",
            ["ENG-93", "ENG-95"],
            facts,
            variant=variant,
            tools=[WEB_SEARCH],
            hooks=[{"returns": {"overrideAction": "escalate"}}],
            doomLoop={"ladder": {"observe": 2, "block": 5, "stop": 8}, **escalation},
            runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
        )
        for variant, escalation, facts in (
            (
                "with-config",
                {"escalation": FRONTIER},
                [{"kind": "request", "dispatch": 2, "at": "/model", "equals": "frontier-model"}],
            ),
            (
                "without-config",
                {},
                [
                    _final_text("done"),
                    {"kind": "request", "dispatch": 2, "at": "/model", "equals": "cheap-model"},
                    {"kind": "end", "at": "/error", "absent": True},
                ],
            ),
        )
    ],
    scenario(
        "E-15",
        "Text verdicts escalate",
        ["ENG-112", "ENG-70", "ENG-71"],
        [{"kind": "dispatches", "modelCount": {"model": "frontier-model", "equals": 1}}],
        tools=[WEB_SEARCH],
        doomLoop=_escalating({"text": True}),
        runs=[
            fresh(
                [
                    turn(text("Searching again."), call("web_search", {"query": "q1"}, "c1")),
                    turn(text("Searching again."), call("web_search", {"query": "q2"}, "c2")),
                    turn(call("web_search", {"query": "q3"}, "c3")),
                    DONE,
                ]
            )
        ],
    ),
    scenario(
        "E-16",
        "Two detectors, one window",
        ["ENG-70", "ENG-71"],
        [{"kind": "state", "at": "/doomLoop/escalationsUsed", "equals": 1}],
        tools=[WEB_SEARCH],
        doomLoop=_escalating(maxEscalations=5),
        runs=[
            fresh(
                [
                    turn(text("Searching again."), call("web_search", SAME, "c1")),
                    turn(text("Searching again."), call("web_search", SAME, "c2")),
                    DONE,
                ]
            )
        ],
    ),
]

# -- 8.3 remediation --------------------------------------------------------------


def server_turns(queries: list[JsonObject]) -> list[Json]:
    """Each turn: a ``web_search_call`` server item and a client ``note`` call (R-17..R-19)."""
    return [
        turn(
            {"type": "web_search_call", "id": f"ws_{i}", "status": "completed", "action": action},
            call("note", {"n": i}, f"c{i}"),
        )
        for i, action in enumerate(queries)
    ]


_STALE_VERDICT: JsonObject = {
    "detector": "tool-fingerprint",
    "action": "stop",
    "streak": 6,
    "fingerprint": fingerprint_tool_call("web_search", {"query": "same"}),
    "toolName": "web_search",
    "message": "Doom loop suspected: injected for the test.",
}

REMEDIATION: list[JsonObject] = [
    scenario(
        "R-01",
        "A wide identical fan-out in one round",
        ["ENG-54"],
        [_ran("web_search", 6), _no_detections()],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[fresh([turn(*(call("web_search", SAME, f"c{i}") for i in range(6))), DONE])],
    ),
    scenario(
        "R-02",
        "Duplicates share a block",
        ["ENG-53", "ENG-54", "ENG-92"],
        [_ran("noisy", 2), _detections(("observe", 2), ("block", 3))],
        tools=[{"name": "noisy"}],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    *repeated_calls("noisy", {}, 2),
                    turn(*(call("noisy", {}, f"dup_{i}") for i in range(3))),
                    DONE,
                ]
            )
        ],
    ),
    scenario(
        "R-03",
        "Text stop with a tool call in the same response",
        ["ENG-85", "ENG-106", "ENG-113", "ENG-162"],
        [
            _dispatch_count(1),
            {"kind": "sessionEnd", "equals": ["doom_loop"]},
            {"kind": "wellFormed"},
            {"kind": "toolOutputs", "count": 1, "everyContains": "halted by doom-loop detection"},
        ],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[fresh([turn(text(STUCK_20), call("web_search", {"query": "x"}, "c1"))])],
    ),
    scenario(
        "R-04",
        "A fresh turn after a sealed text stop",
        ["ENG-85", "ENG-119", "ENG-160"],
        [_final_text("resumed fine", run=1), {"kind": "wellFormed", "run": 1, "dispatch": 0}],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[
            fresh([turn(text(STUCK_20), call("web_search", {"query": "x"}, "c1"))]),
            fresh([turn(text("resumed fine"))], user="continue please"),
        ],
    ),
    scenario(
        "R-05",
        "The stop reason of a text-only stop",
        ["ENG-99", "ENG-113"],
        [
            _final_text(STUCK_20),
            {"kind": "sessionEnd", "equals": ["doom_loop"]},
            _verdict(detector="text-repetition", action="stop"),
        ],
        doomLoop=ON,
        runs=[fresh([turn(text(STUCK_20))])],
    ),
    scenario(
        "R-06",
        "No final request after a stop on the stopWhen path",
        ["ENG-166", "ENG-147", "ENG-132"],
        [_dispatch_count(2), _verdict(action="stop", streak=2)],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": {"observe": 2, "block": 2, "stop": 2}},
        request={"stopWhenSteps": 1, "allowFinalResponse": True},
        runs=[fresh([*repeated_calls("web_search", SAME, 2), turn(text("unused"))])],
    ),
    scenario(
        "R-07",
        "Stop while executing approved calls",
        ["ENG-158", "ENG-120", "ENG-163", "ENG-164", "ENG-145"],
        [
            {"kind": "end", "run": 0, "at": "/status", "equals": "awaiting_approval"},
            _dispatch_count(1, run=0),
            _verdict(run=2, action="stop", streak=2, toolName="risky"),
            _dispatch_count(0, run=2),
            {
                "kind": "state",
                "run": 2,
                "at": "/doomLoop/stopVerdict",
                "has": {"action": "stop", "streak": 2},
            },
            {"kind": "state", "run": 2, "at": "/consumedForcedToolChoiceKey", "absent": True},
        ],
        tools=[{"name": "risky", "kind": "approval"}],
        doomLoop={"ladder": {"observe": 1, "block": False, "stop": 2}},
        request={"toolChoice": "required"},
        runs=[
            fresh([turn(call("risky", {"target": "prod"}, "r1"))]),
            decide([turn(call("risky", {"target": "prod"}, "r2"))], approve=["r1"]),
            decide([], approve=["r2"]),
        ],
    ),
    scenario(
        "R-08",
        "A fresh turn clears the stop verdict",
        ["ENG-158", "ENG-119", "ENG-101"],
        [
            _final_text("recovered"),
            {"kind": "end", "at": "/stopVerdict", "equals": None},
            {"kind": "state", "at": "/doomLoop/stopVerdict", "absent": True},
            {"kind": "state", "at": "/doomLoop/tools/web_search/streak", "equals": 1},
        ],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        initialState={
            "status": "complete",
            "messages": [{"role": "user", "content": "earlier"}],
            "doomLoop": {
                "tools": {
                    "web_search": {
                        "fingerprint": fingerprint_tool_call("web_search", {"query": "same"}),
                        "streak": 1,
                    }
                },
                "stopVerdict": _STALE_VERDICT,
            },
        },
        runs=[fresh([turn(text("recovered"))], user="try again")],
    ),
    scenario(
        "R-09",
        "Steer inside the loop",
        ["ENG-63", "ENG-65", "ENG-66"],
        [{"kind": "userMessages", "dispatch": 2, "containing": "Doom loop suspected", "count": 1}],
        tools=[WEB_SEARCH],
        doomLoop={"ladder": {"observe": 2, "steer": 2, "block": False, "stop": 6}},
        runs=[fresh([*repeated_calls("web_search", SAME, 2), DONE])],
    ),
    scenario(
        "R-10",
        "Steer at a HITL pause",
        ["ENG-68", "ENG-114", "ENG-165"],
        [
            {"kind": "end", "at": "/status", "equals": "awaiting_hitl"},
            {"kind": "state", "at": "/doomLoop/pendingSteer", "length": 1},
            {"kind": "state", "at": "/doomLoop/pendingSteer/0", "contains": "Doom loop suspected"},
        ],
        tools=[{"name": "lookup"}, {"name": "confirm", "kind": "hitl"}],
        doomLoop={"ladder": {"observe": 2, "steer": 2, "block": False, "stop": 6}},
        runs=[
            fresh(
                [
                    turn(call("lookup", SAME, "c1")),
                    turn(call("lookup", SAME, "c2"), call("confirm", {"ok": True}, "h1")),
                ]
            )
        ],
    ),
    scenario(
        "R-11",
        "Subset loopKey",
        ["ENG-39"],
        [_ran("bash", 2)],
        tools=[{"name": "bash", "loopKey": BASH_KEY}],
        doomLoop={"ladder": {"block": 2}},
        runs=[
            fresh(
                [turn(call("bash", {"command": "ls", "cwd": d}, f"c{d}")) for d in ("/a", "/b")]
                + [DONE]
            )
        ],
    ),
    scenario(
        "R-12",
        "An excluded field is ignored",
        ["ENG-39"],
        [_detections(("observe", 2))],
        tools=[{"name": "bash", "loopKey": BASH_KEY}],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(call("bash", {"command": "ls", "cwd": "/a", "verbose": v}, f"c{v}"))
                    for v in (False, True)
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "R-13",
        "loopKey false",
        ["ENG-47"],
        [_no_detections()],
        tools=[{"name": "poll", "loopKey": False}],
        doomLoop=ON,
        runs=[fresh([*repeated_calls("poll", {"job": "1"}, 5), DONE])],
    ),
    scenario(
        "R-14",
        "loopKey returns undefined",
        ["ENG-48"],
        [_no_detections(), {"kind": "warning", "contains": ['tool "lookup"', "returned"]}],
        tools=[{"name": "lookup", "loopKey": {"function": "returns-undefined"}}],
        doomLoop=ON,
        runs=[fresh([turn(call("lookup", {"value": v}, f"c{v}")) for v in "abc"] + [DONE])],
    ),
    scenario(
        "R-15",
        "Documented miss: a nonce",
        ["ENG-39"],
        [_no_detections(), _final_text("done")],
        tools=[{"name": "fetch"}],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(call("fetch", {"key": "same", "request_id": f"r{i}"}, f"c{i}"))
                    for i in range(6)
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "R-16",
        "A nonce caught with a loopKey",
        ["ENG-39"],
        [_detections(("observe", 2), ("block", 3))],
        tools=[{"name": "fetch", "loopKey": ["key"]}],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(call("fetch", {"key": "same", "request_id": f"r{i}"}, f"c{i}"))
                    for i in range(3)
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "R-17",
        "Server-tool repetition stops",
        ["ENG-56", "ENG-57", "ENG-58", "ENG-59", "ENG-162"],
        [
            _dispatch_count(3),
            {"kind": "detection", "count": 2, "everyHas": {"detector": "server-tool-fingerprint"}},
            _verdict(
                detector="server-tool-fingerprint",
                action="stop",
                streak=3,
                toolName="server:web_search_call",
            ),
        ],
        tools=[{"name": "note"}],
        doomLoop={"ladder": {"observe": 2, "block": 3, "stop": 3}},
        runs=[fresh(server_turns([{"type": "search", "query": "same query"}] * 4))],
    ),
    scenario(
        "R-18",
        "Distinct server queries",
        ["ENG-57"],
        [_no_detections()],
        tools=[{"name": "note"}],
        doomLoop=ON,
        runs=[
            fresh([*server_turns([{"type": "search", "query": q} for q in ("one", "two")]), DONE])
        ],
    ),
    scenario(
        "R-19",
        "__proto__ takes part in a server identity",
        ["ENG-57"],
        [_no_detections()],
        tools=[{"name": "note"}],
        doomLoop=ON,
        runs=[
            fresh(
                [
                    turn(
                        {
                            "type": "web_search_call",
                            "action": {"type": "search", "query": "same query"},
                            "__proto__": {"variant": v},
                        },
                        call("note", {"n": v}, f"c{v}"),
                    )
                    for v in "abc"
                ]
                + [DONE]
            )
        ],
    ),
    scenario(
        "R-20",
        "On, then off",
        ["ENG-27", "ENG-28"],
        [_no_detections(run=1), _final_text("done", run=1)],
        tools=[WEB_SEARCH],
        runs=[
            fresh([*repeated_calls("web_search", SAME, 2), DONE], doomLoop=True),
            fresh([*repeated_calls("web_search", SAME, 2), DONE], user="again", doomLoop=False),
        ],
    ),
    scenario(
        "R-21",
        "On, then on",
        ["ENG-171", "ENG-119"],
        [_detections(("block", 3), run=1)],
        tools=[WEB_SEARCH],
        doomLoop=ON,
        runs=[
            fresh([*repeated_calls("web_search", SAME, 2), DONE]),
            fresh([*repeated_calls("web_search", SAME, 1), turn(text("done again"))], user="again"),
        ],
    ),
]

SCENARIOS: list[JsonObject] = [*INTEGRATION, *ESCALATION, *REMEDIATION]
"""Every brief scenario, in the brief's order (variants adjacent)."""
