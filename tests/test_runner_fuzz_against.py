"""``conformance fuzz --against``: differential fuzzing between two harnesses.

The in-tree TypeScript and Go ports (built by ``make ports``) agree; a
planted difference (a mutant harness) is found, shrunk, reported with the
reference's view of the first differing step and written as a vector that
expects the ``--against`` harness's answers; a harness fault names its side.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from doomloop_kit.conformance import cli, differential
from doomloop_kit.generators import fuzz_families, strategies
from doomloop_kit.vectorset.files import load_vector_file
from harnesses import support

TS_PORT = support.REPO / "ports" / "typescript" / "dist" / "harness.js"
GO_PORT = support.REPO / "ports" / "go" / "bin" / "doomloop-harness"
MUTANT = "per-call-streak-ignored"


def _built(path: Path) -> str:
    assert path.is_file(), f"{path} is not built: run `make ports`"
    return shlex.quote(str(path))


def _fuzz(out: Path, port: str, against: str, *extra: str) -> int:
    return cli.main(
        [
            "conformance",
            "fuzz",
            "--port",
            port,
            "--against",
            against,
            "--out",
            str(out),
            *extra,
        ]
    )


def _superset(out: Path, port: str, against: str) -> int:
    return _fuzz(out, port, against, "--examples", "60", "--seed", "3", "--family", "superset")


def test_typescript_and_go_ports_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    typescript = f"node {_built(TS_PORT)}"
    # the TS port declares features of issue 11 (js-coercion, js-inherited-members) that
    # the kit's vocabulary may not list yet. Both declare engine: without --family the
    # engine families (committed and edge) are drawn after the monitor ones
    status = _fuzz(
        tmp_path,
        typescript,
        _built(GO_PORT),
        *("--examples", "10", "--seed", "1"),
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "against the --against harness (doomloop-kit-go-port" in out
    # the Go port declares json-own-members, the TS port js-inherited-members (D8)
    left_out = next(
        line
        for line in out.splitlines()
        if line.startswith("features left out (one side only, not drawn): ")
    )
    assert "js-inherited-members" in left_out and "json-own-members (--against only)" in left_out
    agreed = dict(re.findall(r"^([a-z-]+): (\d+) transcripts agree$", out, re.MULTILINE))
    assert sorted(agreed) == sorted(fuzz_families.FAMILIES)
    assert len(fuzz_families.FAMILIES) > len(strategies.FAMILIES)
    assert all(int(count) > 0 for count in agreed.values()), agreed
    assert not (tmp_path / "curated").exists()


def test_planted_difference_is_found_shrunk_and_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    go, mutant = _built(GO_PORT), support.mutant(MUTANT)
    assert _superset(tmp_path / "a", mutant, go) == 1
    out = capsys.readouterr().out
    assert "superset: MISMATCH between the --port and --against harnesses" in out
    assert "differs at $.streak" in out
    differs = re.search(r"^  step (\d+) \(recordToolCall\) differs at \$\.streak", out, re.M)
    assert differs is not None, out
    step = int(differs[1])
    # the mutant ignores per-call streaks; the reference counts them as the Go port does
    assert f"at step {step} the reference agrees with the --against harness\n" in out
    assert "expectations are the answers of the --against harness (doomloop-kit-go-port" in out

    written = tmp_path / "a" / "curated" / "fuzz-against-superset.json"
    (vector,) = load_vector_file(written).vectors  # schema-valid
    assert vector.id.startswith("fuzz-against-superset/superset-")
    assert "fuzz-against" in vector.tags and "doomloop-kit-go-port" in vector.description
    assert len(vector.steps) <= 8  # shrunk
    assert vector.steps[step].op == "recordToolCall"

    # a real vector: the mutant fails it at that step, the Go port and the reference pass it
    status, lines = support.run([str(written), "--port", mutant], tmp_path / "mutant.jsonl")
    assert status == 1
    assert support.by_status(lines, "failed")[0]["failure"]["step"] == step
    assert support.run([str(written), "--port", go])[0] == 0
    assert support.run([str(written), "--port", support.REFERENCE])[0] == 0

    # same seed, same harnesses: the same minimal vector, byte for byte
    assert _superset(tmp_path / "b", mutant, go) == 1
    again = tmp_path / "b" / "curated" / "fuzz-against-superset.json"
    assert again.read_bytes() == written.read_bytes()


def test_reference_may_side_with_the_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the mutant as the oracle, the vector expects the mutant's (wrong) answers."""
    mutant = support.mutant(MUTANT)
    assert _superset(tmp_path, _built(GO_PORT), mutant) == 1
    out = capsys.readouterr().out
    assert re.search(r"^at step \d+ the reference agrees with the --port harness$", out, re.M)
    written = tmp_path / "curated" / "fuzz-against-superset.json"
    (vector,) = load_vector_file(written).vectors
    assert "expectations: the answers of the --against harness (" in vector.description
    assert support.run([str(written), "--port", mutant])[0] == 0
    assert support.run([str(written), "--port", support.REFERENCE])[0] == 1


