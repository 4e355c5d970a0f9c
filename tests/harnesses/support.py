"""Helpers shared by the runner and protocol tests."""

from __future__ import annotations

import functools
import json
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from doomloop_kit.conformance import cli
from doomloop_kit.vectorset import loading
from doomloop_kit.vectorset.files import VectorFile

from . import fixtures as fixtures

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
COMMITTED = REPO / "vectors"
PYTHON = shlex.quote(sys.executable)
REFERENCE = f"{PYTHON} -m doomloop_kit.conformance.harnesses.python_reference"


def committed_vectors() -> Path | None:
    """The committed vector root, once the vectors exist."""
    return COMMITTED if (COMMITTED / "manifest.json").is_file() else None


@functools.cache
def committed_files() -> tuple[VectorFile, ...]:
    """The committed vector files, loaded once per test process and schema-checked once
    per test session.

    Schema validation is most of the cost of loading the set (about 20 s), so it goes
    through the runner's validation cache (:mod:`doomloop_kit.vectorset.cache`, one
    folder for the session: conftest.py), which every worker and every in-process run
    shares: the set is checked once, not once per worker and once more per run.
    """
    vector_set = loading.open_vector_set(COMMITTED)
    return tuple(source.load() for source in vector_set.files)


def fault(name: str, nth: int = 1) -> str:
    return f"{PYTHON} {shlex.quote(str(HERE / 'faults.py'))} {name} {nth}"


def mutant(name: str) -> str:
    return f"{PYTHON} {shlex.quote(str(HERE / 'mutants.py'))} {name}"


def fixture_root(tmp: Path) -> Path:
    return fixtures.write_vector_set(tmp)


def exactly(vector_id: str) -> str:
    """A ``-k`` pattern selecting this one id: ``-k`` is a substring (``facts/x`` also selects
    ``facts/x-undeclared``), but a glob matches the whole id, and ``[c]`` is a glob."""
    return f"{vector_id[:-1]}[{vector_id[-1]}]"


def run(args: list[str], report: Path | None = None) -> tuple[int, list[dict[str, Any]]]:
    """Run ``doomloop-kit conformance run ARGS`` in-process; (exit status, report lines)."""
    argv = ["conformance", "run", *args]
    if report is not None:
        argv += ["--report-json", str(report)]
    status = cli.main(argv)
    lines = (
        []
        if report is None or not report.exists()
        else [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    )
    return status, lines


def by_status(lines: list[dict[str, Any]], status: str) -> list[dict[str, Any]]:
    return [line for line in lines if line.get("type") == "vector" and line["status"] == status]


@functools.cache
def committed_reference_run() -> tuple[int, list[dict[str, Any]], list[Any], list[Any]]:
    """One full run of the reference harness over the committed vectors, traffic captured.

    Shared by the pass-everything test and the schema test (a full run costs
    seconds, mostly loading and schema-checking the vector files).
    """
    out = Path(tempfile.mkdtemp(prefix="doomloop-reference-run-"))
    sent, received = out / "sent.jsonl", out / "received.jsonl"
    port = f"tee {shlex.quote(str(sent))} | {REFERENCE} | tee {shlex.quote(str(received))}"
    status, lines = run(["--port", port], out / "report.jsonl")
    requests = [json.loads(line) for line in sent.read_text(encoding="utf-8").splitlines()]
    responses = [json.loads(line) for line in received.read_text(encoding="utf-8").splitlines()]
    shutil.rmtree(out, ignore_errors=True)
    return status, lines, requests, responses
