"""Hypothesis strategies for engine scenarios (public API; spec §15, session 3 families).

Every strategy here draws a pair ``(shape, scenario)``: ``scenario`` is the
plain-JSON input of :func:`doomloop_kit.engine.run_scenario` (format of
spec §15.1.4) WITHOUT its transcript; the regeneration machinery adds the
transcript by running the reference engine, exactly as it adds a monitor
transcript's expectations. :data:`ENGINE_FAMILIES` maps each family name
(prefixed ``engine-``) to an :class:`EngineFamily`, which mirrors
:class:`~doomloop_kit.generators.strategies.Family`.

The families draw the engine's edges: pauses of every kind answered by
decisions (also after a doom-loop stop), steer queues merging several
messages, escalation budgets with edge ``maxEscalations``, malformed and
non-object argument strings, and call ids used twice. Scenarios stay small
(a few runs, at most :data:`MAX_DISPATCHES` scripted responses) so a vector
stays small. Families whose later runs answer a pause run the reference
engine while drawing, to learn which calls are pending; the draw stays a
pure function of Hypothesis's choices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from doomloop_kit.engine import OutsideDomain, Scenario, run_scenario
from doomloop_kit.vectorset.files import json_kind
from hypothesis.strategies import DrawFn, SearchStrategy, composite

from .curated.engine.builders import call, text, turn
from .strategies import Family, st

JsonObject = dict[str, Any]
EngineScenario = JsonObject
DrawnScenario = tuple[str, EngineScenario]

MAX_DISPATCHES = 6
"""Scripted responses per scenario, over all its runs."""

RUNGS = ("observe", "steer", "escalate", "block", "stop")
ESCALATION_MODEL = "escalation-model"
"""A model name used by no request, so an escalated dispatch is recognisable (ENG-72)."""

# -- building blocks -------------------------------------------------------------

LOOP_KEYS: tuple[object, ...] = (
    None,  # absent
    None,
    False,
    ["q"],
    [],
    ["missing"],
    ["0"],
    ["length"],
    {"function": "project", "fields": {"q": ["trim", "lower"]}},
    {"function": "project", "fields": {"q": []}},
    {"function": "returns", "value": None},
    {"function": "returns", "value": 0},
    {"function": "returns", "value": -1},
    {"function": "returns", "value": 0.5},
    {"function": "returns", "value": 2**64},
    {"function": "returns", "value": ""},
    {"function": "returns", "value": [1]},
    {"function": "returns", "value": {"k": "v"}},
    {"function": "returns-undefined"},
    {"function": "throws", "message": "loopKey bug"},
    {"function": "throws", "message": ""},
)
"""``loopKey`` forms (ENG-39, KEY-*): absent, ``false``, field lists (array index names
and ``length`` included, ENG-154), every function form."""

FUNCTION_LOOP_KEYS = tuple(key for key in LOOP_KEYS if isinstance(key, dict))

ARGUMENTS = ('{"q":"a"}', '{"q":"a"}', '{"q":" A "}', '{"q":"b"}', "{}", '{"q":"a","n":1}')
"""Well-formed object arguments from a small alphabet, so rounds repeat."""

MALFORMED = (
    "{oops",
    "{'q':'a'}",
    '{"q":"a",}',
    "[1,",
    "undefined",
    "NaN",
    "Infinity",
    "-Infinity",
    "{q:1}",
    '"unterminated',
    "01",
    "+1",
    ".5",
    "\ufeff{}",
    '{"q":"a"} x',
    '{"q":"\n"}',
    "\x1c",
    "\x85",
    "\u200b",
)
"""Raw argument strings that are not JSON (ENG-37, ENG-104): grammar errors, JS-only
literals, a byte-order mark, a raw control character in a string, and characters
that JS ``trim`` keeps (U+001C, U+0085, U+200B are not ECMAScript whitespace)."""

NON_OBJECTS = (
    "[]",
    "[1,2]",
    "5",
    "-0",
    "0.1",
    "1e400",
    "12345678901234567890",
    "9007199254740993",
    '"x"',
    '"{\\"q\\":1}"',
    "true",
    "null",
)
"""JSON that is not an object (ENG-154, ENG-153): arrays, numbers past 2^53 and past
the double range, strings, booleans, ``null`` (read as ``{}`` by ``loopKey``)."""

BLANK = ("", " ", "\t\n\r ", "\u3000", "\xa0", "\ufeff", "\u2028")
"""Empty or ECMAScript-whitespace-only argument strings: they parse as ``{}`` (ENG-38)."""

UNICODE_OBJECTS = (
    '{"q":"\\ud800"}',
    '{"q":"\\udc00\\ud800"}',
    '{"q":"\u00e9"}',
    '{"q":"e\u0301"}',
    '{"q":"\u2028"}',
    '{"q":"\\u0000"}',
    '{"\u00e9":1}',
    '{"__proto__":{"q":1}}',
    '{"q":"a","q":"b"}',
    '{"n":1.0}',
    '{"n":-0.0}',
    '{"n":1e-400}',
    '{"q":"\ud800"}',
    '{"q":"\u0391\u03a3.\u0391 \u4e2d\u03a3"}',
)
"""Well-formed objects at the Unicode and number edges: lone surrogates (escaped, and raw
in the text), composed and decomposed forms, line separators, NUL, ``__proto__``, repeated
members, ``1.0``, ``-0``, and capital sigmas where JS's final-sigma rule decides ``lower``."""


