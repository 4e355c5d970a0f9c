"""Issue 23: reports and files a CI can trust, whatever fails around the kit.

A matrix of the ways the machine around the kit fails -- a report path that
is a device, a link or a clash; a closed stdout; a full disk; signals at any
moment, repeated; a regeneration killed between two steps -- each on real
processes with real signals (and a real full filesystem where the machine
lets a test mount one). Each row checks the exit status, the one line on
stderr (never a traceback) and what the files say afterwards
(docs/guide/ci.md, "How a run ends"). The harness-side rows are in
test_hostile_lines.py; the vector set's validation in test_runner_trust.py;
the installed kit's in test_installed_kit.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.conformance import outcomes
from doomloop_kit.generators import regenerate
from harnesses import support

REPO = support.REPO
KIT = [sys.executable, "-m", "doomloop_kit.conformance.cli"]
PREVIOUS = '{"type": "footer", "status": "complete", "exitStatus": 0}\n'
"""A previous run's green report, which must never outlive a run that was not."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return support.fixture_root(tmp_path / "vectors")


def _run_args(root: Path | None, port: str, *extra: str) -> list[str]:
    where = [] if root is None else ["--vectors", str(root)]
    return [*KIT, "conformance", "run", *where, "--port", port, "--progress", "lines", *extra]


def _kit(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)


