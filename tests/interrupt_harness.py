"""Interrupting fleet replays at random moments, many times and fast.

A terminal's Ctrl-C (or a SIGTERM to the job) reaches the whole process
group: the command and its workers. To interrupt a hundred fleet runs in
seconds rather than minutes, one *harness* process runs the command
in-process again and again (``doomloop_kit.conformance.cli.main``, as the
``doomloop-kit`` script does, less Python's start-up), each run when the
driver asks for it; the driver (:func:`interrupt_runs`) sends SIGINT or
SIGTERM to the harness's process group at a random (seeded) moment of each
run. For every run the harness reports its exit status, what reached file
descriptor 2 meanwhile (the command's and its workers' stderr alike), the
child processes still alive when the command returned, the threads it left,
and whether the report file exists. A signal that lands between runs is
recorded by the harness and goes no further.

Used by tests/test_replay_interrupts.py (100 interrupts of ``--jobs 2``) and
benchmarks/fleet_interrupts.py (longer campaigns, ``--dask local`` too).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)
HELPERS = ("multiprocessing.resource_tracker",)
"""Children that live as long as the harness (the tracker Dask's spawned workers start)."""


def _live_children() -> list[str]:
    """This process's children that still run (not zombies), but its long-lived helpers."""
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        with contextlib.suppress(OSError):
            for pid in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                    command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                    text = command.decode(errors="replace").strip()
                    if state != "Z" and not any(helper in text for helper in HELPERS):
                        found.append(f"{pid} {text[:120]}")
    return found


@contextlib.contextmanager
def _captured(fd: int) -> Any:
    """What reaches file descriptor ``fd`` in the block (this process's and its children's)."""
    with tempfile.TemporaryFile() as captured:
        saved = os.dup(fd)
        os.dup2(captured.fileno(), fd)
        text: list[str] = []
        try:
            yield text
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved, fd)
            os.close(saved)
            captured.seek(0)
            text.append(captured.read().decode(errors="replace"))


def harness(corpus: str, out: str, arguments: list[str]) -> None:
    """Run the fleet command once per line read from stdin, reporting each run as a JSON
    line on the stdout it started with (the command's own stdout and stderr are captured)."""
    from doomloop_kit.conformance.cli import main

    protocol = os.fdopen(os.dup(1), "w")
    late: list[int] = []
    for signum in SIGNALS:
        signal.signal(signum, lambda number, frame: late.append(number))
    for line in sys.stdin:
        run = int(line)
        report = Path(out) / f"fleet-{run}.jsonl"
        argv = ["replay", corpus, "--progress", "none", "--json", str(report), *arguments]
        with _captured(2) as stderr, _captured(1):
            print(json.dumps({"started": run}), file=protocol, flush=True)
            status = main(argv)
        threads = [t.name for t in threading.enumerate() if not t.daemon]
        result = {
            "run": run,
            "status": status,
            "stderr": stderr[0],
            "children": _live_children(),
            "threads": [name for name in threads if name != "MainThread"],
            "report": report.exists(),
            "late": len(late),
        }
        report.unlink(missing_ok=True)
        print(json.dumps(result), file=protocol, flush=True)


class _Lines:
    """Lines from a pipe, each awaited with a deadline (a hung harness fails, never hangs)."""

    def __init__(self, stream: Any) -> None:
        self.fd, self.buffer = stream.fileno(), b""

    def next(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.fd], [], [], max(left, 0))
            if not ready:
                raise TimeoutError(f"the harness said nothing for {timeout} s")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise EOFError("the harness ended")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        found: dict[str, Any] = json.loads(line)
        return found


def interrupt_runs(
    corpus: Path,
    out: Path,
    arguments: list[str],
    *,
    interrupts: int,
    seed: int,
    window: tuple[float, float],
    most: int,
    timeout: float = 120.0,
) -> tuple[list[dict[str, Any]], str]:
    """Runs until ``interrupts`` of them were interrupted (at most ``most`` runs), each
    signalled ``window`` seconds (uniform, seeded) after it started; every run's report
    (with its ``signal``), and what the harness wrote to stderr besides."""
    rng = random.Random(seed)
    command = [sys.executable, __file__, "harness", str(corpus), str(out), *arguments]
    results: list[dict[str, Any]] = []
    # stderr to a file, not a pipe: a process left behind cannot keep the driver waiting
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            start_new_session=True,  # a process group of its own, as a terminal's job has
        )
        assert child.stdin is not None and child.stdout is not None
        lines = _Lines(child.stdout)
        try:
            interrupted = 0
            for run in range(most):
                if interrupted >= interrupts:
                    break
                signum = rng.choice(SIGNALS)
                delay = rng.uniform(*window)
                child.stdin.write(f"{run}\n".encode())
                child.stdin.flush()
                lines.next(timeout)
                time.sleep(delay)
                os.killpg(child.pid, signum)
                result = lines.next(timeout)
                result.update(signal=signal.Signals(signum).name, delay=round(delay, 4))
                interrupted += result["status"] == 128 + signum
                results.append(result)
        finally:
            child.stdin.close()
            try:
                child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
            child.stdout.close()
            errors.seek(0)
            stderr = errors.read().decode(errors="replace")
    return results, stderr


def problems(result: dict[str, Any]) -> list[str]:
    """What is wrong with how one run ended (nothing: a clean end)."""
    found = []
    name = result["signal"]
    if result["status"] == 128 + signal.Signals[name]:
        if result["stderr"] != f"doomloop-kit: interrupted by {name}\n":
            found.append(f"stderr is not the one line: {result['stderr']!r}")
        if result["report"]:
            found.append("the report was written")
    elif result["status"] == 0:  # done before the signal came
        if result["stderr"]:
            found.append(f"a finished run wrote to stderr: {result['stderr']!r}")
        if not result["report"]:
            found.append("a finished run wrote no report")
    else:
        found.append(f"exit status {result['status']}: {result['stderr']!r}")
    if result["children"]:
        found.append(f"processes left behind: {result['children']}")
    if result["threads"]:
        found.append(f"threads left behind: {result['threads']}")
    return found


if __name__ == "__main__" and sys.argv[1:2] == ["harness"]:
    harness(sys.argv[2], sys.argv[3], sys.argv[4:])