STUCK = " ".join(["I am stuck."] * 4)
"""Assistant text that repeats within one response (text detection, ENG-109)."""

DONE = turn(text("done"))


def _tool(name: str, kind: str, loop_key: object = None, **extra: object) -> JsonObject:
    tool: JsonObject = {"name": name, "kind": kind, **extra}
    if loop_key is not None:
        tool["loopKey"] = loop_key
    return tool


@composite
def ladders(draw: DrawFn, low: Sequence[str] = (), off: Sequence[str] = ()) -> JsonObject:
    """A ladder with small thresholds: rungs in ``low`` at 1-2, rungs in ``off`` false,
    the others drawn from small thresholds, ``false`` or absent (CFG-08)."""
    ladder: JsonObject = {}
    for rung in RUNGS:
        if rung in low:
            ladder[rung] = draw(st.integers(1, 2))
        elif rung in off:
            ladder[rung] = False
        else:
            choice = draw(st.sampled_from([1, 2, 3, 4, False, False, "absent"]))
            if choice != "absent":
                ladder[rung] = choice
    return ladder


EMPTY: JsonObject = {"output": []}
"""A response with no output item: fails a run's first response, is retried after a round
(ENG-142)."""


def _ended(draw: DrawFn, responses: list[JsonObject], budget: int) -> list[JsonObject]:
    """Mostly end the run's script with a text-only response, sometimes with an empty one
    (retried, ENG-142), when the budget allows; otherwise the next dispatch finds the
    script exhausted (ENG-20)."""
    if len(responses) < budget and draw(st.integers(0, 3)):
        responses.append(draw(st.sampled_from([DONE, DONE, DONE, EMPTY])))
        if responses[-1] is EMPTY and len(responses) < budget and draw(st.booleans()):
            responses.append(DONE)  # the retry's response
    return responses


def _budget(scenario: EngineScenario) -> int:
    """Scripted responses left before the scenario reaches :data:`MAX_DISPATCHES`."""
    used = sum(len(run["model"]) for run in scenario["runs"])
    return MAX_DISPATCHES - used


def _last_run(scenario: EngineScenario) -> JsonObject:
    """The transcript of the scenario's last run, from the reference engine."""
    return run_scenario(Scenario.from_json(scenario)).runs[-1].to_json()


def _unanswered(state: JsonObject) -> list[str]:
    """Call ids of the conversation's function calls that have no output yet (ENG-148)."""
    messages = state.get("messages", [])
    answered = {m.get("callId") for m in messages if m.get("type") == "function_call_output"}
    ids = [m["callId"] for m in messages if m.get("type") == "function_call"]
    return [call_id for call_id in dict.fromkeys(ids) if call_id not in answered]