def _one_line(stderr: str) -> str:
    """The run's stderr is one line (no traceback); that line."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def _lines(report: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def _junit_status(junit: Path) -> str | None:
    node = ET.parse(junit).getroot().find("properties/property[@name='status']")
    return None if node is None else node.get("value")


# -- where a report goes -----------------------------------------------------------------


def test_a_fifo_or_device_report_path_is_written_through_never_replaced(
    root: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    targets = ["--report-json", str(fifo)]
    device = tmp_path / "null"
    with contextlib.suppress(PermissionError):  # a device node of our own needs root
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        targets += ["--junit-xml", str(device)]
    done = _kit(_run_args(root, support.REFERENCE, "--family", "state", *targets))
    reader.join(30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    lines = [json.loads(line) for line in received[0].decode().splitlines()]
    assert lines[0]["type"] == "header" and lines[-1]["status"] == "complete"
    if device.exists():
        assert stat.S_ISCHR(device.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["vectors", "report.fifo", *(["null"] if device.exists() else [])]
    )


def test_a_report_path_that_is_our_own_stdout_gets_the_report_through_it(root: Path) -> None:
    """`--report-json /dev/stdout` (here a link to it in a folder of the test's own)."""
    link = root.parent / "stdout"
    link.symlink_to("/proc/self/fd/1")
    done = _kit(_run_args(root, support.REFERENCE, "--family", "state", "--report-json", str(link)))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    footer = json.loads(done.stdout.splitlines()[-1])
    assert footer["type"] == "footer" and footer["status"] == "complete"


def test_a_symlinked_report_path_is_followed_and_stays_a_link(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "kept" / "report.jsonl"
    target.parent.mkdir()
    target.write_text(PREVIOUS)
    link = tmp_path / "report.jsonl"
    link.symlink_to(target)
    done = _kit(_run_args(root, support.REFERENCE, "--family", "state", "--report-json", str(link)))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == target
    assert _lines(target)[-1]["status"] == "complete"


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_every_written_file_honours_the_umask(
    root: Path, tmp_path: Path, umask: int, mode: int
) -> None:
    outputs = {
        "--report-json": tmp_path / "r.jsonl",
        "--junit-xml": tmp_path / "j.xml",
        "--write-expected-failures": tmp_path / "x.txt",
    }
    args = [word for option, path in outputs.items() for word in (option, str(path))]
    done = _kit(
        _run_args(root, support.REFERENCE, "--family", "state", *args),
        preexec_fn=lambda: os.umask(umask),
    )
    assert done.returncode == 0, done.stderr
    replay = tmp_path / "replay.html"
    done = _kit(
        [*KIT, "replay", "example:text-loop", "--quiet", "--html", str(replay)],
        preexec_fn=lambda: os.umask(umask),
    )
    assert done.returncode == 0, done.stderr
    for path in [*outputs.values(), replay]:
        assert stat.S_IMODE(path.stat().st_mode) == mode, path


def test_two_outputs_naming_one_file_are_refused_before_the_run(root: Path, tmp_path: Path) -> None:
    started = tmp_path / "started"
    port = f"touch {started}; exit 1"
    same = tmp_path / "same"
    (tmp_path / "alias").symlink_to(same)
    same.write_text(PREVIOUS)
    os.link(same, tmp_path / "hard")
    for second in (same, tmp_path / "alias", tmp_path / "hard"):
        args = ["--report-json", str(same), "--junit-xml", str(second)]
        done = _kit(_run_args(root, port, *args))
        assert done.returncode == outcomes.ExitStatus.USAGE
        line = _one_line(done.stderr)
        assert f"--junit-xml {second}: names the same file as --report-json {same}" in line
        assert not started.exists() and same.read_text() == PREVIOUS
    done = _kit(  # replay's outputs too
        [*KIT, "replay", "example:text-loop", "--json", str(same), "--html", str(same)]
    )
    assert done.returncode == 2 and "names the same file as --json" in done.stderr
    assert same.read_text() == PREVIOUS


# -- a closed stdout -------------------------------------------------------------------------


def test_a_closed_stdout_stops_the_run_and_no_report_says_complete(tmp_path: Path) -> None:
    """`conformance run ... | head -2` (the issue's reproduction, on the committed set)."""
    report, junit = tmp_path / "r.jsonl", tmp_path / "j.xml"
    report.write_text(PREVIOUS)
    runner = subprocess.Popen(
        _run_args(None, support.REFERENCE, "--report-json", str(report), "--junit-xml", str(junit)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert runner.stdout is not None and runner.stderr is not None
    for _ in range(2):
        runner.stdout.readline()
    runner.stdout.close()
    stderr = runner.stderr.read().decode()
    assert runner.wait(120) == int(outcomes.ExitStatus.STDOUT_CLOSED) == 141
    assert "stdout was closed" in _one_line(stderr)
    footer = _lines(report)[-1]
    assert footer["status"] == "interrupted" and footer["exitStatus"] == 141
    assert footer["reason"].startswith("stdout was closed") and footer["notRun"] > 0
    assert _junit_status(junit) == "interrupted"
    assert ET.parse(junit).getroot().get("errors") != "0"


@pytest.mark.parametrize(
    "command",
    [
        ["replay", "example:repeated-fan-out", "--json", "{tmp}/replay.jsonl"],
        ["conformance", "fuzz", "--port", support.REFERENCE, "--examples", "5"],
    ],
    ids=["replay", "fuzz"],
)
def test_a_closed_stdout_ends_every_command_with_141_and_one_line(
    tmp_path: Path, command: list[str]
) -> None:
    args = [word.replace("{tmp}", str(tmp_path)) for word in command]
    process = subprocess.Popen(
        [*KIT, *args, *(["--out", str(tmp_path)] if "fuzz" in args else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    process.stdout.close()  # nobody reads: the first line written finds the pipe closed
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 141, stderr
    assert _one_line(stderr) == "doomloop-kit: stdout was closed; stopped"
    assert not (tmp_path / "replay.jsonl").exists()  # a replay cut short writes no report


# -- a full disk -----------------------------------------------------------------------------


def _namespace() -> list[str] | None:
    """A command prefix giving a private mount namespace (root, or a user namespace)."""
    if shutil.which("unshare") is None:
        return None
    probe_dir = Path(os.environ.get("TMPDIR", "/tmp"))
    prefixes = [["unshare", "--mount"]] if os.geteuid() == 0 else []
    prefixes.append(["unshare", "--user", "--map-root-user", "--mount"])
    for prefix in prefixes:
        probe = f"mount -t tmpfs -o size=16k tmpfs {shlex.quote(str(probe_dir))}"
        done = subprocess.run([*prefix, "sh", "-c", probe], capture_output=True, timeout=30)
        if done.returncode == 0:
            return prefix
    return None


@pytest.fixture(scope="module")
def namespace() -> list[str]:
    prefix = _namespace()
    if prefix is None:
        pytest.skip(
            "cannot mount a small tmpfs here: needs root or unprivileged user namespaces "
            "(unshare --user --map-root-user --mount)"
        )
    return prefix


def _on_a_full_disk(
    namespace: list[str], tmp_path: Path, root: Path, port: str, *, fill_first: bool
) -> tuple[int, str, str, list[str]]:
    """Run the runner with its report on a 64 KiB tmpfs already holding a previous report;
    the disk is filled before the run (``fill_first``) or by the harness as it starts.
    Returns (exit status, stderr, the report's text after, the tmpfs's listing)."""
    disk, out = tmp_path / "disk", tmp_path / "out"
    disk.mkdir()
    out.mkdir()
    fill = f"cat /dev/zero > {disk}/fill 2>/dev/null"
    if not fill_first:
        port = f"sh -c {shlex.quote(f'{fill}; exec {port}')}"
    run = shlex.join(_run_args(root, port, "--report-json", str(disk / "r.jsonl")))
    script = "\n".join(
        [
            f"mount -t tmpfs -o size=64k tmpfs {disk} || exit 99",
            f"printf '%s' {shlex.quote(PREVIOUS)} > {disk}/r.jsonl",
            fill if fill_first else ":",
            f"{run} > {out}/stdout 2> {out}/stderr",
            f"echo $? > {out}/status",
            f"cp {disk}/r.jsonl {out}/report",
            f"ls -A {disk} > {out}/listing",
        ]
    )
    done = subprocess.run([*namespace, "sh", "-c", script], capture_output=True, timeout=300)
    assert done.returncode != 99, done.stderr
    status = int((out / "status").read_text())
    listing = (out / "listing").read_text().split()
    return status, (out / "stderr").read_text(), (out / "report").read_text(), listing


def test_a_full_disk_before_the_run_keeps_the_previous_report(
    namespace: list[str], root: Path, tmp_path: Path
) -> None:
    status, stderr, report, listing = _on_a_full_disk(
        namespace, tmp_path, root, support.REFERENCE, fill_first=True
    )
    assert status == int(outcomes.ExitStatus.UNWRITTEN) == 4
    assert "No space left on device" in _one_line(stderr)
    assert report == PREVIOUS  # left as it was: replaced whole or not at all
    assert sorted(listing) == ["fill", "r.jsonl"]  # no temporary file left


def test_a_disk_that_fills_during_the_run_leaves_an_unfinished_report(
    namespace: list[str], root: Path, tmp_path: Path
) -> None:
    status, stderr, report, listing = _on_a_full_disk(
        namespace, tmp_path, root, support.REFERENCE, fill_first=False
    )
    assert status == 4
    assert "cannot write --report-json" in _one_line(stderr)
    footer = json.loads(report.splitlines()[-1])
    assert footer["status"] == "unfinished" and footer["exitStatus"] is None
    assert sorted(listing) == ["fill", "r.jsonl"]


# -- signals -----------------------------------------------------------------------------


def _spawn(args: list[str], **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def _wait_until(predicate: Any, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def _unfinished(report: Path) -> bool:
    with contextlib.suppress(OSError, ValueError, IndexError):
        return bool(_lines(report)[-1]["status"] == "unfinished")
    return False


def _left_behind(pidfile: Path) -> list[int]:
    """The recorded processes still running after a short grace (a zombie is gone)."""

    def alive(pid: int) -> bool:
        with contextlib.suppress(OSError, IndexError):
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        return False

    pids = [int(pid) for pid in pidfile.read_text().split()]
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def _signal_three_times(process: subprocess.Popen[str], signum: int) -> str:
    """Send ``signum``, then twice more within ~10 ms; the process's stderr."""
    for _ in range(3):
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)
        time.sleep(0.005)
    _, stderr = process.communicate(timeout=60)
    return stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signals_while_loading_write_every_report_saying_so(tmp_path: Path, signum: int) -> None:
    """The committed set on a cold cache takes seconds to validate: the signals land
    while it loads, once the run has replaced the previous report by an unfinished one."""
    report, junit, known = tmp_path / "r.jsonl", tmp_path / "j.xml", tmp_path / "known.txt"
    report.write_text(PREVIOUS)
    junit.write_text("<testsuite tests='1' failures='0'/>")
    known.write_text("facts/*  # kept: nothing was run\n")
    args = ["--report-json", str(report), "--junit-xml", str(junit)]
    args += ["--write-expected-failures", str(known)]
    runner = _spawn(
        _run_args(None, support.REFERENCE, *args), DOOMLOOP_KIT_CACHE=str(tmp_path / "cache")
    )
    _wait_until(lambda: _unfinished(report), "the unfinished report")
    stderr = _signal_three_times(runner, signum)
    assert runner.returncode == 128 + signum, stderr
    name = signal.Signals(signum).name
    assert f"interrupted: interrupted by {name} while" in _one_line(stderr)
    footer = _lines(report)[-1]
    assert footer["status"] == "interrupted" and footer["exitStatus"] == 128 + signum
    assert footer["notRun"] is None  # no selection was made: how many is not known
    assert _junit_status(junit) == "interrupted"
    assert known.read_text() == "facts/*  # kept: nothing was run\n"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_repeated_signals_mid_run_cannot_cut_the_reports_short(
    root: Path, tmp_path: Path, signum: int
) -> None:
    report, junit, xfail = tmp_path / "r.jsonl", tmp_path / "j.xml", tmp_path / "x.txt"
    pidfile = tmp_path / "pids"
    args = ["--report-json", str(report), "--junit-xml", str(junit)]
    args += ["--write-expected-failures", str(xfail), "--timeout", "60"]
    runner = _spawn(_run_args(root, support.fault("hang", 4), *args), FAULT_PIDFILE=str(pidfile))
    _wait_until(lambda: pidfile.exists() and len(pidfile.read_text().split()) >= 2, "the harness")
    time.sleep(0.3)  # three vectors judged, the fourth hangs
    stderr = _signal_three_times(runner, signum)
    assert runner.returncode == 128 + signum, stderr
    assert "interrupted" in _one_line(stderr)
    lines = _lines(report)
    footer = lines[-1]
    assert footer["status"] == "interrupted" and footer["notRun"] > 0
    assert footer["totals"]["passed"] >= 3
    assert len(lines) == sum(footer["totals"].values()) + 2  # every selected vector, listed
    assert _junit_status(junit) == "interrupted"
    assert "# run status: interrupted" in xfail.read_text()
    assert _left_behind(pidfile) == []  # the harness and its child are gone


@pytest.mark.parametrize("command", ["fuzz", "regenerate"])
def test_ctrl_c_ends_fuzz_and_regenerate_with_130_and_one_line(
    tmp_path: Path, command: str
) -> None:
    if command == "fuzz":
        args = ["conformance", "fuzz", "--port", support.fault("none"), "--examples", "500"]
        args += ["--out", str(tmp_path / "found")]
    else:
        args = ["vectors", "regenerate", "--root", str(tmp_path / "vectors")]
    pidfile = tmp_path / "pids"
    process = _spawn([*KIT, *args], FAULT_PIDFILE=str(pidfile))
    time.sleep(1.5)  # drawing (both use Hypothesis), nothing written yet
    stderr = _signal_three_times(process, signal.SIGINT)
    assert process.returncode == 130, stderr
    assert _one_line(stderr) == "doomloop-kit: interrupted by SIGINT"
    assert not (tmp_path / "vectors").exists() and regenerate.debris(tmp_path / "vectors") == []
    if pidfile.exists():  # the fuzzed harness did not outlive the fuzzer
        assert _left_behind(pidfile) == []


def test_ctrl_c_on_a_fleet_replay_reaches_its_workers_without_a_traceback(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group: the `--jobs` workers
    (forked) leave it to the command, which stops them and says so once."""
    corpus = tmp_path / "runs"
    corpus.mkdir()
    log = (REPO / "replay" / "logs" / "polling-loop.chat.jsonl").read_bytes()
    for index in range(4000):
        (corpus / f"run{index}.chat.jsonl").write_bytes(log)
    report = tmp_path / "fleet.jsonl"
    process = subprocess.Popen(
        [*KIT, "replay", str(corpus), "--jobs", "2", "--json", str(report)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    workers = ["pgrep", "-P", str(process.pid)]
    _wait_until(
        lambda: len(subprocess.run(workers, capture_output=True).stdout.split()) >= 2, "the workers"
    )
    time.sleep(0.2)  # they are replaying (4,000 logs take seconds)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert _one_line(stderr) == "doomloop-kit: interrupted by SIGINT"
    assert not report.exists()
    _wait_until(
        lambda: subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True).returncode,
        "the workers to end",
        10,
    )


# -- a regeneration killed at any step -------------------------------------------------------


def _manifest(*paths: str) -> bytes:
    """A manifest listing ``paths``: what a regeneration owns (issue 34)."""
    return json.dumps({"files": [{"path": path} for path in paths]}).encode() + b"\n"


OLD = {
    "manifest.json": _manifest("curated/a.json", "curated/gone.json", "generated/b.json"),
    "curated/a.json": b"old a\n",
    "curated/gone.json": b"old, not produced any more\n",
    "generated/b.json": b"old b\n",
}
NEW = {
    "manifest.json": _manifest("curated/a.json", "curated/added.json", "generated/b.json"),
    "curated/a.json": b"new a\n",
    "curated/added.json": b"new, added\n",
    "generated/b.json": b"new b\n",
}
STEPS = ("os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.link", "shutil.rmtree")
"""Audit events of the file-system steps a kill lands before (one per step)."""

_KILLABLE = """
import sys, time
from pathlib import Path
from doomloop_kit.generators import regenerate
root, kill_at, marker = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
steps, seen = set(sys.argv[4].split(",")), []
def hook(event, args):
    if event in steps:
        seen.append(event)
        if len(seen) == kill_at:
            marker.write_text(event)
            time.sleep(60)
new = {name: text.encode() for name, text in %r.items()}
sys.addaudithook(hook)
regenerate.write_all(root, new)
print(len(seen))
"""


def _owned(root: Path) -> dict[str, bytes]:
    return {
        name: (root / name).read_bytes()
        for name in sorted(regenerate.existing_files(root))
        if not name.endswith(".tmp")
    }


def _old_set(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
    for name, data in OLD.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "README.md").write_text("the user's\n")


def _killable(root: Path, kill_at: int, marker: Path) -> subprocess.Popen[str]:
    script = _KILLABLE % {name: data.decode() for name, data in NEW.items()}
    return subprocess.Popen(
        [sys.executable, "-c", script, str(root), str(kill_at), str(marker), ",".join(STEPS)],
        stdout=subprocess.PIPE,
        text=True,
    )


def _steps_of_one_regeneration(root: Path, tmp_path: Path) -> int:
    _old_set(root)
    done = _killable(root, 0, tmp_path / "never")
    out, _ = done.communicate(timeout=120)
    assert done.returncode == 0
    return int(out)


@pytest.fixture
def kill_points(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    root = tmp_path / "set"
    yield root, _steps_of_one_regeneration(root, tmp_path)


def test_a_regeneration_killed_at_any_step_leaves_the_old_set_or_the_new_one(
    kill_points: tuple[Path, int], tmp_path: Path
) -> None:
    root, steps = kill_points
    assert steps >= 3
    sets = []
    for kill_at in range(1, steps + 1):
        _old_set(root)
        marker = tmp_path / f"killed-{kill_at}"
        process = _killable(root, kill_at, marker)
        _wait_until(marker.exists, f"step {kill_at}")
        process.kill()
        process.wait(30)
        found = _owned(root)
        assert found in (OLD, NEW), f"killed before step {kill_at} ({marker.read_text()}): a mix"
        assert (root / "README.md").read_text() == "the user's\n"
        sets.append("old" if found == OLD else "new")
        leftovers = regenerate.debris(root)  # what --check names and the next run removes
        regenerate.write_all(root, NEW)
        assert _owned(root) == NEW and regenerate.debris(root) == []
        assert all(not path.exists() for path in leftovers)
    assert sets[0] == "old" and sets[-1] == "new"


# -- the smaller items ---------------------------------------------------------------------


def test_every_documented_exit_status_is_the_runners() -> None:
    """PROT-13 said 2 where P.11 and the runner said 3; the guide, the spec and the
    code now name the same statuses."""
    spec = (REPO / "spec" / "protocol.md").read_text(encoding="utf-8")
    guide = (REPO / "docs" / "guide" / "ci.md").read_text(encoding="utf-8")
    prot13 = spec[spec.index('id="PROT-13"') : spec.index('id="PROT-14"')]
    assert "exit status 3" in prot13 and int(outcomes.ExitStatus.ERRORED) == 3
    running = spec[spec.index("{#prot-running}") :]
    statuses = {int(status) for status in outcomes.ExitStatus}
    assert _statuses(running, "| status | meaning |", 0) == statuses
    ends = guide[guide.index("{#how-a-run-ends}") :]
    assert _statuses(ends, "| how the run ended | exit |", 1) == statuses


def _statuses(text: str, header: str, column: int) -> set[int]:
    """The numbers in one column of the Markdown table starting with ``header``."""
    table = text[text.index(header) :].split("\n\n")[0].splitlines()[2:]
    return {int(n) for row in table for n in re.findall(r"\d+", row.split("|")[column + 1])}


def test_a_malformed_vector_file_or_log_is_named_without_at_at(tmp_path: Path) -> None:
    root = support.fixture_root(tmp_path / "vectors")
    (root / "curated" / "text.json").write_text('{"format": 1, "kind": "cur')
    done = _kit(_run_args(root, "true"))
    assert done.returncode == 2
    assert "not JSON: Unterminated string at line 1 column" in done.stdout
    assert "at at" not in done.stdout + done.stderr
    log = tmp_path / "log.jsonl"
    log.write_text('{"role": "user", "content": "cut\n')
    done = _kit([*KIT, "replay", str(log)])
    assert done.returncode == 2 and "at at" not in done.stderr
    assert f"{log}:1: not JSON: Invalid control character" in done.stderr


def test_a_manifest_in_a_loop_of_links_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").symlink_to(tmp_path / "manifest.json")
    done = _kit(_run_args(tmp_path, "true"))
    assert done.returncode == 2
    assert "manifest.json: cannot read: Too many levels of symbolic links" in done.stdout
    assert "has no manifest.json" not in done.stdout


def test_replay_names_the_line_of_bytes_that_are_not_utf8_and_skips_a_bom(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(
        b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "\xff"}\n'
    )
    done = _kit([*KIT, "replay", str(log), "--quiet"])
    assert done.returncode == 2
    assert f"{log}:2: the log is not UTF-8 text" in done.stderr
    log.write_bytes(b'\xef\xbb\xbf{"role": "user", "content": "hi"}\n')
    done = _kit([*KIT, "replay", str(log), "--quiet"])
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("grid", ["block=-1..2", "observe=0", "block=3|0"])
def test_a_sweep_threshold_below_one_is_refused(grid: str) -> None:
    """Below 1 a rung runs its default (CFG-11): the row would be labelled wrongly."""
    done = _kit([*KIT, "replay", "example:repeated-fan-out", "--sweep", grid])
    assert done.returncode == 2
    assert "a threshold is a whole number of 1 or more, or false" in done.stderr


def test_the_shipped_profiles_are_named_without_a_path(root: Path) -> None:
    """`--expected-failures profile:NAME`: from a checkout and an installed kit alike
    (test_installed_kit.py runs it from a wheel)."""
    known = ["--expected-failures", "profile:sdk-0.9.0"]
    done = _kit([*_run_args(root, support.REFERENCE, "--family", "state"), *known])
    assert done.returncode == 0, done.stdout + done.stderr
    done = _kit([*_run_args(root, support.REFERENCE), "--expected-failures", "profile:nope"])
    assert done.returncode == 2
    assert "the kit ships no profile 'nope' (shipped profiles: sdk-0.9.0" in done.stdout
    assert "sdk-engine-0.9.0" in done.stdout  # any conformance/profiles/*.txt is nameable


def test_an_errored_vector_is_not_called_failed(root: Path) -> None:
    done = _kit(_run_args(root, support.fault("internal-error", 2), "--family", "state"))
    assert done.returncode == 3
    last = done.stdout.rstrip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed, 0 failed, 1 errored, 0 skipped", last), last
    assert "0 failed, 1 errored" in _one_line(done.stderr)


def test_an_interrupt_swallowed_by_a_gc_callback_is_not_reported() -> None:
    """A signal handled inside a garbage-collector callback raises where Python can only
    report the exception (a traceback on stderr); the command's one line on stderr must
    stay one line (the module's watcher raises the interrupt again). Other exceptions
    still reach the hook that was there before."""
    import gc

    from doomloop_kit.conformance import interrupts

    def interrupted(phase: str, info: dict[str, int]) -> None:
        raise interrupts.Interrupted(signal.SIGINT)

    def broken(phase: str, info: dict[str, int]) -> None:
        raise RuntimeError("a bug in a callback")

    reported: list[BaseException | None] = []
    saved = sys.unraisablehook
    sys.unraisablehook = lambda report: reported.append(report.exc_value)
    restore = interrupts.install()
    try:
        for callback in (interrupted, broken):
            gc.callbacks.append(callback)
            try:
                gc.collect()
            finally:
                gc.callbacks.remove(callback)
    finally:
        restore()
        sys.unraisablehook = saved
    assert [type(error) for error in reported] == [RuntimeError, RuntimeError]


def test_a_library_failing_while_it_handles_an_interrupt_ends_as_the_interrupt() -> None:
    """Hypothesis can fail an assertion in its own KeyboardInterrupt path: the exception
    that leaves the block was raised while handling the interrupt, which is what ends
    the command (exit 130 and one line), not the library's exception."""
    from doomloop_kit.conformance import interrupts

    restore = interrupts.install()
    try:
        with pytest.raises(interrupts.Interrupted) as raised, interrupts.interruptible():
            try:
                raise interrupts.Interrupted(signal.SIGINT)
            except KeyboardInterrupt:
                raise AssertionError("the library's own bookkeeping") from None
        assert raised.value.exit_status == 130
        with pytest.raises(ValueError), interrupts.interruptible():
            raise ValueError("no interrupt behind it")
    finally:
        restore()
