"""The mutation jobs' machinery (tests/mutation/run.py), checked cheaply.

The full jobs take minutes and are not part of the suite; these tests make
sure their parts cannot pass vacuously: a mutant really is swapped in (one
that breaks the ladder, or the engine, is killed), the unmutated reference
and engine replay cleanly, the engine judge compares warnings by count only
and expects a malformed scenario's error, the excluded regions are only what
has no behaviour, and every triage entry is well formed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ports_report  # noqa: E402

import replay  # noqa: E402
import run  # noqa: E402

ENGINE = run.PACKAGES["engine"]


@pytest.fixture(scope="module")
def judge() -> replay.Judge:
    return replay.monitor_judge()


def _run(
    package: run.Package, judge: replay.Judge, mutant: run.Mutant
) -> dict[run.Mutant | None, tuple[int | None, str]]:
    results = run.run_mutants(
        [None, mutant], judge, 2, timeout=120, progress=False, package=package
    )
    return {ran: (code, message) for ran, code, message, _ in results}


def test_clean_replay_and_an_obvious_mutant(judge: replay.Judge) -> None:
    run.snapshot_sources()
    mutants, _ = run.enumerate_mutants(["ladder"])
    # ("stop", True) -> ("stop", False): the stop rung is never considered.
    stop = next(
        m
        for m in mutants
        if m.operator == "core/ReplaceTrueWithFalse" and m.code == '("stop", True),'
    )
    by_mutant = _run(run.REFERENCE, judge, stop)
    assert by_mutant[None] == (0, "")
    code, message = by_mutant[stop]
    assert code == 1, message
    assert "/" in message.split(":", 1)[0]  # names the vector that failed


def test_the_reference_job_reimports_the_engine_over_the_swapped_reference() -> None:
    """An engine vector replayed by the reference job must run on the mutated reference."""
    import doomloop_kit.engine.actions  # noqa: F401  (the parent binds the engine first)

    def bound() -> str | None:
        from doomloop_kit import reference
        from doomloop_kit.engine import actions

        return (
            None
            if vars(actions)["DoomLoopMonitor"] is reference.DoomLoopMonitor
            else "stale engine"
        )

    run.snapshot_sources()
    results = run.run_mutants([None], replay.Judge(bound, {}), 1, timeout=60, progress=False)
    assert [(code, message) for _, code, message, _ in results] == [(0, "")]


# -- the engine job -------------------------------------------------------------------


def test_engine_clean_replay_and_an_obvious_mutant() -> None:
    engine_judge = ENGINE.judge()
    assert engine_judge.figures["vectors"] >= 58, engine_judge.figures  # the brief's, at least
    run.snapshot_sources(ENGINE)
    mutants, _ = run.enumerate_mutants(["session"], ENGINE)
    assert {m.path for m in mutants} == {"engine/session.py"}
    # for index, spec in enumerate(scenario.runs) -> for ... in []: no run is run.
    no_runs = next(
        m
        for m in mutants
        if m.operator == "core/ZeroIterationForLoop" and m.code.startswith("for index, spec")
    )
    by_mutant = _run(ENGINE, engine_judge, no_runs)
    assert by_mutant[None] == (0, "")
    code, message = by_mutant[no_runs]
    assert code == 1, message
    assert message.startswith("engine-"), message  # names the engine vector that failed


def _brief(index: int) -> Any:
    from doomloop_kit.generators.curated.engine.brief import SCENARIOS

    return SCENARIOS[index]["scenario"]


def _with_warnings() -> tuple[Any, dict[str, Any]]:
    """A brief scenario whose transcript has warnings (a loopKey that throws)."""
    from doomloop_kit.generators.curated.engine.brief import SCENARIOS

    for entry in SCENARIOS:
        outcome = replay.engine_outcome(entry["scenario"])
        if outcome["result"]["runs"][0]["warnings"]:
            return entry["scenario"], outcome
    raise AssertionError("no brief scenario warns")


def test_engine_judge_requires_only_the_fallback_warning_texts() -> None:
    """As the runner (ENG-108, ENG-168): other wordings and counts pass; a fallback text
    the expectation holds and the mutant's run lacks is a difference."""
    scenario, outcome = _with_warnings()
    reworded = json.loads(json.dumps(outcome))
    warnings = reworded["result"]["runs"][0]["warnings"]
    warnings[0] = "some other wording"
    warnings.append("one more")
    assert replay.first_engine_mismatch(replay.prepare_engine([("w", scenario, reworded)])) is None
    warnings.append('[DoomLoop] tool "nowhere": a fallback the run never printed')
    problem = replay.first_engine_mismatch(replay.prepare_engine([("w", scenario, reworded)]))
    assert problem is not None and problem.startswith("w: run 0, /warnings"), problem
    changed = json.loads(json.dumps(outcome))
    changed["result"]["runs"][0]["end"] = {"reason": "not this"}
    problem = replay.first_engine_mismatch(replay.prepare_engine([("e", scenario, changed)]))
    assert problem is not None and problem.startswith("e: run 0, /end"), problem