@composite
def _decisions(draw: DrawFn, pending: Sequence[str]) -> JsonObject:
    """Approvals and rejections over the pending ids, sometimes naming an unknown id
    (ENG-22), sometimes leaving a call undecided (ENG-163 step 4); never both empty, and
    never one pending id twice (outside the domain, ENG-151)."""
    ids = list(dict.fromkeys(pending))
    approve: list[str] = []
    reject: list[str] = []
    for call_id in ids:
        choice = draw(st.sampled_from(["approve", "approve", "reject", "undecided"]))
        if choice == "approve":
            approve.append(call_id)
        elif choice == "reject":
            reject.append(call_id)
    if draw(st.integers(0, 4)) == 0:
        (approve if draw(st.booleans()) else reject).append("call_ghost")
    if not approve and not reject:
        approve = ids[:1] or ["call_ghost"]
    if draw(st.booleans()):
        approve.reverse()  # the approved batch follows the caller's order (ENG-35)
    return {"approve": approve, "reject": reject}


@composite
def _follow_up_runs(
    draw: DrawFn,
    scenario: EngineScenario,
    responses: Callable[[str, int], SearchStrategy[list[JsonObject]]],
    max_runs: int,
) -> list[str]:
    """Append runs answering the previous run's end: decisions at an approval or HITL
    pause (ENG-163), call outputs after a client-tools pause (ENG-148), a new turn or
    a decision resume on a settled conversation otherwise (EQ-08). Returns the ends seen."""
    ends: list[str] = []
    for number in range(1, max_runs):
        try:
            last = _last_run(scenario)
        except OutsideDomain:  # the family's filter drops the scenario (ENG-151)
            break
        status = str(last["end"]["status"])
        reason = str(last["end"]["reason"])
        ends.append(status if reason != "doom_loop" else f"{status}/stop")
        budget = _budget(scenario)
        if budget <= 0:
            break
        state = last["state"] if isinstance(last["state"], dict) else {}
        run: JsonObject
        if status in ("awaiting_approval", "awaiting_hitl"):
            pending = [str(c.get("callId")) for c in state.get("pendingToolCalls", [])]
            run = draw(_decisions(pending))
        elif status == "awaiting_client_tools" and draw(st.integers(0, 3)):
            outputs = [
                {"type": "function_call_output", "callId": call_id, "output": '"client result"'}
                for call_id in _unanswered(state)
            ]
            run = {"input": outputs}
        elif draw(st.integers(0, 5)) == 0:
            run = {"approve": ["call_ghost"]}  # a decision resume with nothing to decide
        else:
            run = {"input": draw(st.sampled_from(["go on", "", "again"]))}
        run["model"] = draw(responses(f"r{number}", budget))
        scenario["runs"].append(run)
    return ends


def _shape(prefix: str, ends: Sequence[str]) -> str:
    kinds = sorted({end.replace("awaiting_", "").replace("_", "-") for end in ends})
    return "-".join([prefix, *kinds]) if kinds else prefix


# -- resume at every pause point ------------------------------------------------------

GATED = {"risky": "approval", "confirm": "hitl", "ask": "manual"}

ALLOW_FINAL: tuple[object, ...] = (True, True, False, False, "Answer now.", "", 0, None)
"""``allowFinalResponse`` values (ENG-147): the fixed directive, none, a custom one, and
values that are not ``false`` yet give no directive."""

ODD_BLOBS: tuple[object, ...] = (
    5,
    None,
    "x",
    [],
    {"stopVerdict": "halt"},
    {"stopVerdict": 0},
    {"stopVerdict": {"message": "Halt.", "action": "stop"}},
    {"tools": 5, "pendingSteer": "Earlier advice."},
)
"""Persisted ``doomLoop`` members of odd shapes (ENG-144, ENG-158, ENG-171): a number, ``null``
(the run fails), a string, an array, a string, a falsy or a partial ``stopVerdict``."""


