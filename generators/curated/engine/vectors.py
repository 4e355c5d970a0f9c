"""The curated engine vector files (spec/vectors.md#engine-vectors).

``engine-scenarios``: every entry of the brief's scenario table
(:data:`~.brief.SCENARIOS`) as an engine vector whose
expectation is the reference engine's transcript. The entry's brief facts
were written by hand from the brief, independently of the engine; a vector
is written only when every fact holds on that transcript, which is why the
expectation can be trusted (a fact that fails stops the regeneration).

``engine-statements``: the rules of the brief its table leaves without a
scenario (:data:`~.statements.STATEMENTS`), and
``engine-pins``: behaviours the engine's mutation job found no vector
pinning (:data:`~.pins.PINS`); both as ``engine-scenarios``,
their facts taken from the brief's rules.

``engine-sdk-loop``: what the SDK's real run loop does (engine brief §10,
:data:`~.sdk_loop.SDK_LOOP`), one fact each, taken from the
brief's §10 or the SDK's recorded answers.

``engine-bad-input``: the defined outcomes of bad input (ENG-20 to ENG-23),
one fact per vector; a malformed scenario is expected to be answered with
the error ``bad-scenario`` and its fact names the part the reference's
message must name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from doomloop_kit.engine import Scenario, ScenarioError
from doomloop_kit.vectorset.files import Vector, VectorFile

from ... import build
from .brief import SCENARIOS
from .builders import call, decide, fresh, text, turn
from .example import WORKED_EXAMPLE
from .facts import FactFailure, check_fact
from .pins import PINS
from .sdk_checked import SDK_CHECKED
from .sdk_loop import SDK_LOOP
from .statements import STATEMENTS

SCENARIOS_FAMILY: Final = "engine-scenarios"
BAD_INPUT_FAMILY: Final = "engine-bad-input"
STATEMENTS_FAMILY: Final = "engine-statements"
PINS_FAMILY: Final = "engine-pins"
SDK_LOOP_FAMILY: Final = "engine-sdk-loop"
SDK_CHECKED_FAMILY: Final = "engine-sdk-checked"
EXAMPLE_FAMILY: Final = "engine-example"
BAD_SCENARIO: Final = "bad-scenario"
"""The fact kind of a malformed scenario: ``names`` is a part the error message names."""


def slug(text: str, limit: int = 60) -> str:
    """Lower-case words joined by ``-``, at most ``limit`` characters (a vector id part)."""
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return words[:limit].rstrip("-")


def check_facts(
    vector_id: str, facts: Sequence[Mapping[str, Any]], scenario: Any, expect: Any
) -> None:
    """Raise :class:`~.build.BuildError` unless every fact holds on the expectation."""
    failures = []
    for fact in facts:
        try:
            if fact["kind"] == BAD_SCENARIO:
                _check_rejection(scenario, expect, str(fact["names"]))
            elif "result" not in expect:
                raise FactFailure(f"expected a transcript, the reference answered {expect}")
            else:  # the transcript, with the order it is compared by (ENG-139)
                check_fact({**expect["result"], "order": expect["order"]}, fact)
        except FactFailure as failure:
            failures.append(str(failure))
    if failures:
        raise build.BuildError(
            f"{vector_id}: the reference engine does not show the facts this vector pins: "
            + "; ".join(failures)
        )


def _check_rejection(scenario: Any, expect: Mapping[str, Any], names: str) -> None:
    if expect != {"error": "bad-scenario"}:
        raise FactFailure(f"expected the error bad-scenario, the reference answered {expect}")
    try:
        Scenario.from_json(scenario)
    except ScenarioError as error:
        if names not in str(error):
            raise FactFailure(f"the error {str(error)!r} does not name {names!r}") from None


def engine_vector(
    vector_id: str,
    description: str,
    spec: Sequence[str],
    tags: Sequence[str],
    scenario: Any,
    facts: Sequence[Mapping[str, Any]],
) -> Vector:
    """An engine vector built by the reference, its facts checked (BuildError if one fails)."""
    vector = build.build_engine_vector(vector_id, description, spec, tags, scenario, facts)
    check_facts(vector_id, facts, scenario, vector.steps[0].expect)
    return vector


# -- the brief's scenarios ------------------------------------------------------------


def scenario_vector(entry: Mapping[str, Any], family: str = SCENARIOS_FAMILY) -> Vector:
    """One entry of the brief's table as a vector (``engine-scenarios/i-01-...``); an
    entry pinning one of the brief's rules (``rule``) says so in its description."""
    scenario = cast(Mapping[str, Any], entry["scenario"])
    name = slug(str(scenario["id"]).replace("/", " ") + " " + str(entry["title"]))
    brief = str(entry["brief"])
    origin = entry.get("origin") or (f"brief rule {entry['rule']}," if "rule" in entry else "brief")
    return engine_vector(
        f"{family}/{name}",
        f"{origin} {scenario['id']}: {entry['title']}",
        cast(list[str], entry["spec"]),
        ["rule" if "rule" in entry else "brief", slug(brief)],
        scenario,
        cast(list[Mapping[str, Any]], entry["facts"]),
    )


