"""The engine level's formats, spec/schema/engine/ (ENG-180..ENG-192), against real documents.

Every engine vector's scenario validates against scenario.schema.json and
every expected transcript against transcript.schema.json; the scenarios of
``engine-bad-input`` that expect ``bad-scenario`` are refused, but for the
two faults the schema cannot state (ENG-23, ENG-173). The answers of the
three engines over every engine vector validate, and so do the SDK's: its
recorded answers (the corpus) and, when ``../shared/sdk`` exists, its live
run loop. Hand-broken documents are refused at the member at fault, so each
schema can fail.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import shlex
import subprocess
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jsonschema
import pytest
from doomloop_kit.conformance import sdk_replay
from doomloop_kit.vectorset.files import iter_vector_files
from harnesses import servers, support
from harnesses.protocol_schema import ENGINE_SCHEMAS, engine_validator, validator

SCENARIO = engine_validator("scenario")
TRANSCRIPT = engine_validator("transcript")
SHARED = support.REPO.parent / "shared"
SDK_HARNESS = SHARED / "sdk" / "sdk-engine-harness.mjs"
ENGINE_CORPUS = SHARED / "upstream" / "sdk-engine-0.9.0-corpus.jsonl.gz"

BEYOND_THE_SCHEMA = {
    "engine-bad-input/malformed-duplicate-tool-name",  # unique names across items (ENG-23)
    "engine-bad-input/malformed-tool-choice-not-canonical",  # CAN-16's depth (ENG-173)
}
"""Malformed scenarios whose fault JSON Schema cannot express; ENG-180 states them in words."""

Engine = tuple[str, dict[str, Any], dict[str, Any]]
"""A vector's id, its scenario and its ``expect``."""


@functools.cache
def engine_vectors() -> tuple[Engine, ...]:
    """Every committed engine vector (read as JSON: the vector format is checked elsewhere)."""
    return tuple(
        (vector["id"], vector["scenario"], vector["expect"])
        for path in iter_vector_files(support.REPO / "vectors")
        if path.name.startswith("engine-")
        for vector in json.loads(path.read_text(encoding="utf-8"))["vectors"]
    )


_VALID: set[tuple[int, str]] = set()
"""(validator, document) pairs found valid: the engines mostly agree with the expected
transcripts, so each distinct document is validated once."""


def _failures(check: jsonschema.Draft202012Validator, documents: Iterable[Any]) -> list[str]:
    """Each invalid document's best error, as ``name at /path: message``."""
    wrong = []
    for name, document in documents:
        key = (id(check), json.dumps(document, sort_keys=True))
        if key in _VALID:
            continue
        error = jsonschema.exceptions.best_match(check.iter_errors(document))
        if error is None:
            _VALID.add(key)
        else:
            wrong.append(f"{name} at /{'/'.join(map(str, error.absolute_path))}: {error.message}")
    return wrong


def test_the_engine_schemas_are_valid_2020_12_and_the_protocol_uses_them() -> None:
    paths = sorted(ENGINE_SCHEMAS.glob("*.schema.json"))
    assert [path.name for path in paths] == ["scenario.schema.json", "transcript.schema.json"]
    for path in paths:
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(document)
    result = validator("engine.schema.json#/$defs/runScenarioResult")
    with pytest.raises(jsonschema.ValidationError, match="dead-rung-typo"):
        transcript = copy.deepcopy(_expected(lambda run: run["config"] is not None))
        transcript["runs"][0]["configWarnings"] = ["dead-rung-typo"]
        result.validate(transcript)


# -- the vectors ------------------------------------------------------------------------


def test_every_well_formed_scenario_and_expected_transcript_validates() -> None:
    vectors = [(id_, scenario, expect) for id_, scenario, expect in engine_vectors()]
    with_transcript = [v for v in vectors if "result" in v[2]]
    assert len(with_transcript) > 400
    assert _failures(SCENARIO, ((id_, s) for id_, s, _ in with_transcript)) == []
    assert _failures(TRANSCRIPT, ((id_, e["result"]) for id_, _, e in with_transcript)) == []


def test_every_malformed_scenario_is_refused_but_the_two_beyond_json_schema() -> None:
    malformed = {id_: s for id_, s, e in engine_vectors() if e == {"error": "bad-scenario"}}
    assert set(malformed) >= BEYOND_THE_SCHEMA
    accepted = {id_ for id_, scenario in malformed.items() if SCENARIO.is_valid(scenario)}
    assert accepted == BEYOND_THE_SCHEMA