@composite
def _gated_responses(draw: DrawFn, tag: str, budget: int) -> list[JsonObject]:
    """Up to ``budget`` responses of repeated ``read`` calls with pausing calls mixed in."""
    count = draw(st.integers(1, max(1, min(3, budget))))
    responses = []
    for index in range(count):
        items: list[JsonObject] = []
        if draw(st.integers(0, 3)) == 0:
            items.append(text(draw(st.sampled_from(["thinking", STUCK, ""]))))
        args = draw(st.sampled_from(ARGUMENTS[:3]))
        for position in range(draw(st.integers(0, 2))):
            items.append(call("read", args, f"call_{tag}_{index}_r{position}"))
        for name in _in_domain(draw(st.lists(st.sampled_from([*GATED, "ghost"]), max_size=2))):
            items.append(call(name, draw(st.sampled_from(ARGUMENTS)), f"call_{tag}_{index}_{name}"))
        responses.append(turn(*items))
    return _ended(draw, responses, budget)


def _in_domain(names: list[str]) -> list[str]:
    """No call of the HITL tool beside one of the approval tool: the SDK loses it (ENG-151)."""
    return [n for n in names if n != "confirm"] if "risky" in names else names


@composite
def resume_scenarios(draw: DrawFn) -> DrawnScenario:
    """Runs that pause (approval, HITL, client tools, ``stopWhen``) and are resumed at
    each pause, also after a doom-loop stop was armed (ENG-167, ENG-158, ENG-163)."""
    tools = [_tool("read", "executable", draw(st.sampled_from(LOOP_KEYS)))]
    tools += [_tool(name, kind) for name, kind in GATED.items()]
    request: JsonObject = {}
    steps = draw(st.sampled_from([None, None, None, 0, 1, 2, -1]))
    if steps is not None:
        request["stopWhenSteps"] = steps
        request["allowFinalResponse"] = draw(st.sampled_from(ALLOW_FINAL))
    scenario: EngineScenario = {
        "id": "engine-resume",
        "doomLoop": {"ladder": draw(ladders(low=("observe",)))},
        "tools": tools,
        "request": request,
        "runs": [{"input": "go", "model": draw(_gated_responses("r0", 4))}],
    }
    if draw(st.integers(0, 3)) == 0:
        status = draw(st.sampled_from(["complete", "awaiting_approval", "in_progress"]))
        blob = draw(st.sampled_from(ODD_BLOBS))
        scenario["initialState"] = {"status": status, "messages": [], "doomLoop": blob}
    ends = draw(_follow_up_runs(scenario, _gated_responses, draw(st.integers(2, 4))))
    return _shape("resume", ends), scenario


# -- steer queues -------------------------------------------------------------------

PENDING_STEER: tuple[object, ...] = (
    ["Earlier advice."],
    ["Earlier advice.", "Earlier advice.", 5, None, "Second advice."],
    ["", "Earlier advice."],
    [],
    "Earlier advice.",
    None,
)
"""Restored ``pendingSteer`` values (ENG-171): duplicates, non-strings, an empty string,
an empty list, a string and ``null`` where an array belongs."""


@composite
def _steer_responses(draw: DrawFn, tag: str, budget: int) -> list[JsonObject]:
    """Responses in which several tools, the text and a server tool repeat at once."""
    count = draw(st.integers(1, max(1, min(4, budget))))
    names = draw(st.lists(st.sampled_from(["read", "grep", "risky"]), min_size=1, max_size=3))
    repeat_text = draw(st.booleans())
    server = draw(st.booleans())
    responses = []
    for index in range(count):
        items: list[JsonObject] = []
        if repeat_text:
            items.append(text(STUCK))
        if server:
            items.append({"type": "web_search_call", "id": f"ws_{index}", "action": {"q": "x"}})
        for position, name in enumerate(names):
            items.append(call(name, '{"q":"a"}', f"call_{tag}_{index}_{position}"))
        responses.append(turn(*items))
    return _ended(draw, responses, budget)