def scenarios_file() -> VectorFile:
    return VectorFile(
        "curated",
        SCENARIOS_FAMILY,
        "the brief's engine scenarios (58 rows, two with two variants), "
        "expectations from the reference engine, checked against the brief's facts",
        [scenario_vector(entry) for entry in SCENARIOS],
    )


def statements_file() -> VectorFile:
    return VectorFile(
        "curated",
        STATEMENTS_FAMILY,
        "rules of the brief its scenario table leaves without a scenario, "
        "expectations from the reference engine, checked against the rules' facts",
        [scenario_vector(entry, STATEMENTS_FAMILY) for entry in STATEMENTS],
    )


def pins_file() -> VectorFile:
    return VectorFile(
        "curated",
        PINS_FAMILY,
        "behaviours no other engine vector pinned (found by the engine's mutation job), "
        "one fact each, expectations from the reference engine, checked against the fact",
        [scenario_vector(entry, PINS_FAMILY) for entry in PINS],
    )


def sdk_loop_file() -> VectorFile:
    return VectorFile(
        "curated",
        SDK_LOOP_FAMILY,
        "what the SDK's real run loop does (engine brief section 10), one fact each, "
        "expectations from the reference engine, checked against the fact",
        [scenario_vector(entry, SDK_LOOP_FAMILY) for entry in SDK_LOOP],
    )


def sdk_checked_file() -> VectorFile:
    return VectorFile(
        "curated",
        SDK_CHECKED_FAMILY,
        "what the SDK's run loop does where the brief and its recordings were silent, "
        "decided by running the SDK itself (issue 30), one fact each, expectations from "
        "the reference engine, checked against the fact",
        [scenario_vector(entry, SDK_CHECKED_FAMILY) for entry in SDK_CHECKED],
    )


def example_file() -> VectorFile:
    return VectorFile(
        "curated",
        EXAMPLE_FAMILY,
        "the worked example of spec section 15.8, shown and explained there; expectation "
        "from the reference engine, checked against its facts",
        [scenario_vector(WORKED_EXAMPLE, EXAMPLE_FAMILY)],
    )


# -- bad input ------------------------------------------------------------------------

RISKY: Final = {"name": "risky", "kind": "approval"}


def _scenario(name: str, **members: Any) -> dict[str, Any]:
    return {"id": f"bad-input/{name}", "doomLoop": True, **members}


def _end(at: str, value: Any, run: int = 0) -> dict[str, Any]:
    return {"kind": "end", "run": run, "at": at, "equals": value}


def _nested(value: Any, arrays: int) -> Any:
    """``value`` inside ``arrays`` nested arrays."""
    for _ in range(arrays):
        value = [value]
    return value


def _rejected(names: str) -> dict[str, Any]:
    return {"kind": BAD_SCENARIO, "names": names}


