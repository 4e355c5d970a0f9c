"""Differential fuzzing finds, shrinks and writes a mutant's mismatch; deterministically."""

from __future__ import annotations

from pathlib import Path

import pytest
from doomloop_kit.conformance import cli
from doomloop_kit.vectorset.files import load_vector_file
from harnesses import support

MUTANT = "per-call-streak-ignored"


def _fuzz(out: Path, port: str, *extra: str) -> int:
    return cli.main(
        [
            "conformance",
            "fuzz",
            "--port",
            port,
            "--examples",
            "60",
            "--seed",
            "3",
            "--family",
            "superset",
            "--out",
            str(out),
            *extra,
        ]
    )


def test_fuzz_finds_shrinks_and_writes_a_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _fuzz(tmp_path / "a", support.mutant(MUTANT)) == 1
    out = capsys.readouterr().out
    assert "superset: MISMATCH; minimal transcript after shrinking:" in out
    assert "differs at $.streak" in out
    written = tmp_path / "a" / "curated" / "fuzz-superset.json"
    (vector,) = load_vector_file(written).vectors
    assert vector.id.startswith("fuzz-superset/superset-")
    assert len(vector.steps) <= 8  # shrunk: a few rounds, not a random-length transcript

    # the written file is a real vector: the mutant fails it, the reference passes it
    assert support.run([str(written), "--port", support.mutant(MUTANT)])[0] == 1
    assert support.run([str(written), "--port", support.REFERENCE])[0] == 0

    # same seed, same port: the same minimal vector, byte for byte
    assert _fuzz(tmp_path / "b", support.mutant(MUTANT)) == 1
    assert (tmp_path / "b" / "curated" / "fuzz-superset.json").read_bytes() == written.read_bytes()


def test_fuzz_reference_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(
        [
            "conformance",
            "fuzz",
            "--port",
            support.REFERENCE,
            "--examples",
            "15",
            "--family",
            "text",
            "--family",
            "resume",
            "--out",
            str(tmp_path),
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert "text: 15 transcripts agree" in out and "resume: 15 transcripts agree" in out
    assert not (tmp_path / "curated").exists()


def test_fuzz_unusable_harness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _fuzz(tmp_path, support.fault("version-mismatch")) == 3
    assert "the harness is unusable" in capsys.readouterr().out