@composite
def steer_scenarios(draw: DrawFn) -> DrawnScenario:
    """Several steer messages queued in one round or carried over, merged into one
    delivery (ENG-63..ENG-68, ENG-171)."""
    option: JsonObject = {"ladder": draw(ladders(low=("steer",), off=("block", "stop")))}
    if draw(st.integers(0, 2)) == 0:
        option["escalation"] = {"model": ESCALATION_MODEL}  # the notice joins the queue (ENG-70)
    hooks: list[JsonObject] = []
    if draw(st.integers(0, 2)) == 0:
        hooks.append(
            {
                "tool": draw(st.sampled_from(["read", "grep"])),
                "returns": {"overrideAction": "steer"},
            }
        )
    scenario: EngineScenario = {
        "id": "engine-steer",
        "doomLoop": option,
        "tools": [
            _tool("read", "executable", draw(st.sampled_from(LOOP_KEYS))),
            _tool("grep", "executable"),
            _tool("risky", "approval"),
        ],
        "hooks": hooks,
        "runs": [{"input": "go", "model": draw(_steer_responses("r0", 5))}],
    }
    shape = "steer"
    if draw(st.integers(0, 2)) == 0:
        blob: JsonObject = {"pendingSteer": draw(st.sampled_from(PENDING_STEER))}
        scenario["initialState"] = {"status": "complete", "messages": [], "doomLoop": blob}
        shape += "-restored"
    ends = draw(_follow_up_runs(scenario, _steer_responses, draw(st.integers(1, 3))))
    return _shape(shape, ends), scenario


# -- escalation budget ----------------------------------------------------------------

MAX_ESCALATIONS: tuple[object, ...] = (
    "absent",
    1,
    1,
    2,
    0,
    -1,
    1.5,
    0.5,
    None,
    "2",
    2**53 + 1,
    1e300,
)
"""``maxEscalations`` values (CFG-19): small budgets, 0, negatives, fractions, ``null``,
a string, an unsafe integer and a huge double."""

ADVISORS: tuple[object, ...] = (
    "absent",
    True,
    False,
    None,
    {"model": "advisor-model"},
    {"instructions": "", "forwardTranscript": False},
)


@composite
def escalation_configs(draw: DrawFn) -> JsonObject:
    """An ``escalation`` block: model, advisor, both or neither, and a budget (ENG-26)."""
    config: JsonObject = {}
    if draw(st.booleans()):
        config["model"] = ESCALATION_MODEL
    advisor = draw(st.sampled_from(ADVISORS))
    if advisor != "absent":
        config["advisor"] = advisor
    cap = draw(st.sampled_from(MAX_ESCALATIONS))
    if cap != "absent":
        config["maxEscalations"] = cap
    return config


@composite
def _repeating_responses(draw: DrawFn, tag: str, budget: int) -> list[JsonObject]:
    """Responses that repeat one or two calls, sometimes with repeated text."""
    count = draw(st.integers(1, max(1, min(5, budget))))
    names = draw(st.lists(st.sampled_from(["read", "grep"]), min_size=1, max_size=2))
    args = draw(st.sampled_from(ARGUMENTS))
    with_text = draw(st.integers(0, 3)) == 0
    responses = []
    for index in range(count):
        items = [text(STUCK)] if with_text else []
        items += [call(n, args, f"call_{tag}_{index}_{i}") for i, n in enumerate(names)]
        responses.append(turn(*items))
    return _ended(draw, responses, budget)


TOOL_CHOICES: tuple[object, ...] = (
    "absent",
    "auto",
    "required",
    {"type": "function", "name": "read"},
    "none",
    {"type": "web_search_preview"},
    {"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "read"}]},
    {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "read"}]},
)
"""Caller tool choices (ENG-145): not forced, forced strings and objects, an
``allowed_tools`` in either mode."""


@composite
def escalation_scenarios(draw: DrawFn) -> DrawnScenario:
    """Escalate rungs with a spendable budget, model and advisor overrides, fallback
    ``models`` and forced tool choices, over one to three runs (ENG-69..ENG-77)."""
    ladder = draw(ladders(low=("escalate",)))
    request: JsonObject = {}
    if draw(st.booleans()):
        request["models"] = draw(st.sampled_from([["fallback-a", "fallback-b"], []]))
    choice = draw(st.sampled_from(TOOL_CHOICES))
    if choice != "absent":
        request["toolChoice"] = choice
        request["toolChoiceFromDispatch"] = draw(st.sampled_from([0, 0, 1, 2, -1]))
    hooks: list[JsonObject] = []
    if draw(st.integers(0, 3)) == 0:
        hooks.append({"returns": {"overrideAction": "escalate"}})
    scenario: EngineScenario = {
        "id": "engine-escalation",
        "doomLoop": {"ladder": ladder, "escalation": draw(escalation_configs())},
        "tools": [_tool("read", "executable"), _tool("grep", "executable", ["q"])],
        "hooks": hooks,
        "request": request,
        "runs": [{"input": "go", "model": draw(_repeating_responses("r0", 6))}],
    }
    ends = draw(_follow_up_runs(scenario, _repeating_responses, draw(st.integers(1, 3))))
    return _shape("escalation", ends), scenario