BAD_INPUT: Final[list[dict[str, Any]]] = [
    {
        "name": "script-exhausted-mid-run",
        "description": "the scripted model has no response for the follow-up dispatch: "
        "the run ends with error script-exhausted naming dispatch 1",
        "spec": ["ENG-20"],
        "scenario": _scenario(
            "script-exhausted-mid-run",
            tools=[{"name": "read"}],
            runs=[fresh([turn(call("read", {}, "c1"))])],
        ),
        "fact": _end("/error", {"kind": "script-exhausted", "dispatch": 1}),
    },
    {
        "name": "script-empty",
        "description": "a scripted model with no response at all fails dispatch 0",
        "spec": ["ENG-20"],
        "scenario": _scenario("script-empty", runs=[fresh([])]),
        "fact": _end("/error", {"kind": "script-exhausted", "dispatch": 0}),
    },
    {
        "name": "script-exhausted-session-end-error",
        "description": "an exhausted script ends the run with SessionEnd reason error",
        "spec": ["ENG-20"],
        "scenario": _scenario(
            "script-exhausted-session-end-error",
            tools=[{"name": "read"}],
            runs=[fresh([turn(call("read", {}, "c1"))])],
        ),
        "fact": {"kind": "sessionEnd", "run": 0, "equals": ["error"]},
    },
    {
        "name": "failing-tool-output",
        "description": 'a tool body that fails answers its call with {"error": message} '
        "in the next dispatch, and the run goes on",
        "spec": ["ENG-21"],
        "scenario": _scenario(
            "failing-tool-output",
            tools=[{"name": "flaky", "fails": "disk on fire"}],
            runs=[fresh([turn(call("flaky", {}, "c1")), turn(text("ok"))])],
        ),
        "fact": {
            "kind": "request",
            "run": 0,
            "dispatch": 1,
            "at": "/input/-1/output",
            "equals": '{"error":"disk on fire"}',
        },
    },
    {
        "name": "failing-tool-hook",
        "description": "a tool body that fails emits PostToolUseFailure, not PostToolUse",
        "spec": ["ENG-21"],
        "scenario": _scenario(
            "failing-tool-hook",
            tools=[{"name": "flaky", "fails": "disk on fire"}],
            runs=[fresh([turn(call("flaky", {}, "c1")), turn(text("ok"))])],
        ),
        "fact": {"kind": "hooks", "run": 0, "hook": "PostToolUseFailure", "count": 1},
    },
    {
        "name": "approval-unknown-call-id",
        "description": "an approval naming an unknown call id is ignored; "
        "the known approved call runs",
        "spec": ["ENG-22"],
        "scenario": _scenario(
            "approval-unknown-call-id",
            tools=[RISKY],
            runs=[
                fresh([turn(call("risky", {"n": 1}, "r1"))]),
                decide([turn(text("done"))], approve=["nope", "r1"]),
            ],
        ),
        "fact": {"kind": "executions", "run": 1, "tool": "risky", "arguments": [{"n": 1}]},
    },
    {
        "name": "approval-only-unknown-call-id",
        "description": "a decision resume whose only approval names an unknown call id "
        "runs no tool body",
        "spec": ["ENG-22"],
        "scenario": _scenario(
            "approval-only-unknown-call-id",
            tools=[RISKY],
            runs=[
                fresh([turn(call("risky", {"n": 1}, "r1"))]),
                decide([turn(text("done"))], approve=["nope"]),
            ],
        ),
        "fact": {"kind": "executions", "run": 1, "tool": "risky", "count": 0},
    },
    {
        "name": "malformed-unknown-member",
        "description": "a scenario member the format does not define is bad-scenario",
        "spec": ["ENG-23"],
        "scenario": {"id": "bad-input/malformed-unknown-member", "tool": [], "runs": []},
        "fact": _rejected("unknown member"),
    },
    {
        "name": "malformed-unknown-tool-kind",
        "description": "a tool kind other than executable, approval, hitl, manual is bad-scenario",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-unknown-tool-kind", tools=[{"name": "t", "kind": "robot"}], runs=[]
        ),
        "fact": _rejected("tools[0].kind"),
    },
    {
        "name": "malformed-unknown-loop-key-function",
        "description": "a loopKey function form naming no known function is bad-scenario",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-unknown-loop-key-function",
            tools=[{"name": "t", "loopKey": {"function": "guess"}}],
            runs=[],
        ),
        "fact": _rejected("loopKey function"),
    },
    {
        "name": "malformed-item-without-type",
        "description": "a scripted output item without a type is bad-scenario",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-item-without-type", runs=[fresh([{"output": [{"text": "hi"}]}])]
        ),
        "fact": _rejected("runs[0].model[0].output[0].type"),
    },
    {
        "name": "malformed-call-without-call-id",
        "description": "a scripted function_call without a callId is bad-scenario",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-call-without-call-id",
            runs=[fresh([{"output": [{"type": "function_call", "name": "t", "arguments": "{}"}]}])],
        ),
        "fact": _rejected("runs[0].model[0].output[0].callId"),
    },
    {
        "name": "malformed-project-transform-not-a-string",
        "description": "a project loopKey whose transform list holds a list, not a transform "
        "name, is bad-scenario (not a crash of the engine)",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-project-transform-not-a-string",
            tools=[{"name": "t", "loopKey": {"function": "project", "fields": {"q": [["trim"]]}}}],
            runs=[],
        ),
        "fact": _rejected("project"),
    },
    {
        "name": "malformed-duplicate-tool-name",
        "description": "two tools sharing a name is bad-scenario: a call could not tell "
        "which one it names",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-duplicate-tool-name",
            tools=[{"name": "read"}, {"name": "read", "kind": "manual"}],
            runs=[],
        ),
        "fact": _rejected("tools[1].name"),
    },
    {
        "name": "malformed-dispatch-count-boolean",
        "description": "a toolChoiceFromDispatch of true is bad-scenario: true is not a count",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-dispatch-count-boolean",
            request={"toolChoiceFromDispatch": True},
            runs=[],
        ),
        "fact": _rejected("dispatch and step counts"),
    },
    {
        "name": "malformed-loop-key-function-after-known-names",
        "description": "a loopKey function name sorting after the known ones (zzz) is bad-scenario",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-loop-key-function-after-known-names",
            tools=[{"name": "t", "loopKey": {"function": "zzz"}}],
            runs=[],
        ),
        "fact": _rejected("loopKey function"),
    },
    {
        "name": "malformed-loop-key-function-with-fields",
        "description": "an unknown loopKey function name is bad-scenario even with a valid "
        "project-style fields member",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-loop-key-function-with-fields",
            tools=[{"name": "t", "loopKey": {"function": "guess", "fields": {"q": []}}}],
            runs=[],
        ),
        "fact": _rejected("loopKey function"),
    },
    {
        "name": "malformed-output-text-not-a-string",
        "description": "an output_text part whose text is false is bad-scenario: JS String(false) "
        "and Python str(False) differ, so the format admits only strings",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-output-text-not-a-string",
            runs=[
                fresh(
                    [
                        turn(
                            {
                                "type": "message",
                                "role": "assistant",
                                "content": [{"type": "output_text", "text": False}],
                            }
                        )
                    ]
                )
            ],
        ),
        "fact": _rejected("runs[0].model[0].output[0].content[0].text"),
    },
    {
        "name": "malformed-step-count-boolean",
        "description": "stopWhenSteps true is bad-scenario: a boolean is not a step count",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-step-count-boolean", request={"stopWhenSteps": True}, runs=[fresh([])]
        ),
        "fact": _rejected("step counts"),
    },
    {
        "name": "malformed-tool-choice-null",
        "description": "a toolChoice of null is bad-scenario: the SDK's reading of it is not "
        "recorded (ENG-172)",
        "spec": ["ENG-172"],
        "scenario": _scenario(
            "malformed-tool-choice-null", request={"toolChoice": None}, runs=[fresh([])]
        ),
        "fact": _rejected("request.toolChoice"),
    },
    {
        "name": "malformed-tool-choice-not-canonical",
        "description": "a forced toolChoice holding 0 at depth 65 (64 arrays deep in its "
        "member x) has no canonical JSON form (CAN-16): bad-scenario, the SDK's handling "
        "of it is not recorded (ENG-173)",
        "spec": ["ENG-173"],
        "scenario": _scenario(
            "malformed-tool-choice-not-canonical",
            request={"toolChoice": {"type": "function", "name": "read", "x": _nested(0, 64)}},
            runs=[fresh([])],
        ),
        "fact": _rejected("request.toolChoice"),
    },
    {
        "name": "malformed-step-count-fraction",
        "description": "stopWhenSteps 2.5 is bad-scenario: a step count is an integer",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-step-count-fraction", request={"stopWhenSteps": 2.5}, runs=[fresh([])]
        ),
        "fact": _rejected("step counts"),
    },
    {
        "name": "step-count-written-with-a-fraction-part",
        "description": "stopWhenSteps 0.0 is the step count 0, as JS reads it: the run takes "
        "the stopWhen path and its HITL pause ends it with max_turns",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "step-count-written-with-a-fraction-part",
            tools=[{"name": "read"}, {"name": "confirm", "kind": "hitl"}],
            request={"stopWhenSteps": 0.0},
            runs=[fresh([turn(call("read", {}, "c1"), call("confirm", {}, "h1"))])],
        ),
        "fact": {"kind": "sessionEnd", "equals": ["max_turns"]},
    },
    {
        "name": "malformed-project-transform-unknown",
        "description": "a project loop key with a transform other than trim and lower is "
        "bad-scenario",
        "spec": ["ENG-23"],
        "scenario": _scenario(
            "malformed-project-transform-unknown",
            tools=[{"name": "t", "loopKey": {"function": "project", "fields": {"q": ["upper"]}}}],
            runs=[fresh([])],
        ),
        "fact": _rejected("project"),
    },
    {
        "name": "malformed-run-neither-fresh-nor-decision",
        "description": "a run with neither input (fresh turn) nor decisions is bad-scenario",
        "spec": ["ENG-23"],
        "scenario": _scenario("malformed-run-neither-fresh-nor-decision", runs=[{"model": []}]),
        "fact": _rejected("runs[0]"),
    },
    {
        "name": "malformed-message-content-not-a-list",
        "description": "a message item whose content is a string is bad-scenario: the SDK "
        "reads the content of a response's first message as a list and throws",
        "spec": ["ENG-177"],
        "scenario": _scenario(
            "malformed-message-content-not-a-list",
            runs=[fresh([turn({"type": "message", "role": "assistant", "content": "hi"})])],
        ),
        "fact": _rejected("runs[0].model[0].output[0].content"),
    },
    {
        "name": "malformed-message-part-not-an-object",
        "description": "a message part that is a number is bad-scenario: the SDK looks for "
        "a type member in every part of a response's first message and throws",
        "spec": ["ENG-177"],
        "scenario": _scenario(
            "malformed-message-part-not-an-object",
            runs=[
                fresh(
                    [
                        turn(
                            {
                                "type": "message",
                                "role": "assistant",
                                "content": [5, {"type": "output_text", "text": "z"}],
                            }
                        )
                    ]
                )
            ],
        ),
        "fact": _rejected("runs[0].model[0].output[0].content[0]"),
    },
    {
        "name": "run-without-a-model",
        "description": "a fresh turn without a model member has no scripted response: its "
        "first dispatch fails with script-exhausted",
        "spec": ["ENG-20", "ENG-141"],
        "scenario": _scenario("run-without-a-model", runs=[{"input": "go"}]),
        "fact": _end("/error", {"kind": "script-exhausted", "dispatch": 0}),
    },
]
"""The bad-input cases: one fact each (``fact``), the statement it pins (``spec``)."""


def bad_input_file() -> VectorFile:
    return VectorFile(
        "curated",
        BAD_INPUT_FAMILY,
        "bad input to the engine (ENG-20 to ENG-23): exhausted scripts, failing tools, "
        "decisions naming unknown calls, malformed scenarios",
        [
            engine_vector(
                f"{BAD_INPUT_FAMILY}/{case['name']}",
                case["description"],
                case["spec"],
                ["bad-input"],
                case["scenario"],
                [case["fact"]],
            )
            for case in BAD_INPUT
        ],
    )


def engine_files() -> list[VectorFile]:
    """The curated engine files, in manifest order."""
    return [
        scenarios_file(),
        bad_input_file(),
        statements_file(),
        *([pins_file()] if PINS else []),
        sdk_loop_file(),
        sdk_checked_file(),
        example_file(),
    ]