# -- the engines' answers ---------------------------------------------------------------


def _answers(command: str) -> Iterator[tuple[str, Any]]:
    """The harness's result to every engine vector's scenario, one process for all."""
    vectors = engine_vectors()
    lines = [json.dumps({"id": 0, "op": "hello", "protocol": 1})]
    lines += [
        json.dumps({"id": n, "op": "runScenario", "scenario": scenario})
        for n, (_, scenario, _) in enumerate(vectors, 1)
    ]
    done = subprocess.run(
        shlex.split(command),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
        cwd=support.REPO,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.split("\n") if line]
    assert len(answers) == len(vectors) + 1
    for answer in answers[1:]:
        id_, _, expect = vectors[answer["id"] - 1]
        if "result" in expect:  # a transcript is expected: the answer must be one
            assert "result" in answer, (id_, answer.get("error"))
            yield id_, answer["result"]


@pytest.mark.parametrize("engine", sorted(servers.SERVERS))
def test_every_answer_of_the_engine_validates(engine: str) -> None:
    assert servers.GO_HARNESS.is_file() and servers.TS_HARNESS.is_file(), "run make ports"
    assert _failures(TRANSCRIPT, _answers(servers.SERVERS[engine])) == []


@pytest.mark.skipif(
    not SDK_HARNESS.is_file(), reason=f"the SDK's run loop is not here ({SDK_HARNESS})"
)
def test_every_answer_of_the_sdk_run_loop_validates() -> None:
    command = f"node {shlex.quote(str(SDK_HARNESS))}"
    assert _failures(TRANSCRIPT, _answers(command)) == []


CORPUS_STRIDE = 16
"""Every 16th line of the recorded corpus is validated: all 3,359 lines take 40 s here, too
long for the suite (all of them validated, scenario and transcript, with CORPUS_STRIDE = 1
when the schemas were written)."""


@pytest.mark.skipif(not ENGINE_CORPUS.is_file(), reason=f"no recorded corpus ({ENGINE_CORPUS})")
def test_the_sdk_recorded_scenarios_and_answers_validate() -> None:
    """Recorded answers of the SDK's loop (mostly the seeded random scenarios), their
    errors given their ENG-141 kinds (the recording harness wrote every thrown error as
    sdk-error)."""
    scenarios, transcripts = [], []
    with gzip.open(ENGINE_CORPUS, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if number % CORPUS_STRIDE:
                continue
            record = json.loads(line)
            scenarios.append((number, record["request"]["scenario"]))
            if "result" in record["sdk"]:
                transcripts.append((number, sdk_replay.sdk_transcript(record["sdk"]["result"])))
    assert len(scenarios) == len(transcripts) == 3359 // CORPUS_STRIDE
    assert _failures(SCENARIO, scenarios) == []
    assert _failures(TRANSCRIPT, transcripts) == []


# -- the schemas can fail ---------------------------------------------------------------

Mutation = Callable[[Any], object]
"""Breaks a document in place."""


def _step(document: Any, step: str) -> Any:
    return document[int(step)] if isinstance(document, list) else document[step]


def _put(path: str, value: object) -> Mutation:
    """Set the member at ``path`` (steps joined by ``/``, list indices as numbers)."""
    *parents, last = path.split("/")

    def mutate(document: Any) -> None:
        for step in parents:
            document = _step(document, step)
        if isinstance(document, list):
            document[int(last)] = value
        else:
            document[last] = value

    return mutate


def _drop(path: str) -> Mutation:
    """Remove the member at ``path``."""
    *parents, last = path.split("/")

    def mutate(document: Any) -> None:
        for step in parents:
            document = _step(document, step)
        document.pop(last)

    return mutate


def _scenario() -> dict[str, Any]:
    """A well-formed scenario touching every part of the format."""
    call = {"type": "function_call", "name": "read", "arguments": "{}", "callId": "c1"}
    text = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "x"}],
    }
    server = {"type": "web_search_call", "action": {"query": "q"}}
    return {
        "id": "mutable",
        "doomLoop": True,
        "tools": [
            {"name": "read", "loopKey": {"function": "project", "fields": {"q": ["trim"]}}},
            {"name": "risky", "kind": "approval", "fails": "broken"},
        ],
        "hooks": [{"tool": "read", "when": {"action": "block"}, "returns": {}}],
        "request": {"toolChoice": "required", "toolChoiceFromDispatch": 1, "stopWhenSteps": 2},
        "runs": [{"input": "go", "model": [{"output": [call, text, server]}]}, {"approve": ["r1"]}],
    }