# -- stop with approvals pending ---------------------------------------------------------


@composite
def _stop_pending_responses(draw: DrawFn, tag: str, budget: int) -> list[JsonObject]:
    """Repeated ``read`` rounds, then a response that also calls approval or HITL tools."""
    count = draw(st.integers(1, max(1, min(4, budget))))
    responses = [turn(call("read", '{"q":"a"}', f"call_{tag}_{i}")) for i in range(count - 1)]
    items = [call("read", '{"q":"a"}', f"call_{tag}_last")]
    if draw(st.integers(0, 3)) == 0:
        items.insert(0, text(STUCK))
    for name in _in_domain(
        draw(st.lists(st.sampled_from(["risky", "confirm", "ask"]), min_size=1, max_size=3))
    ):
        items.append(
            call(name, draw(st.sampled_from(ARGUMENTS)), f"call_{tag}_{name}_{len(items)}")
        )
    responses.append(turn(*items))
    return responses


@composite
def stop_pending_scenarios(draw: DrawFn) -> DrawnScenario:
    """A stop armed in the round that pauses for approval or HITL, then decisions over a
    condemned conversation, then perhaps a fresh turn (ENG-119, ENG-120, ENG-158, ENG-167)."""
    responses = draw(_stop_pending_responses("r0", 4))
    ladder = draw(ladders(off=("escalate", "stop")))
    ladder["stop"] = len(responses)  # reached by the read call of the pausing response
    hooks: list[JsonObject] = []
    if draw(st.integers(0, 3)) == 0:
        hooks.append({"tool": "read", "returns": {"overrideAction": "stop"}})
    scenario: EngineScenario = {
        "id": "engine-stop-pending",
        "doomLoop": {"ladder": ladder},
        "tools": [_tool("read", "executable", draw(st.sampled_from(LOOP_KEYS)))]
        + [_tool(name, kind) for name, kind in GATED.items()],
        "hooks": hooks,
        "runs": [{"input": "go", "model": responses}],
    }
    ends = draw(_follow_up_runs(scenario, _gated_responses, draw(st.integers(2, 4))))
    return _shape("stop-pending", ends), scenario


# -- malformed arguments -----------------------------------------------------------------

MALFORMED_TOOLS = {"raw": MALFORMED, "odd": NON_OBJECTS, "blank": BLANK, "good": UNICODE_OBJECTS}
"""Each tool receives arguments of one kind only, so a property can tell them apart."""


@composite
def malformed_scenarios(draw: DrawFn) -> DrawnScenario:
    """Raw argument strings that are not JSON, empty, whitespace, not objects, or at the
    Unicode and number edges, repeated until blocked or stopped (ENG-37, ENG-38, ENG-45)."""
    count = draw(st.integers(1, MAX_DISPATCHES - 1))
    repeat = draw(st.booleans())
    fixed: dict[str, str] = {}
    responses = []
    for index in range(count):
        names = draw(st.lists(st.sampled_from(sorted(MALFORMED_TOOLS)), min_size=1, max_size=3))
        items = []
        for position, name in enumerate(names):
            raw = draw(st.sampled_from(MALFORMED_TOOLS[name]))
            if repeat:
                raw = fixed.setdefault(name, raw)  # the same raw string every round
            items.append(call(name, raw, f"call_{index}_{position}"))
        responses.append(turn(*items))
    responses.append(DONE)
    tools = [
        _tool(name, "executable", draw(st.sampled_from(LOOP_KEYS))) for name in MALFORMED_TOOLS
    ]
    scenario: EngineScenario = {
        "id": "engine-malformed",
        "doomLoop": {"ladder": draw(ladders(low=("block",)))},
        "tools": tools,
        "runs": [{"input": "go", "model": responses}],
    }
    return ("malformed-repeated" if repeat else "malformed-mixed"), scenario


