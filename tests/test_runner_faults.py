"""The runner against misbehaving harnesses: every fault is named, nothing hangs or leaks."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harnesses import support

SMALL = ["--family", "fanout", "--family", "state"]  # 7 fixture vectors


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.fixture_root(tmp_path_factory.mktemp("vectors"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _left_behind(pids: list[int]) -> list[int]:
    """The pids still alive after a short grace (SIGKILL is delivered asynchronously)."""
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if _alive(pid)]


def _pids(pidfile: Path) -> list[int]:
    return [int(line) for line in pidfile.read_text().split()] if pidfile.exists() else []


@pytest.mark.parametrize(
    ("fault", "cause", "text"),
    [
        ("crash", "crash", "exit status 3"),
        ("hang", "timeout", "within 2 s"),
        ("garbage", "non-json", "this is not JSON"),
        ("wrong-id", "wrong-id", "got id 1003"),
        ("early-exit", "crash", "exit status 0"),
        ("huge-line", "huge-line", "longer than 1000000 bytes"),
        ("stderr-flood", "crash", "exit status 3"),
        ("internal-error", "error-internal", "deliberate internal failure"),
    ],
)
def test_fault_costs_one_vector(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, cause: str, text: str
) -> None:
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("FAULT_ONCE", str(tmp_path / "once"))
    monkeypatch.setenv("FAULT_PIDFILE", str(pidfile))
    started = time.monotonic()
    status, lines = support.run(
        [
            "--vectors",
            str(root),
            "--port",
            support.fault(fault, 3),
            "--timeout",
            "2" if fault == "hang" else "10",
            "--max-line-bytes",
            "1000000",
            "--window",
            "1",  # one vector at a time: the fault is charged to a known step
            *SMALL,
        ],
        tmp_path / "report.jsonl",
    )
    assert time.monotonic() - started < 20
    assert status == 3  # a vector errored
    errored = support.by_status(lines, "errored")
    assert len(errored) == 1, errored
    error = errored[0]["error"]
    assert error["cause"] == cause
    assert text in error["message"]
    assert error["step"] == 1 and error["op"] == "recordToolCall"  # the 3rd request
    assert errored[0]["transcript"][0].startswith('> {"id":0,"op":"hello"')
    if fault != "internal-error":  # a protocol fault: the harness said why on stderr
        assert any(f"committing {fault}" in line for line in error["stderr"])
        assert len(error["stderr"]) <= 50
        assert lines[-1]["restarts"] == 1
    assert len(support.by_status(lines, "passed")) == 6
    footer = lines[-1]
    assert footer["type"] == "footer" and footer["totals"]["errored"] == 1
    pids = _pids(pidfile)
    # two harness processes (one after a protocol fault), each with a grandchild
    assert len(pids) == (2 if fault == "internal-error" else 4)
    assert not _left_behind(pids), "processes left behind"


@pytest.mark.parametrize("fault", ["crash", "garbage", "hang"])
def test_fault_in_a_full_window_reruns_the_innocent(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """Vectors in flight when another vector's request breaks the harness run again."""
    monkeypatch.setenv("FAULT_ONCE", str(tmp_path / "once"))
    status, lines = support.run(
        ["--vectors", str(root), "--port", support.fault(fault, 5), "--timeout", "2"],
        tmp_path / "report.jsonl",
    )
    assert status == 3
    vectors = [line for line in lines if line["type"] == "vector"]
    selected = [v.id for f in support.fixtures.build_files().values() for v in f.vectors]
    assert [line["id"] for line in vectors] == selected  # each once, in selection order
    (errored,) = support.by_status(lines, "errored")
    assert "request 5 " in errored["error"]["message"]
    assert len(support.by_status(lines, "passed")) == len(selected) - 1
    assert lines[-1]["restarts"] == 1


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("no-handshake", "no response to request 0 (hello) within 2 s"),
        ("version-mismatch", "does not speak protocol 1: this harness speaks protocol 2"),
        ("old-protocol", "the harness speaks protocol 7, this runner speaks 1"),
        ("protocol-true", "the harness speaks protocol true, this runner speaks 1"),
        ("bad-hello", "lacks implementation name/language/version"),
    ],
)
def test_unusable_harness_is_a_clear_error(
    root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
    message: str,
) -> None:
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("FAULT_PIDFILE", str(pidfile))
    status, lines = support.run(
        ["--vectors", str(root), "--port", support.fault(fault), "--startup-timeout", "2"],
        tmp_path / "report.jsonl",
    )
    assert status == 3  # the run was aborted
    out = capsys.readouterr().out
    assert "the harness is unusable" in out and message in out
    assert lines[0]["type"] == "header" and lines[0]["harness"] is None
    assert lines[-1]["type"] == "footer" and message in lines[-1]["aborted"]
    assert not _left_behind(_pids(pidfile))