def test_engine_judge_expects_bad_scenario_for_a_malformed_one() -> None:
    malformed = {**_brief(0), "unknownMember": 1}
    error = {"error": "bad-scenario"}
    assert replay.engine_outcome(malformed) == error
    assert replay.first_engine_mismatch(replay.prepare_engine([("bad", malformed, error)])) is None
    problem = replay.first_engine_mismatch(replay.prepare_engine([("good", _brief(0), error)]))
    assert problem is not None and problem.startswith("good: $.expect")


def test_each_judge_loads_only_its_own_vectors(tmp_path: Path) -> None:
    monitor = {"id": "m", "features": [], "steps": [{"op": "x", "expect": {"result": 1}}]}
    engine = {"id": "e", "features": ["engine"], "scenario": {}, "expect": {"error": "x"}}
    (tmp_path / "v.json").write_text(json.dumps({"vectors": [monitor, engine]}))
    (tmp_path / "manifest.json").write_text(json.dumps({"files": [{"path": "v.json"}]}))
    assert [v[0] for v in replay.load(tmp_path)] == ["m"]
    assert [v[0] for v in replay.load_engine(tmp_path)] == ["e"]


def test_exclusions_cover_only_annotations_docstrings_and_aliases() -> None:
    source = (
        '"""Doc."""\n'
        "from typing import Literal\n"
        'Kind = Literal["a", "b"]\n'
        '__all__ = ["f"]\n'
        "def f(x: int | None = None) -> int | None:\n"
        '    """Doc."""\n'
        "    return x + 1 if x is not None else None\n"
    )
    spans = run.excluded_spans(source)
    whys = sorted({why for _, _, why in spans})
    assert whys == ["__all__", "annotation", "docstring", "type alias"]
    body = (7, 11)  # the `+` of line 7
    assert not any(run._inside(body, span) for span in spans)


def test_retriage_rebuilds_the_outcomes_a_report_was_made_from() -> None:
    run.snapshot_sources(ENGINE)
    mutants, _ = run.enumerate_mutants(["steer"], ENGINE)
    assert len(mutants) >= 5
    statuses = ["killed", "crash", "timeout", "equivalent", *["survived"] * (len(mutants) - 4)]
    killers = ["engine-a/b", "KeyError", "no result within 10s", "", *[""] * (len(mutants) - 4)]
    columns = ["module", "line", "col", "operator", "status", "killedBy"]
    rows: list[list[Any]] = [
        [m.path, m.line, m.col, m.operator, status, killer]
        for m, status, killer in zip(mutants, statuses, killers, strict=True)
    ]
    last: dict[str, Any] = {"mutantsColumns": columns, "mutants": rows}
    raw = run.replayed_results(last, mutants)
    assert [code for _, code, _, _ in raw] == [1, 2, None, *[0] * (len(mutants) - 3)]
    assert [ran for ran, _, _, _ in raw] == mutants
    outcomes = [
        run.Outcome(mutants[0], "killed", raw[0][2]),
        run.Outcome(mutants[1], "crash", raw[1][2]),
    ]
    assert [run._killer(o) for o in outcomes] == ["engine-a/b", "KeyError"]
    moved = {**last, "mutants": [[rows[0][0], rows[0][1] + 1000, *rows[0][2:]], *rows[1:]]}
    with pytest.raises(SystemExit, match="no longer"):
        run.replayed_results(moved, mutants)