# -- duplicate call ids --------------------------------------------------------------------


@composite
def duplicate_id_scenarios(draw: DrawFn) -> DrawnScenario:
    """The same call id twice in a response and again in later responses, for identical
    and for different calls, with function loop keys (ENG-41, ENG-152, ENG-54)."""
    ids = draw(st.sampled_from([("call_1",), ("call_1", "call_2"), ("call_1", "call_1", "call_2")]))
    count = draw(st.integers(1, MAX_DISPATCHES - 1))
    identical = draw(st.booleans())
    responses = []
    for _ in range(count):
        items = []
        for position in range(draw(st.integers(1, 3))):
            name = draw(st.sampled_from(["read", "read", "grep"]))
            raw = ARGUMENTS[0] if identical else draw(st.sampled_from(ARGUMENTS + MALFORMED[:1]))
            items.append(call(name, raw, ids[position % len(ids)]))
        responses.append(turn(*items))
    responses.append(DONE)
    scenario: EngineScenario = {
        "id": "engine-duplicate-ids",
        "doomLoop": {"ladder": draw(ladders(off=("escalate", "stop")))},
        "tools": [
            _tool("read", "executable", draw(st.sampled_from(FUNCTION_LOOP_KEYS))),
            _tool("grep", "executable", draw(st.sampled_from(LOOP_KEYS))),
        ],
        "runs": [{"input": "go", "model": responses}],
    }
    return ("duplicate-ids-identical" if identical else "duplicate-ids-mixed"), scenario


# -- tool results ------------------------------------------------------------------------

RESULT_NAMES = (
    "0",
    "1",
    "2",
    "10",
    "4294967294",
    "4294967295",
    "01",
    "-0",
    "-1",
    "+1",
    "1.5",
    "a",
    "b",
    "",
    " ",
    "__proto__",
    "toJSON",
    "length",
    "\u00e9",
    "\ud800",
)
"""Member names at JS's edges: array indices (first in JS property order, ENG-105), the
largest index and the first non-index (2^32 - 2, 2^32 - 1), names that look like
indices but are not, the empty name, ``__proto__``, ``toJSON``, a lone surrogate."""

RESULT_NUMBERS = (0, -0.0, 1, -1, 0.5, 1e-7, 1e21, 2**53, 2**53 + 1, -(2**63), 10**21 + 1)
"""Numbers as JS writes them: -0 as ``0``, exponents from 1e21 and below 1e-6, integers
past 2^53 rounded to the nearest double (ENG-105)."""

RESULT_TEXTS = ("", " ", "a", '"', "\\", "\x00", "\x1f", "\x7f", "\u2028", "\ud800", "\U0001f600")
"""Strings JS escapes (quote, backslash, controls, a lone surrogate) or writes as is."""


@composite
def _result_values(draw: DrawFn, depth: int = 2) -> object:
    """A JSON value of at most ``depth`` levels of arrays and objects."""
    kind = draw(st.integers(0, 5 if depth else 3))
    if kind == 0:
        return draw(st.sampled_from([None, True, False]))
    if kind == 1:
        return draw(st.sampled_from(RESULT_NUMBERS))
    if kind in (2, 3):
        return draw(st.sampled_from(RESULT_TEXTS))
    if kind == 4:
        return draw(st.lists(_result_values(depth - 1), max_size=3))
    names = draw(st.lists(st.sampled_from(RESULT_NAMES), max_size=5, unique=True))
    return {name: draw(_result_values(depth - 1)) for name in names}