def test_restart_budget_ends_the_run(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # crashes on every harness's 2nd request: each restart costs one more vector
    status, lines = support.run(
        ["--vectors", str(root), "--port", support.fault("crash", 2), "--max-restarts", "2"],
        tmp_path / "report.jsonl",
    )
    assert status == 3
    footer = lines[-1]
    assert footer["status"] == "aborted"
    assert footer["totals"]["errored"] == 3
    assert footer["totals"]["not-run"] > 0
    assert "restart budget (--max-restarts 2) is spent" in footer["aborted"]
    out = capsys.readouterr().out
    assert "run ended early" in out
    passed = footer["totals"]["passed"]
    not_run = footer["totals"]["not-run"]
    last = f"{passed} passed, 0 failed, 3 errored, 0 skipped, {not_run} not run"
    assert out.rstrip().splitlines()[-1] == last


def test_harness_that_does_not_start(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _ = support.run(["--vectors", str(root), "--port", "exit 7"])
    assert status == 3
    assert (
        "closed stdout before answering request 0 (hello) (exit status 7)"
        in capsys.readouterr().out
    )


def test_killed_runner_leaves_no_stale_report(root: Path, tmp_path: Path) -> None:
    """A runner killed mid-run (no chance to write) leaves a report saying the run did
    not finish, never the previous one."""
    report = tmp_path / "report.jsonl"
    report.write_text('{"type": "footer", "exitStatus": 0}\n')  # a previous all-green run
    pidfile = tmp_path / "pids"
    runner = _spawn_runner(root, report, pidfile, "hang")
    _wait_for(pidfile)
    runner.kill()  # SIGKILL: no chance to clean up, so the test ends the harness itself
    runner.wait(10)
    for pid in _pids(pidfile)[:1]:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(os.getpgid(pid), signal.SIGKILL)
    header, footer = (json.loads(line) for line in report.read_text().splitlines())
    assert header["type"] == "header"
    assert footer["status"] == "unfinished" and footer["exitStatus"] is None
    assert not list(tmp_path.glob(".report.jsonl.*"))


def _spawn_runner(root: Path, report: Path, pidfile: Path, fault: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FAULT_PIDFILE": str(pidfile)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "doomloop_kit.conformance.cli",
            "conformance",
            "run",
            "--vectors",
            str(root),
            "--port",
            support.fault(fault, 2),
            "--timeout",
            "60",
            "--report-json",
            str(report),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _wait_for(pidfile: Path) -> None:
    deadline = time.monotonic() + 20
    while len(_pids(pidfile)) < 2:
        assert time.monotonic() < deadline, "the harness never started"
        time.sleep(0.05)
    time.sleep(0.5)  # let the runner reach the hanging request


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_kills_the_harness_group(
    root: Path, tmp_path: Path, signum: int, status: int
) -> None:
    pidfile = tmp_path / "pids"
    runner = _spawn_runner(root, tmp_path / "report.jsonl", pidfile, "hang")
    _wait_for(pidfile)
    started = time.monotonic()
    runner.send_signal(signum)
    output, _ = runner.communicate(timeout=15)
    assert time.monotonic() - started < 10
    assert runner.returncode == status, output
    assert b"interrupted" in output
    pids = _pids(pidfile)
    assert len(pids) == 2
    assert not _left_behind(pids), "harness or grandchild left behind"