@pytest.mark.parametrize("package", sorted(run.PACKAGES))
def test_triage_entries_are_well_formed(package: str) -> None:
    entries = run.load_equivalents(run.PACKAGES[package].out / "equivalents.toml")
    assert entries
    for entry in entries:
        assert entry["module"].removesuffix(".py") in run.PACKAGES[package].sources(), entry
        assert entry["kind"] in run.TRIAGE_KINDS, entry
        assert entry["operators"] and all(op.startswith("core/") for op in entry["operators"])
        assert len(" ".join(entry["why"].split())) > 40, entry
        source = run.REPO / entry["module"]
        assert source.exists(), entry
        # an entry names its line by text: once the line is edited away it is stale
        lines = {line.strip() for line in source.read_text(encoding="utf-8").splitlines()}
        assert entry["code"] in lines, f"stale triage entry: {entry['module']} {entry['code']}"


# -- the ports' reports (tests/mutation/ports_report.py) ---------------------------


def _stryker(status: str, replacement: str = "false") -> dict[str, object]:
    return {
        "files": {
            "src/doom-loop.ts": {
                "source": "const a = 1;\nif (x > 0) y();\n",
                "mutants": [
                    {
                        "mutatorName": "ConditionalExpression",
                        "replacement": replacement,
                        "location": {
                            "start": {"line": 2, "column": 5},
                            "end": {"line": 2, "column": 10},
                        },
                        "status": status,
                    }
                ],
            }
        }
    }


def test_port_score_leaves_out_not_viable_and_equivalent_only() -> None:
    mutants, _ = ports_report._typescript(_stryker("Survived"))
    (survivor,) = mutants
    assert (survivor.file, survivor.line, survivor.code) == (
        "ports/typescript/src/doom-loop.ts",
        2,
        "if (x > 0) y();",
    )
    compile_error, _ = ports_report._typescript(_stryker("CompileError"))
    killed, _ = ports_report._typescript(_stryker("Killed"))
    everything = mutants + compile_error + killed
    assert ports_report.score(everything) == (1, 2, 0.5)  # the survivor counts until triaged
    entry = {
        "port": "typescript",
        "file": "ports/typescript/src/doom-loop.ts",
        "code": "if (x > 0) y();",
        "operators": ["ConditionalExpression"],
        "replacement": "false",
        "kind": "equivalent",
        "why": "test",
    }
    assert ports_report.triage("typescript", everything, [entry]) == []
    assert ports_report.score(everything) == (1, 1, 1.0)
    # "unpinned" keeps the survivor in the score
    survivor.triage = ""
    assert ports_report.triage("typescript", everything, [{**entry, "kind": "unpinned"}]) == []
    assert ports_report.score(everything) == (1, 2, 0.5)


def test_port_triage_goes_stale_when_the_line_or_the_replacement_changes() -> None:
    entry = {
        "port": "typescript",
        "file": "ports/typescript/src/doom-loop.ts",
        "code": "if (x >= 0) y();",
        "operators": ["ConditionalExpression"],
        "kind": "equivalent",
        "why": "test",
    }
    mutants, _ = ports_report._typescript(_stryker("Survived"))
    assert ports_report.triage("typescript", mutants, [entry]) == [
        f"{entry['file']}: {entry['code']}"
    ]
    assert mutants[0].triage == ""
    other = {**entry, "code": "if (x > 0) y();", "replacement": "true"}
    assert ports_report.triage("typescript", mutants, [other]) != []
    assert mutants[0].triage == ""


def _go_results(*outcomes: dict[str, object]) -> dict[str, object]:
    return {
        "tool": "gomutate",
        "go": "go1",
        "command": "go run .",
        "clean_passed": 3,
        "clean_failed": [],
        "wall_seconds": 1.0,
        "mutants": len(outcomes),
        "complete": True,
        "outcomes": list(outcomes),
    }


