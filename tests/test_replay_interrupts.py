"""Ctrl-C and SIGTERM on a fleet replay: one line, exit 130/143, no traceback, no orphan.

A terminal's Ctrl-C reaches the whole process group, the fleet's workers
included; a worker that answered it, or a pool thread left to race with
Python's exit, printed a traceback (``concurrent.futures``, Dask's nannies)
and could outlive the command. The harness (tests/interrupt_harness.py)
interrupts runs at seeded random moments, from the pool's start to the
middle of the corpus, and checks each end: the one line and the exit status
for an interrupted run (128 + the signal: 130, 143), nothing on stderr and a
report for a run that finished first, and, either way, no process or thread
left behind and no traceback of any worker (they write to the same stderr).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from interrupt_harness import interrupt_runs, problems
from test_replay import write_lines
from test_replay_formats import chat


def corpus(folder: Path, files: int) -> Path:
    """``files`` small chat logs (a loop, then an answer): a run takes most of a second."""
    folder.mkdir()
    for index in range(files):
        write_lines(folder / f"run{index}.jsonl", chat(["same"] * 6))
    return folder


def test_a_hundred_interrupts_of_a_jobs_2_fleet_end_cleanly(tmp_path: Path) -> None:
    runs = corpus(tmp_path / "runs", 300)
    out = tmp_path / "out"
    out.mkdir()
    results, stderr = interrupt_runs(
        runs,
        out,
        ["--jobs", "2"],
        interrupts=100,
        seed=32,
        window=(0.0, 0.12),
        most=150,
        timeout=20,
    )
    interrupted = [r for r in results if r["status"] != 0]
    assert len(interrupted) == 100, f"only {len(interrupted)} of {len(results)} runs interrupted"
    bad = {r["run"]: problems(r) for r in results if problems(r)}
    assert bad == {}, json.dumps(bad, indent=1)
    assert {r["signal"] for r in interrupted} == {"SIGINT", "SIGTERM"}
    assert stderr == ""  # nothing between runs either


def test_ctrl_c_and_sigterm_on_a_dask_local_fleet_end_cleanly(tmp_path: Path) -> None:
    """A local cluster takes seconds to start (a signal meanwhile waits until it has,
    then stops it), and its tasks take a few milliseconds each: two runs of a corpus
    that lasts longer than the window, each signalled within it."""
    runs = corpus(tmp_path / "runs", 1500)
    out = tmp_path / "out"
    out.mkdir()
    arguments = ["--dask", "local", "--jobs", "2"]
    results, stderr = interrupt_runs(
        runs, out, arguments, interrupts=2, seed=5, window=(0.5, 10.0), most=3
    )
    assert [problems(r) for r in results] == [[] for _ in results]
    assert sum(r["status"] in (130, 143) for r in results) == 2
    assert stderr == ""