@composite
def tool_result_scenarios(draw: DrawFn) -> DrawnScenario:
    """A tool whose body returns a JSON value at JS's edges, called once or a few times:
    the model reads it as JS ``JSON.stringify`` writes it (ENG-105, ENG-156)."""
    result = draw(_result_values())
    count = draw(st.integers(1, MAX_DISPATCHES - 1))
    responses = [
        turn(call("read", draw(st.sampled_from(ARGUMENTS)), f"call_{index}"))
        for index in range(count)
    ]
    responses.append(DONE)
    scenario: EngineScenario = {
        "id": "engine-tool-results",
        "doomLoop": True,
        "tools": [{"name": "read", "result": result}],
        "runs": [{"input": "go", "model": responses}],
    }
    return f"tool-result-{json_kind(result)}", scenario


# -- registry ---------------------------------------------------------------------------


def in_domain(pair: DrawnScenario) -> bool:
    """Whether the reference runs the scenario without leaving the engine level's domain
    (ENG-151); the families draw few such scenarios and drop them."""
    try:
        run_scenario(Scenario.from_json(pair[1]))
    except OutsideDomain:
        return False
    return True


def _within_domain(
    factory: Callable[[], SearchStrategy[DrawnScenario]],
) -> Callable[[], SearchStrategy[DrawnScenario]]:
    return lambda: factory().filter(in_domain)


EngineFamily = Family
"""A generated engine family: the monitor families' record (name, strategy, count, seed,
spec, description), so the regeneration draws both kinds alike; the strategy draws
``(shape, scenario)`` pairs."""


ENGINE_FAMILIES: dict[str, EngineFamily] = {
    f.name: f
    for f in [
        EngineFamily(
            "engine-resume",
            _within_domain(resume_scenarios),
            40,
            20261501,
            (
                "ENG-22",
                "ENG-142",
                "ENG-144",
                "ENG-147",
                "ENG-148",
                "ENG-158",
                "ENG-163",
                "ENG-164",
                "ENG-165",
                "ENG-167",
            ),
            "pauses of every kind, each answered by decisions or outputs",
        ),
        EngineFamily(
            "engine-steer-queues",
            _within_domain(steer_scenarios),
            40,
            20261502,
            ("ENG-63", "ENG-64", "ENG-65", "ENG-66", "ENG-67", "ENG-68", "ENG-171"),
            "several steer messages queued, merged and carried across pauses",
        ),
        EngineFamily(
            "engine-escalation-budget",
            _within_domain(escalation_scenarios),
            40,
            20261503,
            ("ENG-26", "ENG-70", "ENG-71", "ENG-72", "ENG-73", "ENG-75", "ENG-77", "ENG-145"),
            "escalate rungs spending edge budgets through model and advisor overrides",
        ),
        EngineFamily(
            "engine-stop-pending",
            _within_domain(stop_pending_scenarios),
            40,
            20261504,
            ("ENG-87", "ENG-167", "ENG-158", "ENG-119", "ENG-120", "ENG-163"),
            "a stop armed in a round that pauses, then decisions on the condemned run",
        ),
        EngineFamily(
            "engine-malformed-arguments",
            _within_domain(malformed_scenarios),
            40,
            20261505,
            (
                "ENG-37",
                "ENG-38",
                "ENG-40",
                "ENG-45",
                "ENG-104",
                "ENG-137",
                "ENG-140",
                "ENG-153",
                "ENG-154",
            ),
            "argument strings that are not JSON, blank, not objects or at Unicode edges",
        ),
        EngineFamily(
            "engine-duplicate-call-ids",
            _within_domain(duplicate_id_scenarios),
            40,
            20261506,
            ("ENG-41", "ENG-152", "ENG-53", "ENG-54"),
            "one call id used twice in a response and across responses",
        ),
        EngineFamily(
            "engine-tool-results",
            _within_domain(tool_result_scenarios),
            30,
            20261507,
            ("ENG-105", "ENG-156"),
            "tool results at JS's edges: index names, unsafe numbers, escapes, lone surrogates",
        ),
    ]
}


def scenarios(family: str, *, with_shape: bool = False) -> SearchStrategy[Any]:
    """The strategy of one engine family: scenarios, or ``(shape, scenario)`` pairs."""
    strategy: SearchStrategy[DrawnScenario] = ENGINE_FAMILIES[family].strategy()
    return strategy if with_shape else strategy.map(lambda pair: pair[1])
