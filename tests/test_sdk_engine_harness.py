"""The kit's own SDK engine harness against the shared one (issue 30, item 2).

``doomloop-kit-harness --sdk-engine BUNDLE`` (ports/typescript/src/sdk-engine) drives
the SDK's real ``callModel`` from an engine bundle of ``@openrouter/agent``: a
harness the kit ships, written apart from ``../shared/sdk/sdk-engine-harness.mjs``.
When ``../shared/sdk`` is beside the checkout (the kit's own machines, never a
port author's), both harnesses run over the same bundle and must agree:

* every engine vector passes or fails through ours exactly as through the shared
  one (the runner's verdict, vector by vector);
* every ``runScenario`` of the SDK's recorded corpus gets the same transcript
  from both, line by line. The replay (:mod:`doomloop_kit.conformance.sdk_replay`)
  judges a line by the harness's answer alone, so equal answers reproduce,
  exclude and differ on the same lines; comparing the answers is stronger and
  skips the reference engine's minute of work. Only the members the spec calls
  informative are left out: a run's ``warnings`` (ENG-108) and an error's
  ``message`` (ENG-141).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.conformance import sdk_replay
from doomloop_kit.conformance.protocol import Connection
from harnesses import support

SHARED_SDK = support.REPO.parent / "shared" / "sdk"
BUNDLE = SHARED_SDK / "sdk-engine.min.mjs"
CORPUS = support.REPO.parent / "shared" / "upstream" / "sdk-engine-0.9.0-corpus.jsonl.gz"
SHARED = (
    f"DOOMLOOP_KIT={shlex.quote(str(support.REPO))} "
    f"node {shlex.quote(str(SHARED_SDK / 'sdk-engine-harness.mjs'))}"
)
OURS = (
    f"node {shlex.quote(str(support.REPO / 'ports/typescript/dist/harness.js'))}"
    f" --sdk-engine {shlex.quote(str(BUNDLE))}"
)

ANSWER_TIMEOUT = 30.0
"""Seconds to wait for one answer (a scenario takes milliseconds; the whole corpus, seconds)."""

pytestmark = pytest.mark.skipif(
    not BUNDLE.is_file(),
    reason=f"no SDK engine bundle at {BUNDLE}: ../shared/sdk sits beside the kit's own "
    "checkout only, never beside a port author's",
)


def _statuses(command: str, report: Path) -> dict[str, str]:
    support.run(["--port", command, "--family", "engine-*"], report)
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return {line["id"]: line["status"] for line in lines if line.get("type") == "vector"}


def test_every_engine_vector_fares_as_through_the_shared_harness(tmp_path: Path) -> None:
    shared = _statuses(SHARED, tmp_path / "shared.jsonl")
    ours = _statuses(OURS, tmp_path / "ours.jsonl")
    passed = sum(status == "passed" for status in ours.values())
    print(f"--sdk-engine: {passed} of {len(ours)} engine vectors passed")
    assert len(ours) == len(shared) > 400
    assert {i: s for i, s in ours.items() if s != shared.get(i)} == {}


def compared(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without the informative members: each run's ``warnings``, each error's
    ``message`` (ENG-108, ENG-141)."""
    result = answer.get("result")
    if not isinstance(result, dict) or not isinstance(result.get("runs"), list):
        return answer
    runs = []
    for run in result["runs"]:
        kept = {name: value for name, value in run.items() if name != "warnings"}
        error = kept.get("end", {}).get("error")
        if isinstance(error, dict):
            error = {name: value for name, value in error.items() if name != "message"}
            kept["end"] = {**kept["end"], "error": error}
        runs.append(kept)
    return {**answer, "result": {**result, "runs": runs}}


def _answers(command: str, lines: Sequence[str]) -> list[dict[str, Any]]:
    harness = Connection(command, timeout=ANSWER_TIMEOUT)
    try:
        harness.start()
        sent = [harness.send_raw(line) for line in lines]
        return [compared(dict(harness.receive(exchange))) for exchange in sent]
    finally:
        harness.close()


@pytest.mark.skipif(not CORPUS.is_file(), reason=f"no recorded corpus at {CORPUS}")
def test_every_recorded_scenario_gets_the_shared_harness_answer() -> None:
    lines = [line.raw for line in sdk_replay.read_lines(CORPUS)]
    with ThreadPoolExecutor(2) as pool:
        shared, ours = pool.map(lambda command: _answers(command, lines), [SHARED, OURS])
    assert len(ours) == len(shared) == len(lines) > 3000
    pairs = enumerate(zip(ours, shared, strict=True))
    different = [number for number, (mine, theirs) in pairs if mine != theirs]
    assert different == [], f"{len(different)} lines differ, first: line {different[0] + 1}"


def test_only_the_informative_members_are_left_out() -> None:
    run = {"warnings": ["w"], "end": {"error": {"kind": "sdk-error", "message": "m"}}, "index": 0}
    answer = {"id": 1, "result": {"scenario": "s", "runs": [run]}}
    kept = {"end": {"error": {"kind": "sdk-error"}}, "index": 0}
    assert compared(answer) == {"id": 1, "result": {"scenario": "s", "runs": [kept]}}
    assert compared({"id": 1, "error": {"code": "bad-scenario", "message": "x"}})["error"] == {
        "code": "bad-scenario",
        "message": "x",
    }
