"""``conformance fuzz`` on engine scenarios: drawn, judged by the engine rule, written.

A mutant of the reference harness that perturbs one dispatch is found, shrunk and
written as an engine vector the mutant fails and the reference passes; with
``--against`` the written vector expects the oracle's transcript with an order of
its own (ENG-139), which a harness interleaving a batch otherwise still passes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.conformance import cli, differential, fuzz
from doomloop_kit.generators import fuzz_families, strategies
from doomloop_kit.vectorset.files import load_vector_file
from harnesses import support

MUTANT = "engine-dispatch-perturbed"
INTERLEAVED = "engine-interleaved"


def _fuzz(out: Path, port: str, *extra: str) -> int:
    return cli.main(["conformance", "fuzz", "--port", port, "--out", str(out), *extra])


def test_the_reference_agrees_with_itself_on_every_edge_family(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = _fuzz(tmp_path, support.REFERENCE, "--family", "engine-edge-*", "--examples", "4")
    out = capsys.readouterr().out
    assert status == 0, out
    agreed = re.findall(r"^(engine-edge-[a-z]+): 4 transcripts agree$", out, re.MULTILINE)
    assert agreed == [f for f in fuzz_families.ENGINE_FAMILIES if f.startswith("engine-edge-")]


def _perturbed(out: Path) -> int:
    mutant = support.mutant(MUTANT)
    return _fuzz(out, mutant, "--family", "engine-tool-results", "--examples", "10", "--seed", "2")


def test_an_engine_mutant_is_found_shrunk_and_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _perturbed(tmp_path / "a") == 1
    out = capsys.readouterr().out
    assert "engine-tool-results: MISMATCH; minimal transcript after shrinking:" in out
    assert "/request/model" in out
    written = tmp_path / "a" / "curated" / "fuzz-engine-tool-results.json"
    (vector,) = load_vector_file(written).vectors  # schema-valid, its fact cited
    assert vector.is_engine and vector.id.startswith("fuzz-engine-tool-results/")
    (fact,) = vector.facts
    assert fact["kind"] == "at" and fact["at"].endswith("/request/model")
    assert fact["equals"] == "cheap-model"
    scenario = vector.steps[0].inputs["scenario"]
    assert len(scenario["runs"][0]["model"]) <= 2  # shrunk: the second dispatch is perturbed
    # a real vector: the mutant fails it, the reference passes it
    assert support.run([str(written), "--port", support.mutant(MUTANT)])[0] == 1
    assert support.run([str(written), "--port", support.REFERENCE])[0] == 0
    # same seed, same port: the same bytes
    assert _perturbed(tmp_path / "b") == 1
    again = tmp_path / "b" / "curated" / "fuzz-engine-tool-results.json"
    assert again.read_bytes() == written.read_bytes()


def test_against_an_oracle_the_vector_expects_its_transcript_with_an_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    interleaved = support.mutant(INTERLEAVED)  # rearranges batches as threads may
    mutant = support.mutant(MUTANT)
    family = ("--family", "engine-steer-queues", "--examples", "15", "--seed", "5")
    # an interleaving oracle and the reference agree: the order borrowed from the
    # reference lets each side's interleaving pass
    assert _fuzz(tmp_path / "agree", support.REFERENCE, "--against", interleaved, *family) == 0
    capsys.readouterr()
    assert _fuzz(tmp_path / "differ", mutant, "--against", interleaved, *family) == 1
    out = capsys.readouterr().out
    assert "MISMATCH between the --port and --against harnesses" in out
    assert "the reference agrees with the --against harness" in out
    written = tmp_path / "differ" / "curated" / "fuzz-against-engine-steer-queues.json"
    (vector,) = load_vector_file(written).vectors  # its order fits its transcript
    assert "order" in vector.steps[0].expect
    assert support.run([str(written), "--port", mutant])[0] == 1
    assert support.run([str(written), "--port", support.REFERENCE])[0] == 0
    assert support.run([str(written), "--port", interleaved])[0] == 0


def test_a_family_pattern_that_matches_nothing_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _fuzz(tmp_path, support.REFERENCE, "--family", "engine-nothing-*") == 2
    assert "error: --family: no family matches 'engine-nothing-*'" in capsys.readouterr().out


def test_engine_families_are_drawn_by_default_when_every_harness_runs_them() -> None:
    class Declares:
        def __init__(self, features: set[str]) -> None:
            self.features = frozenset(features)

    def chosen(features: set[str]) -> list[str]:
        return fuzz._default_families(Declares(features))  # type: ignore[arg-type]

    assert chosen({"engine"}) == list(fuzz_families.FAMILIES)
    assert chosen(set()) == list(strategies.FAMILIES)


def test_a_failure_of_the_reference_is_reported_with_its_minimal_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(family: str, shape: str, transcript: dict[str, Any]) -> Any:
        raise RuntimeError(f"planted in {family}")

    monkeypatch.setattr(differential, "make_vector", failing)
    args = ("--family", "engine-edge-inputs", "--examples", "20", "--seed", "1")
    assert _fuzz(tmp_path, support.REFERENCE, *args) == 3
    out = capsys.readouterr().out
    message = "error: the reference failed (RuntimeError: planted in engine-edge-inputs)"
    assert f"{message} on this minimal transcript:" in out
    assert "this is a bug of the kit" in out
    shown = json.loads(out.split("minimal transcript:\n", 1)[1].splitlines()[0])
    (run,) = fuzz_families.scenario_of(shown)["runs"]  # shrunk: one run
    assert run["input"] == "go"
    assert not (tmp_path / "curated").exists()