def test_port_triage_column_tells_apart_two_tokens_of_one_line() -> None:
    line = {"file": "m.go", "line": 7, "operator": "CONDITIONALS_NEGATION", "original": "=="}
    line |= {"mutated": "!=", "code": "return a == b && c == d", "status": "survived"}
    mutants, _ = ports_report._go(_go_results({**line, "col": 10}, {**line, "col": 20}))
    general = {
        "port": "go",
        "file": "ports/go/m.go",
        "code": "return a == b && c == d",
        "operators": ["CONDITIONALS_NEGATION"],
        "kind": "unpinned",
        "why": "general",
    }
    specific = {**general, "column": 20, "kind": "equivalent", "why": "specific"}
    assert ports_report.triage("go", mutants, [general, specific]) == []
    assert [(m.col, m.triage) for m in mutants] == [(10, "unpinned"), (20, "equivalent")]


def test_port_report_names_the_survivors_a_rejudge_killed() -> None:
    base = {"file": "m.go", "line": 7, "col": 3, "operator": "REPLACE_TRUE_FALSE"}
    base |= {"original": "true", "mutated": "false", "code": "return true"}
    results = _go_results(
        {**base, "status": "killed", "detail": "gaps.json/v-1: differs", "rejudged": True},
        {**base, "line": 9, "status": "killed", "detail": "facts.json/v-2: differs"},
    )
    results["rejudged"] = [
        {"before": 3, "clean_passed": 5, "survivors": 1, "judged": 1, "killed": 1},
        {"before": 5, "clean_passed": 4, "survivors": 0, "judged": 0, "killed": 0}
        | {"changed_vectors": True},
    ]
    mutants, meta = ports_report._go(results)
    text = ports_report.render("Go", mutants, meta, [])
    assert "the 3 vectors the clean port passes judge" in text
    assert (
        "judged 1 of 1 mutants again (1 survivors) against the 5 vectors the clean port "
        "then passed and killed 1" in text
    )
    assert "`go run . -rejudge -changed-vectors` judged 0 of 0 mutants again" in text
    assert "the vectors were redrawn" in text
    killed_later = text.split("### Survivors killed by vectors added later")[1]
    assert "`ports/go/m.go:7`" in killed_later and "gaps.json/v-1" in killed_later
    assert "m.go:9" not in killed_later


def test_the_go_engine_report_names_its_judge_and_its_files() -> None:
    """gomutate -package engine: mutants of ports/go/engine judged by the engine vectors."""
    line = {"file": "engine/run.go", "line": 7, "col": 3, "operator": "REPLACE_TRUE_FALSE"}
    line |= {"original": "true", "mutated": "false", "code": "return true", "status": "killed"}
    results = _go_results(line) | {"package": "engine", "run": "^TestVectors$//engine-"}
    mutants, meta = ports_report._go(results)
    assert mutants[0].file == "ports/go/engine/run.go"
    text = ports_report.render("Go port's engine", mutants, meta, [])
    assert text.startswith("# Mutation testing of the Go port's engine against")
    assert "its engine vectors alone (-run '^TestVectors$//engine-'" in text
    monitor = ports_report.render("Go port", *ports_report._go(_go_results(line)), [])
    assert "(vectors_test.go) alone," in monitor


def test_a_timeout_counts_only_once_it_repeats_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    mutants = run.enumerate_mutants(["ladder"], run.REFERENCE)[0][:3]
    first = [
        (mutants[0], None, "late", 20.0),
        (mutants[1], 0, "", 1.0),
        (mutants[2], None, "", 20.0),
    ]
    calls: list[tuple[list[Any], int, float]] = []

    def alone(
        todo: list[Any], judge: Any, workers: int, timeout: float, **_: Any
    ) -> list[tuple[Any, int | None, str, float]]:
        calls.append((todo, workers, timeout))
        return [(todo[0], 0, "", 30.0), (todo[1], None, "endless", 60.0)]

    monkeypatch.setattr(run, "run_mutants", alone)
    confirmed = run.confirm_timeouts(first, None, 15.0, run.REFERENCE)  # type: ignore[arg-type]
    assert calls == [([mutants[0], mutants[2]], 1, 15.0 * run.CONFIRM_FACTOR)]
    assert [code for _, code, _, _ in confirmed] == [0, 0, None]
    assert run.confirm_timeouts(first[1:2], None, 15.0, run.REFERENCE) == first[1:2]  # type: ignore[arg-type]