@pytest.mark.parametrize(
    ("side", "fault", "cause"),
    [
        ("--against", "crash", "crash"),
        ("--against", "internal-error", "error-internal"),
        ("--port", "crash", "crash"),
    ],
)
def test_a_fault_is_named_with_its_side(
    side: str,
    fault: str,
    cause: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAULT_ONCE", str(tmp_path / "fault-once"))
    faulty, go = support.fault(fault, 2), _built(GO_PORT)  # request 2 is step 0
    port, against = (go, faulty) if side == "--against" else (faulty, go)
    assert _superset(tmp_path / "out", port, against) == 3  # a broken harness: as `run` says
    out = capsys.readouterr().out
    assert f"superset: the {side} harness (doomloop-kit-python-reference" in out
    assert f"\n{side}: {cause} at step 0" in out
    written = tmp_path / "out" / "curated" / "fuzz-against-superset.json"
    load_vector_file(written)  # schema-valid
    # when the oracle gave no answer the vector expects the reference's, and the output says so
    source = "the reference's" if side == "--against" else "the answers of the --against harness"
    assert f"expectations are {source}" in out
    assert support.run([str(written), "--port", go])[0] == 0


def test_unusable_against_harness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = _fuzz(tmp_path, _built(GO_PORT), support.fault("version-mismatch"))
    assert status == 3
    assert "error: the --against harness is unusable" in capsys.readouterr().out


def test_reference_verdict_names_the_side_the_reference_agrees_with() -> None:
    three, four = {"result": {"streak": 3}}, {"result": {"streak": 4.0}}
    error = {"error": "canonicalization"}
    verdict = differential.reference_verdict
    assert (
        verdict(2, three, three, four)
        == "at step 2 the reference agrees with the --against harness"
    )
    assert verdict(2, four, three, {"result": {"streak": 4}}) == (
        "at step 2 the reference agrees with the --port harness"  # 4 and 4.0: the same double
    )
    assert verdict(0, error, three, four) == (
        'at step 0 the reference agrees with neither: it expects {"error": "canonicalization"}'
    )
    assert "neither" in verdict(1, three, four, None)


def test_a_bad_vector_file_in_the_way_is_reported_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    in_the_way = tmp_path / "curated" / "fuzz-against-superset.json"
    in_the_way.parent.mkdir()
    in_the_way.write_text("{not json", encoding="utf-8")
    assert _superset(tmp_path, support.mutant(MUTANT), _built(GO_PORT)) == 1
    out = capsys.readouterr().out
    assert "superset: MISMATCH between the --port and --against harnesses" in out
    assert f"error: the minimal transcript above was not written: {in_the_way}: $: not JSON" in out
    assert in_the_way.read_text(encoding="utf-8") == "{not json"
