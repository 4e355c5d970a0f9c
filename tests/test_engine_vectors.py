"""Engine vectors (spec/vectors.md#engine-vectors): format, facts, judging, running.

The committed curated engine files must validate and carry the facts they
pin; those facts (written by hand from the brief, generators/curated/engine)
must hold on the stored expectations; the regeneration must refuse an entry
whose facts fail; the runner must judge a transcript run by run, compare
``warnings`` by length only, round-trip ``bad-scenario`` and skip engine
vectors for a harness without the feature ``engine``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.engine import run_scenario
from doomloop_kit.generators import build
from doomloop_kit.generators.curated.engine.brief import SCENARIOS
from doomloop_kit.generators.curated.engine.facts import check_fact
from doomloop_kit.generators.curated.engine.vectors import (
    BAD_INPUT,
    _rejected,
    engine_vector,
    scenario_vector,
)
from doomloop_kit.vectorset.files import (
    Vector,
    VectorFormatError,
    load_vector_file,
    validate_vector_file_data,
)
from doomloop_kit.vectorset.transcripts import REQUIRED_WARNING, compare_transcripts
from harnesses import support

CURATED = support.REPO / "vectors" / "curated"
SCENARIOS_FILE = CURATED / "engine-scenarios.json"
BAD_INPUT_FILE = CURATED / "engine-bad-input.json"


def _file(name: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(name.read_text(encoding="utf-8"))
    return data


# -- the committed files ------------------------------------------------------------


def test_curated_engine_files_hold_every_brief_entry_and_bad_input_case() -> None:
    scenarios = load_vector_file(SCENARIOS_FILE)
    bad_input = load_vector_file(BAD_INPUT_FILE)
    assert len(scenarios.vectors) == len(SCENARIOS) == 60
    assert len(bad_input.vectors) == len(BAD_INPUT)
    for vector in [*scenarios.vectors, *bad_input.vectors]:
        assert vector.is_engine and vector.features == ["engine"], vector.id
        assert vector.facts and vector.spec, vector.id
    stored = [(v.steps[0].inputs["scenario"], list(v.facts)) for v in scenarios.vectors]
    assert stored == [(entry["scenario"], entry["facts"]) for entry in SCENARIOS]


def test_bad_input_covers_eng_20_to_23_one_fact_each() -> None:
    vectors = load_vector_file(BAD_INPUT_FILE).vectors
    assert {statement for v in vectors for statement in v.spec} == {
        "ENG-20",
        "ENG-21",
        "ENG-22",
        "ENG-23",
        "ENG-141",
        "ENG-172",
        "ENG-173",
        "ENG-177",
    }
    assert all(len(v.facts) == 1 for v in vectors)
    rejected = [v for v in vectors if v.steps[0].expect == {"error": "bad-scenario"}]
    assert {v.id.split("/")[1] for v in rejected} == {
        "malformed-unknown-member",
        "malformed-unknown-tool-kind",
        "malformed-unknown-loop-key-function",
        "malformed-item-without-type",
        "malformed-call-without-call-id",
        "malformed-duplicate-tool-name",
        "malformed-dispatch-count-boolean",
        "malformed-loop-key-function-after-known-names",
        "malformed-loop-key-function-with-fields",
        "malformed-project-transform-not-a-string",
        "malformed-project-transform-unknown",
        "malformed-output-text-not-a-string",
        "malformed-step-count-boolean",
        "malformed-step-count-fraction",
        "malformed-run-neither-fresh-nor-decision",
        "malformed-tool-choice-null",
        "malformed-tool-choice-not-canonical",
        "malformed-message-content-not-a-list",
        "malformed-message-part-not-an-object",
    }


def test_brief_facts_hold_on_the_stored_expectations() -> None:
    """The facts are independent of the engine; the stored transcripts must show them."""
    for vector in load_vector_file(SCENARIOS_FILE).vectors:
        for fact in vector.facts:
            check_fact(vector.steps[0].expected_result, fact)


def test_vectors_round_trip_through_the_model() -> None:
    data = _file(BAD_INPUT_FILE)
    for raw in data["vectors"]:
        assert Vector.from_json(raw).to_json() == raw


# -- the schema and the rules beside it ---------------------------------------------------

MUTATIONS: list[tuple[str, Callable[[dict[str, Any]], object], str]] = [
    ("no expect", lambda v: v.pop("expect"), "$.vectors[0]"),
    ("no engine feature", lambda v: v.__setitem__("features", []), "$.vectors[0].features"),
    ("another error", lambda v: v.__setitem__("expect", {"error": "bad-request"}), "expect"),
    ("steps too", lambda v: v.__setitem__("steps", []), "$.vectors[0]"),
    ("a run lacks end", lambda v: v["expect"]["result"]["runs"][0].pop("end"), "runs[0]"),
    ("no facts", lambda v: v.pop("facts"), "cites the facts"),
    ("scenario not an object", lambda v: v.__setitem__("scenario", []), "scenario"),
]


@pytest.mark.parametrize(("name", "mutate", "where"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_schema_rejects_a_broken_engine_vector(
    name: str, mutate: Callable[[dict[str, Any]], object], where: str
) -> None:
    data = _file(BAD_INPUT_FILE)
    data["vectors"] = [copy.deepcopy(data["vectors"][0])]
    validate_vector_file_data(data)  # the unbroken vector is valid
    mutate(data["vectors"][0])
    with pytest.raises(VectorFormatError, match=r".*") as error:
        validate_vector_file_data(data)
    assert where in str(error.value), (name, str(error.value))


def test_a_monitor_vector_cannot_claim_the_engine_feature() -> None:
    data = {
        "format": 1, "kind": "curated", "family": "f", "description": "d",
        "vectors": [{"id": "f/a", "description": "x", "spec": ["CAN-01"], "tags": [],
                     "features": ["engine"],
                     "steps": [{"op": "canonicalize", "value": 1, "expect": {"result": "1"}}]}],
    }  # fmt: skip
    with pytest.raises(VectorFormatError, match=r"\$\.vectors\[0\]\.features"):
        validate_vector_file_data(data)


# -- the regeneration refuses what it cannot trust ---------------------------------------------


def test_a_brief_fact_that_fails_stops_the_regeneration() -> None:
    entry: dict[str, Any] = copy.deepcopy(SCENARIOS[0])
    entry["facts"].append({"kind": "dispatches", "run": 0, "count": 99})
    with pytest.raises(build.BuildError, match=r"engine-scenarios/i-01-.*count.*99"):
        scenario_vector(entry)


def test_a_rejection_fact_must_match_the_reference_message() -> None:
    case = next(c for c in BAD_INPUT if c["name"] == "malformed-unknown-tool-kind")
    with pytest.raises(build.BuildError, match="does not name 'tools\\[7\\]'"):
        engine_vector(
            "engine-bad-input/x",
            "d",
            ["ENG-23"],
            [],
            case["scenario"],
            [_rejected("tools[7]")],
        )
    with pytest.raises(build.BuildError, match="expected the error bad-scenario"):
        engine_vector(
            "engine-bad-input/y", "d", ["ENG-23"], [], {"id": "fine", "runs": []},
            [_rejected("runs")],
        )  # fmt: skip


# -- judging a transcript ---------------------------------------------------------------------


def _transcript() -> dict[str, Any]:
    entry = next(e for e in SCENARIOS if e["brief"] == "I-14")  # has warnings, several dispatches
    scenario = entry["scenario"]
    assert isinstance(scenario, dict)
    return run_scenario(scenario).to_json()


def test_warnings_count_is_free_but_the_fallback_text_is_required() -> None:
    """ENG-108, ENG-168: the number and the other texts of warnings are not compared; each
    loop-key fallback warning of the expected run must be among the actual ones."""
    expected = _transcript()
    required = [w for w in expected["runs"][0]["warnings"] if w.startswith(REQUIRED_WARNING)]
    assert required
    actual = copy.deepcopy(expected)
    actual["runs"][0]["warnings"] = [*required, *required, "some other warning"]
    assert compare_transcripts(expected, actual) == []
    actual["runs"][0]["warnings"] = [f"{text} (reworded)" for text in required]
    (difference,) = compare_transcripts(expected, actual)
    assert difference.path == "run 0, /warnings"
    assert "required warning" in difference.reason


def test_the_first_difference_is_the_earliest_dispatch() -> None:
    expected = _transcript()
    actual = copy.deepcopy(expected)
    run = actual["runs"][0]
    assert len(run["dispatches"]) >= 2
    run["end"]["reason"] = "other"
    run["events"][0]["hook"] = "Other"
    run["dispatches"][1]["request"]["input"][0]["content"] = "changed"
    run["dispatches"][0]["responseId"] = "resp_x"
    paths = [d.path for d in compare_transcripts(expected, actual)]
    assert paths == [
        "run 0, dispatch 0, /responseId",
        "run 0, dispatch 1, /request/input/0/content",
        "run 0, /events/0/hook",
        "run 0, /end/reason",
    ]


def test_a_missing_dispatch_and_a_missing_run_are_counted() -> None:
    expected = _transcript()
    actual = copy.deepcopy(expected)
    actual["runs"][0]["dispatches"].pop()
    assert compare_transcripts(expected, actual)[0].path == "run 0, /dispatches"
    assert compare_transcripts(expected, {**expected, "runs": []})[0].path == "/runs"


# -- running engine vectors through a harness ----------------------------------------------------


def test_engine_families_run_and_pass_on_the_reference(tmp_path: Path) -> None:
    status, lines = support.run(
        ["--family", "engine-*", "--port", support.REFERENCE], tmp_path / "report.jsonl"
    )
    assert status == 0
    vectors = [line for line in lines if line["type"] == "vector"]
    assert vectors and all(line["id"].startswith("engine-") for line in vectors)
    assert {line["status"] for line in vectors} == {"passed"}
    assert lines[-1]["totals"]["passed"] == len(vectors) >= 73


def test_engine_vectors_are_skipped_without_the_feature(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULT_FEATURES", "undefined")
    status, lines = support.run(
        [str(BAD_INPUT_FILE), "--port", support.fault("none")], tmp_path / "report.jsonl"
    )
    assert status == 2  # every selected vector skipped: nothing was checked (issue 34)
    skipped = support.by_status(lines, "skipped")
    assert len(skipped) == len(BAD_INPUT)
    assert all(line["missingFeatures"] == ["engine"] for line in skipped)
    assert lines[-1]["missingFeatures"] == {"engine": len(BAD_INPUT)}


def _loose_file(tmp_path: Path, vector: dict[str, Any]) -> Path:
    data = {"format": 1, "kind": "curated", "family": "engine-bad-input", "description": "d"}
    path = tmp_path / "engine-bad-input.json"
    path.write_text(json.dumps({**data, "vectors": [vector]}), encoding="utf-8")
    return path


def test_bad_scenario_round_trips_and_is_judged(tmp_path: Path) -> None:
    """A malformed scenario passes when bad-scenario is expected; a result fails it, and a
    bad-scenario answer fails a vector that expects a transcript."""
    vectors = _file(BAD_INPUT_FILE)["vectors"]
    rejected = next(v for v in vectors if v["expect"] == {"error": "bad-scenario"})
    answered = next(v for v in vectors if "result" in v["expect"])
    cases = [
        (rejected, 0, None),
        ({**answered, "expect": {"error": "bad-scenario"}}, 1, "expected error bad-scenario"),
        (
            {**rejected, "expect": answered["expect"]},
            1,
            "expected a result, got error bad-scenario",
        ),
    ]
    for index, (vector, want, reason) in enumerate(cases):
        status, lines = support.run(
            [str(_loose_file(tmp_path, vector)), "--port", support.REFERENCE],
            tmp_path / f"report-{index}.jsonl",
        )
        assert status == want, (index, lines)
        if reason is not None:
            (failed,) = support.by_status(lines, "failed")
            assert failed["failure"]["reason"].startswith(reason)


def test_run_scenario_answers_the_transcript_as_json_stringify_writes_it() -> None:
    """PROT-31, ENG-105: plain JSON on the wire; -0 is 0 and a non-finite number is null."""
    import math

    from doomloop_kit.generators.curated.engine.builders import call, fresh, text, turn
    from doomloop_kit.vectorset import oracle

    scenario = {
        "id": "numbers",
        "doomLoop": True,
        "tools": [{"name": "read"}],
        "runs": [fresh([turn(call("read", '{"n":-0.0,"m":1e999}', "c1")), turn(text("ok"))])],
    }
    raw = run_scenario(scenario).to_json()["runs"][0]["executions"][0]["arguments"]  # type: ignore[index]
    assert raw["m"] is None and math.copysign(1, raw["n"]) < 0  # the engine's own record keeps -0
    answer: Any = oracle.FUNCTION_OPS["runScenario"]({"scenario": scenario})
    arguments = answer["runs"][0]["executions"][0]["arguments"]
    assert arguments == {"n": 0, "m": None} and math.copysign(1, arguments["n"]) > 0
    json.dumps(answer, allow_nan=False)  # plain JSON throughout


# -- a malformed order is a malformed file -------------------------------------------------------


def _first_batched_vector() -> dict[str, Any]:
    """The first curated scenario vector with a concurrent batch, in a file of its own."""
    data = _file(SCENARIOS_FILE)
    vector = next(
        v
        for v in data["vectors"]
        if any(slot for run in v["expect"]["order"] for slot in run["events"])
    )
    return {**data, "vectors": [vector]}


def _reverse_batches(order: dict[str, Any]) -> None:
    order["executions"].reverse()  # [1, 1, 1, 2, 2, 2] -> batch 2 before batch 1


ORDER_MUTATIONS: list[tuple[str, Callable[[list[dict[str, Any]]], object], str]] = [
    ("a run without its order", lambda order: order.pop(), "0 order objects for 1 runs"),
    ("a slot dropped", lambda order: order[0]["events"].pop(), "events slots for"),
    ("an execution slot added", lambda order: order[0]["executions"].append(None), "executions"),
    ("batches out of order", lambda order: _reverse_batches(order[0]), "out of order"),
]


@pytest.mark.parametrize(
    ("name", "mutate", "reason"), ORDER_MUTATIONS, ids=[m[0] for m in ORDER_MUTATIONS]
)
def test_a_malformed_engine_order_is_a_malformed_file(
    name: str, mutate: Callable[[list[dict[str, Any]]], object], reason: str
) -> None:
    """spec/vectors.md#expect: one order object per run, one slot per event and execution,
    each batch's slots side by side."""
    data = _first_batched_vector()
    validate_vector_file_data(data)
    mutate(data["vectors"][0]["expect"]["order"])
    with pytest.raises(VectorFormatError) as error:
        validate_vector_file_data(data)
    assert error.value.json_path == "$.vectors[0].expect.order"
    assert data["vectors"][0]["id"] in str(error.value) and reason in str(error.value), name


def test_a_run_with_a_malformed_order_stops_at_load_even_when_the_answer_is_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The harness's answer is byte-identical to the expectation, so nothing in the judging
    looks at the order: the loader must refuse it, with the malformed-file exit status."""
    data = _first_batched_vector()
    data["vectors"][0]["expect"]["order"][0]["events"].pop()
    path = tmp_path / "engine-scenarios.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    status, _ = support.run([str(path), "--port", support.REFERENCE])
    assert status == 2
    err = capsys.readouterr().err
    assert f"{data['vectors'][0]['id']!r}" in err and "expect.order" in err
    assert "Traceback" not in err
