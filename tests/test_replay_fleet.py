"""Fleet mode: a corpus of fixtures, outcomes, bad input, the sweep, and every executor.

The corpus: two one-run chat logs (a 3-call loop that fails, a healthy run
that succeeds), a mini-swe-agent trajectory (a loop, resolved), a tau-bench
file of two runs with their rewards, a truncated log and a file that is not
UTF-8. Expected counts follow from the fixtures under the default ladder
(observe 2, block 3), not from the report's code.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.conformance.cli import build_parser
from doomloop_kit.reference import RUNGS
from doomloop_kit.replay.cli import run_with
from test_replay import write_lines
from test_replay_formats import chat, mini_swe_agent, tau_bench


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    (folder / "deep").mkdir(parents=True)
    write_lines(folder / "loop.jsonl", chat(["same"] * 3))
    write_lines(folder / "healthy.jsonl", chat(["on time"]))
    trajectory = folder / "deep" / "repo__repo-1.traj.json"
    trajectory.write_text(json.dumps(mini_swe_agent(["E"] * 4), indent=1), encoding="utf-8")
    (folder / "tau.json").write_text(json.dumps(tau_bench(["x"] * 3), indent=1))
    cut = json.dumps(chat(["y"] * 3), indent=1)
    (folder / "cut.json").write_text(cut[: len(cut) - 40], encoding="utf-8")
    (folder / "binary.jsonl").write_bytes(b'{"role": "user", "content": "\xff\xfe"}\n')
    (folder / "notes.txt").write_text("not a log: not in the corpus")
    return folder


def outcomes(tmp_path: Path) -> Path:
    path = tmp_path / "outcomes.json"
    labels = {"loop": False, "healthy": True, "repo__repo-1": {"resolved": True}, "ghost": 1}
    path.write_text(json.dumps(labels, indent=1), encoding="utf-8")
    return path


def fleet(*arguments: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(["replay", *arguments, "--progress", "none"])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = run_with(args, out)
    return status, out.getvalue(), err.getvalue()


def objects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_corpus_with_outcomes_and_bad_files(tmp_path: Path) -> None:
    folder, report = corpus(tmp_path), tmp_path / "fleet.jsonl"
    status, stdout, stderr = fleet(
        str(folder), "--outcomes", str(outcomes(tmp_path)), "--json", str(report)
    )
    assert status == 2  # some input could not be used; the rest is reported
    assert f"{folder / 'cut.json'}:" in stderr and "not JSON" in stderr
    assert f"{folder / 'binary.jsonl'}:1: the log is not UTF-8 text" in stderr  # its line
    assert f"{tmp_path / 'outcomes.json'}:7: a label for run 'ghost'" in stderr
    found = objects(report)
    runs = {o["id"]: o for o in found if o["type"] == "run"}
    assert sorted(runs) == ["7.0", "7.1", "healthy", "loop", "repo__repo-1"]
    assert {i: r["outcome"] for i, r in runs.items()} == {
        "7.0": "failure",  # reward 0.0, from the file itself
        "7.1": "success",
        "healthy": "success",
        "loop": "failure",
        "repo__repo-1": "success",
    }
    assert runs["loop"]["firstFired"] == {"observe": 2, "block": 3}
    assert runs["loop"]["notExecuted"] == 1 and runs["healthy"]["strongest"] is None
    assert runs["repo__repo-1"]["format"] == "mini-swe-agent"
    assert runs["repo__repo-1"]["notExecuted"] == 2  # the 3rd and 4th identical commands
    problems = [o for o in found if o["type"] == "problem"]
    assert sorted(Path(p["file"]).name for p in problems) == ["binary.jsonl", "cut.json"]
    assert [o["id"] for o in found if o["type"] == "unknown-label"] == ["ghost"]
    summary = found[-1]
    assert summary["type"] == "summary" and summary["files"] == 6
    assert summary["byOutcome"]["failure"]["runsReaching"]["block"] == 2  # loop and 7.0
    assert summary["byOutcome"]["success"]["runsReaching"]["block"] == 1  # the trajectory
    assert summary["all"]["streaks"]["identical"] == 3
    assert "runs reaching block" in stdout


def test_the_sweep_counts_interference_and_catches(tmp_path: Path) -> None:
    folder = corpus(tmp_path)
    (folder / "cut.json").unlink()
    (folder / "binary.jsonl").unlink()
    report = tmp_path / "sweep.jsonl"
    arguments = [str(folder), "--outcomes", str(outcomes(tmp_path)), "--json", str(report)]
    status, stdout, _ = fleet(*arguments, "--sweep", "block=3|4|false")
    assert status == 0 and "success interfered" in stdout
    ladders = [o for o in objects(report) if o["type"] == "ladder"]
    assert [o["ladder"] for o in ladders] == [{"block": 3}, {"block": 4}, {"block": False}]
    # block at 3: the failed loops (loop, 7.0) are caught, the resolved trajectory
    # (4 identical commands) is interfered with; at 4 only the trajectory; off: none
    caught = [(o["failedCaught"], o["successfulInterfered"]) for o in ladders]
    assert caught == [(2, 1), (0, 1), (0, 0)]
    assert [o["notExecuted"] for o in ladders] == [4, 1, 0]


def test_the_report_is_the_same_whichever_executor_ran_it(tmp_path: Path) -> None:
    """--jobs 1, --jobs 2 and a Dask LocalCluster give the same bytes."""
    folder = corpus(tmp_path)
    reports = {}
    for name, extra in (
        ("one", ["--jobs", "1"]),
        ("two", ["--jobs", "2"]),
        ("dask", ["--dask", "local", "--jobs", "2"]),
    ):
        reports[name] = tmp_path / f"{name}.jsonl"
        status, _, _ = fleet(str(folder), "--json", str(reports[name]), *extra)
        assert status == 2
    texts = {name: path.read_bytes() for name, path in reports.items()}
    assert texts["one"] == texts["two"] == texts["dask"]
    assert len(objects(reports["one"])) > 5


def test_nothing_is_half_written(tmp_path: Path) -> None:
    folder = corpus(tmp_path)
    report = tmp_path / "fleet.jsonl"
    (tmp_path / "no").write_text("")  # a missing folder would be created (issue 23)
    status, _, stderr = fleet(
        str(folder), "--json", str(report), "--html", str(tmp_path / "no" / "page.html")
    )
    assert status == 2 and "a part of the path is not a directory" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["no", "runs"]


def test_a_label_file_that_is_not_labels(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"id": "a", "success": true}\n{"id": "b", "success": "maybe"}\n')
    status, _, stderr = fleet(str(corpus(tmp_path)), "--outcomes", str(labels))
    assert status == 2 and f"{labels}:2: the label of 'b' is not" in stderr


def test_a_file_of_many_runs_cut_short_keeps_the_runs_before(tmp_path: Path) -> None:
    log = tmp_path / "tau.json"
    text = json.dumps(tau_bench(["x"] * 3), indent=1)
    log.write_text(text[: text.index('"task_id": 7', text.index("trial")) + 20])
    report = tmp_path / "tau.jsonl"
    status, _, stderr = fleet(str(log), "--fleet", "--json", str(report))
    assert status == 2 and f"{log}:" in stderr
    runs = [o for o in objects(report) if o["type"] == "run"]
    assert [(r["id"], r["notExecuted"]) for r in runs] == [("7.0", 1)]


@pytest.mark.parametrize("jobs", ["0", "-1", "x"])
def test_jobs_must_be_positive(jobs: str) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["replay", "a", "b", "--jobs", jobs])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_fifo_in_a_corpus_is_a_problem_never_opened(tmp_path: Path, jobs: str) -> None:
    """Opening a FIFO without a writer waits forever: the fleet reports it and goes on
    (run as a command, so that a hang fails the test by its timeout, not by hanging)."""
    import os
    import subprocess
    import sys

    kit = [sys.executable, "-m", "doomloop_kit.conformance.cli"]
    folder = corpus(tmp_path)
    os.mkfifo(folder / "pipe.jsonl")
    report = tmp_path / "fleet.jsonl"
    done = subprocess.run(
        [*kit, "replay", str(folder), "--jobs", jobs, "--progress", "none", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"{folder / 'pipe.jsonl'}:0: not a regular file" in done.stderr
    found = objects(report)
    assert {o["id"] for o in found if o["type"] == "run"} >= {"loop", "healthy"}
    assert found[-1]["type"] == "summary"


# -- never silent ------------------------------------------------------------------------


def test_what_cannot_be_counted_as_calls_is_counted_and_shown(tmp_path: Path) -> None:
    """A run without calls, a record of an unknown type, a cut last line, a label naming
    no run: each counted, on the terminal (with --quiet too), in the JSON and on stderr."""
    folder = tmp_path / "runs"
    folder.mkdir()
    write_lines(folder / "quiet.jsonl", [{"role": "user", "content": "hi"}, {"role": "assistant"}])
    records = [*chat(["same"] * 3), {"role": "narrator", "content": "?"}]
    write_lines(folder / "odd.jsonl", records)
    cut = folder / "live.jsonl"
    write_lines(cut, chat(["a", "b"]))
    cut.write_text(cut.read_text() + '{"role": "assist', encoding="utf-8")
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"quiet": True, "odd": False, "gone": True}, indent=1))
    report = tmp_path / "fleet.jsonl"
    status, stdout, stderr = fleet(
        str(folder), "--outcomes", str(labels), "--json", str(report), "--quiet"
    )
    assert status == 2  # a record was left out; the rest is reported
    assert f"{folder / 'odd.jsonl'}:9: a chat message of unknown role 'narrator'" in stderr
    assert f"{labels}:4: a label for run 'gone'" in stderr
    assert "runs: 3 sessions or logs, 1 without calls" in stdout
    assert "labels: 2 of 3 matched a run" in stdout and "1 name no run" in stdout
    assert "warnings: 1 notices in 1 runs" in stdout  # the cut line
    assert "problems: 0 files or runs could not be replayed, 1 records left out" in stdout
    found = objects(report)
    summary = found[-1]
    assert (summary["skipped"], summary["notices"], summary["problems"]) == (1, 1, 0)
    assert summary["all"]["runsWithoutCalls"] == 1
    assert summary["labels"] == {"given": 3, "matched": 2}
    runs = {o["id"]: o for o in found if o["type"] == "run"}
    assert (runs["odd"]["skipped"], runs["odd"]["calls"]) == (1, 3)
    assert runs["live"]["notices"] == 1 and runs["live"]["calls"] == 2  # the run stands
    assert "cut short" in runs["live"]["noticeList"][0]["message"]
    problem = next(o for o in found if o["type"] == "problem")
    assert (problem["line"], problem["run"], problem["fatal"]) == (9, "odd", False)


def test_an_outcomes_file_that_names_no_run_says_so(tmp_path: Path) -> None:
    folder = corpus(tmp_path)
    (folder / "cut.json").unlink()
    (folder / "binary.jsonl").unlink()
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(json.dumps({"id": f"other-{i}", "success": True}) + "\n" for i in range(30))
    )
    status, stdout, stderr = fleet(str(folder), "--outcomes", str(labels))
    assert status == 2  # the labels could not be used
    assert "labels: 0 of 30 matched a run" in stdout and "0 labels matched" in stderr
    shown = [line for line in stderr.splitlines() if "which the corpus does not hold" in line]
    assert len(shown) == 20 and "... and 10 more labels that name no run" in stderr


def test_call_and_text_verdicts_are_counted_apart(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    write_lines(folder / "calls.jsonl", chat(["same"] * 3))
    texts = [
        {
            "kind": "response",
            "text": "I will check the build again now.",
            "calls": [{"name": "step", "arguments": {"n": n}}],
        }
        for n in range(6)
    ]
    write_lines(folder / "text.doomloop.jsonl", texts)
    report = tmp_path / "fleet.jsonl"
    status, stdout, _ = fleet(str(folder), "--json", str(report))
    assert status == 0
    everything = objects(report)[-1]["all"]
    # the call loop reaches block by its calls; the repeated text, its calls all
    # differing, reaches stop by the text streak (6 identical texts, MON-46; a text
    # verdict never blocks: below stop the engine applies observe, ENG-94)
    none = dict.fromkeys(RUNGS, 0)
    assert everything["runsReachingBy"]["calls"] == {**none, "observe": 1, "block": 1}
    assert everything["runsReachingBy"]["text"] == {**none, "observe": 1, "stop": 1}
    assert everything["runsInterferedBy"] == {"calls": 1, "text": 1}
    assert "  by a text verdict" in stdout and "  by a call verdict" in stdout


def test_a_dead_rung_is_marked_and_the_sweep_reads_without_labels(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, results in (("loop", ["same"] * 3), ("poll", ["a", "b", "c"]), ("ok", ["x"])):
        write_lines(folder / f"{name}.jsonl", chat(results))
    report = tmp_path / "sweep.jsonl"
    status, stdout, _ = fleet(str(folder), "--json", str(report), "--sweep", "block=3|6,stop=6")
    assert status == 0
    ladders = [o for o in objects(report) if o["type"] == "ladder"]
    assert [o["deadRungs"] for o in ladders] == [[], [{"rung": "block", "shadowedBy": "stop"}]]
    lines = stdout[stdout.index("sweep:") :].splitlines()
    # no labels: the columns count all runs (the loop and the poll reach block at 3)
    assert lines[2].split()[:4] == ["block=3", "stop=6", "2", "(66.7%)"]
    assert lines[3].endswith("(dead rung: block (stop wins))")
    assert "--outcomes FILE splits these" in stdout
