"""The runner accepts the Go engine's goroutine interleavings (ENG-138, ENG-139; issue 26).

The Go engine runs each call of a concurrent batch on its own goroutine, so
its hook events and executions come out in orders the reference engine never
writes. Its test binary is also a harness whose goroutines yield and sleep at
random from a seed (``DOOMLOOP_SHAKEN_HARNESS``, ``TestMain`` of
``ports/go/cmd/doomloop-harness``): every engine vector's transcript from it
must pass the runner's comparison by the vector's partial order, and some
must differ from the reference's own sequence, or nothing was shown.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.vectorset.files import Step
from doomloop_kit.vectorset.transcripts import compare_transcripts
from harnesses import support

GO_PORT = support.REPO / "ports" / "go"


@pytest.fixture(scope="module")
def shaken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    binary = tmp_path_factory.mktemp("go") / "shaken-harness"
    built = subprocess.run(
        ["go", "test", "-c", "-o", str(binary), "./cmd/doomloop-harness"],
        cwd=GO_PORT,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    return binary


def _engine_steps() -> list[tuple[str, Step]]:
    return [
        (vector.id, vector.steps[0])
        for file in support.committed_files()
        for vector in file.vectors
        if vector.is_engine and "error" not in vector.steps[0].expect
    ]


def _answers(binary: Path, seed: int, steps: list[tuple[str, Step]]) -> list[Any]:
    lines = "".join(
        json.dumps({"id": i, "op": "runScenario", "scenario": step.request()["scenario"]}) + "\n"
        for i, (_, step) in enumerate(steps)
    )
    done = subprocess.run(
        [str(binary)],
        input=lines,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "DOOMLOOP_SHAKEN_HARNESS": str(seed)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.split("\n") if line]  # not splitlines: U+2028


@pytest.mark.parametrize("seed", [1, 2])
def test_the_runner_accepts_the_go_engines_interleavings(shaken: Path, seed: int) -> None:
    steps = _engine_steps()
    answers = _answers(shaken, seed, steps)
    assert len(answers) == len(steps) > 300
    reordered = 0
    for (vector, step), answer in zip(steps, answers, strict=True):
        expected = step.expect["result"]
        assert "result" in answer, (vector, answer)
        differences = compare_transcripts(expected, answer["result"], step.expect["order"])
        assert not differences, (vector, [str(d) for d in differences[:3]])
        if compare_transcripts(expected, answer["result"]):  # the exact sequence differs
            reordered += 1
    assert reordered > 20, reordered