ITEMS = "runs/0/model/0/output"
KEY = "tools/0/loopKey"
BROKEN_SCENARIOS: list[tuple[str, Mutation, str]] = [
    ("message content a string", _put(f"{ITEMS}/1/content", "x"), "content"),
    ("message content of strings", _put(f"{ITEMS}/1/content", ["x"]), "content"),
    ("message without content", _drop(f"{ITEMS}/1/content"), "output/1"),
    ("output_text not a string", _put(f"{ITEMS}/1/content/0/text", 0), "text"),
    ("call without callId", _drop(f"{ITEMS}/0/callId"), "output/0"),
    ("item without type", _drop(f"{ITEMS}/2/type"), "output/2"),
    ("response without output", _drop("runs/0/model/0/output"), "model/0"),
    ("unknown transform", _put(f"{KEY}/fields", {"q": ["upper"]}), "fields"),
    ("transform list nested", _put(f"{KEY}/fields", {"q": [["trim"]]}), "fields"),
    ("unknown function", _put(f"{KEY}/function", "guess"), "function"),
    ("returns with a stray member", _put(KEY, {"function": "returns", "v": 1}), "loopKey"),
    ("throws with a number", _put(KEY, {"function": "throws", "message": 5}), "message"),
    ("unknown tool kind", _put("tools/1/kind", "robot"), "kind"),
    ("fails not a string", _put("tools/1/fails", True), "fails"),
    ("handler tool null", _put("hooks/0/tool", None), "tool"),
    ("when not an object", _put("hooks/0/when", []), "when"),
    ("step count a fraction", _put("request/stopWhenSteps", 2.5), "stopWhenSteps"),
    ("dispatch count a boolean", _put("request/toolChoiceFromDispatch", True), "FromDispatch"),
    ("tool choice null", _put("request/toolChoice", None), "toolChoice"),
    ("model not a string", _put("request/model", 1), "model"),
    ("input null", _put("runs/0/input", None), "runs/0"),
    ("input item not an object", _put("runs/0/input", ["go"]), "input"),
    ("neither fresh nor decision", _put("runs/1/approve", []), "runs/1"),
    ("unknown member", _put("tool", []), ""),
    ("no id", _drop("id"), ""),
    ("initial state not an object", _put("initialState", []), "initialState"),
]


def _refused_at(check: jsonschema.Draft202012Validator, document: object, where: str) -> bool:
    """Whether the document is refused, by an error at or under a path holding ``where``."""
    paths = ["/".join(map(str, error.absolute_path)) for error in _all(check.iter_errors(document))]
    return any(where in path for path in paths) if where else bool(paths)


def _all(errors: Iterable[jsonschema.ValidationError]) -> Iterator[jsonschema.ValidationError]:
    """The errors and, under anyOf or oneOf, the errors of each branch."""
    for error in errors:
        yield error
        yield from _all(error.context or [])


def test_the_mutable_scenario_is_valid() -> None:
    SCENARIO.validate(_scenario())


@pytest.mark.parametrize(
    ("name", "mutate", "where"), BROKEN_SCENARIOS, ids=[m[0] for m in BROKEN_SCENARIOS]
)
def test_the_scenario_schema_refuses(name: str, mutate: Mutation, where: str) -> None:
    scenario = _scenario()
    mutate(scenario)
    assert _refused_at(SCENARIO, scenario, where), name


Run = dict[str, Any]


def _expected(wanted: Callable[[Run], bool]) -> dict[str, Any]:
    """The first expected transcript one of whose runs is ``wanted``, reduced to that run."""
    for _, _, expect in engine_vectors():
        for run in expect.get("result", {}).get("runs", []):
            if wanted(run):
                return {"scenario": "x", "runs": [copy.deepcopy(run)]}
    raise AssertionError("no expected transcript has such a run")


def _event(run: Run, hook: str, detector: str | None = None) -> int:
    """The index of the run's first event of that hook (and detector), or -1."""
    for index, event in enumerate(run["events"]):
        if event["hook"] == hook and detector in (None, event["payload"].get("detector")):
            return index
    return -1


def _with(hook: str, detector: str | None = None) -> Callable[[Run], bool]:
    return lambda run: _event(run, hook, detector) >= 0


def _at_event(hook: str, member: str, mutate: Callable[[str], Mutation]) -> Mutation:
    """A mutation of ``member`` ("payload/x" or "appliedAction") of the first such event."""
    return lambda run: mutate(f"events/{_event(run, hook)}/{member}")(run)


def _unsent_error(run: Run) -> int:
    """The index of the first unsent result with an error, or -1."""
    results = (run["state"] or {}).get("unsentToolResults", [])
    return next((i for i, result in enumerate(results) if "error" in result), -1)


def _error_kind(run: Run) -> object:
    return run["end"].get("error", {}).get("kind")


BROKEN_TRANSCRIPTS: list[tuple[str, Callable[[Run], bool], Mutation, str]] = [
    ("warning texts, not codes", lambda run: bool(run["configWarnings"]),
     _put("configWarnings/0", "[DoomLoop] ladder.observe is shadowed"), "configWarnings/0"),
    ("tools left in empty", lambda run: bool(run["dispatches"]),
     _put("dispatches/0/request/tools", []), "tools"),
    ("an unknown dispatch kind", lambda run: bool(run["dispatches"]),
     _put("dispatches/0/kind", "drain"), "kind"),
    ("a response id of another form", lambda run: bool(run["dispatches"]),
     _put("dispatches/0/responseId", "r1"), "responseId"),
    ("tool hooks carrying arguments", _with("PreToolUse"),
     _at_event("PreToolUse", "payload/toolInput", lambda p: _put(p, {})), "events"),
    ("a SessionStart payload", _with("SessionStart"),
     _at_event("SessionStart", "payload/reason", lambda p: _put(p, "x")), "events"),
    ("a failure without its error", _with("PostToolUseFailure"),
     _at_event("PostToolUseFailure", "payload/error", _drop), "events"),
    ("a Stop reason", _with("Stop"),
     _at_event("Stop", "payload/reason", lambda p: _put(p, "doom_loop")), "events"),
    ("no applied action", _with("DoomLoopDetected"),
     _at_event("DoomLoopDetected", "appliedAction", _drop), "events"),
    ("an applied action on a tool hook", _with("PreToolUse"),
     _at_event("PreToolUse", "appliedAction", lambda p: _put(p, "observe")), "events"),
    ("a text verdict naming a tool", _with("DoomLoopDetected", "text-streak"),
     lambda run: _put(
         f"events/{_event(run, 'DoomLoopDetected', 'text-streak')}/payload/toolName", "read"
     )(run), "events"),
    ("a zero invocation count", lambda run: bool(run["loopKeyInvocations"]),
     lambda run: _put(f"loopKeyInvocations/{next(iter(run['loopKeyInvocations']))}", 0)(run),
     "loopKeyInvocations"),
    ("an unsent error with an output", lambda run: _unsent_error(run) >= 0,
     lambda run: _put(f"state/unsentToolResults/{_unsent_error(run)}/output", {})(run),
     "unsentToolResults"),
    ("no pending calls, yet the member", lambda run: "pendingToolCalls" in (run["state"] or {}),
     _put("state/pendingToolCalls", []), "pendingToolCalls"),
    ("an error kind of the recording harness", lambda run: "error" in run["end"],
     _put("end/error/kind", "sdk-error"), "kind"),
    ("script-exhausted without its dispatch",
     lambda run: _error_kind(run) == "script-exhausted", _drop("end/error/dispatch"), "end"),
    ("a failed run with a final response", lambda run: "error" in run["end"],
     _put("end/finalResponseId", "resp_1"), "end"),
    ("a final response without its text", lambda run: run["end"]["finalResponseId"] is not None,
     _put("end/finalText", None), "end"),
    ("a round counted with detection off",
     lambda run: run["config"] is None and bool(run["executions"]),
     _put("executions/0/round", 1), "round"),
    ("a stray run member", lambda run: True, _put("order", []), ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "wanted", "mutate", "where"),
    BROKEN_TRANSCRIPTS,
    ids=[m[0] for m in BROKEN_TRANSCRIPTS],
)
def test_the_transcript_schema_refuses(
    name: str, wanted: Callable[[Run], bool], mutate: Mutation, where: str
) -> None:
    transcript = _expected(wanted)
    TRANSCRIPT.validate(transcript)  # the unbroken run is valid
    mutate(transcript["runs"][0])
    assert _refused_at(TRANSCRIPT, transcript, where), name
