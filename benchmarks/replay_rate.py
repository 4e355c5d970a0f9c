"""Replay rate of ``doomloop-kit replay`` on a generated 100,000-message chat log.

Writes a chat log (JSON lines) of N messages -- assistant messages of one to
three parallel tool calls, each followed by its tool results, with polling
stretches that repeat so the ladder fires -- into a temporary folder, then
times the full command (reading, replaying, the timeline to /dev/null and
the JSON-lines report) and prints rounds per second, messages per second,
and the peak resident memory of the replay, measured in a child process at
two log sizes: the same peak at both sizes means memory does not grow with
the log.

    .venv/bin/python benchmarks/replay_rate.py [--messages 100000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOLS = ("read_file", "grep", "job_status")


def write_log(path: Path, messages: int) -> int:
    """A chat log of about ``messages`` messages; returns its number of rounds."""
    rounds = written = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"role": "user", "content": "Fix the build."}) + "\n")
        written += 1
        while written < messages:
            rounds += 1
            width = 1 + rounds % 3
            polling = (rounds // 20) % 2 == 1  # every other stretch of 20 rounds repeats
            calls = []
            for index in range(width):
                tool = TOOLS[(rounds + index) % len(TOOLS)]
                argument = 7 if polling else rounds * 10 + index
                calls.append(
                    {
                        "id": f"c{rounds}-{index}",
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps({"arg": argument})},
                    }
                )
            text = "Checking again." if polling else f"Step {rounds}."
            message = {"role": "assistant", "content": text, "tool_calls": calls}
            out.write(json.dumps(message) + "\n")
            written += 1
            for call in calls:
                result = {"role": "tool", "tool_call_id": call["id"], "content": "ok"}
                out.write(json.dumps(result) + "\n")
                written += 1
    return rounds


def replay_in_child(log: Path, report: Path) -> tuple[float, int]:
    """Seconds for the whole command and the child's peak RSS in KiB."""
    code = (
        "import resource, sys\n"
        "from doomloop_kit.conformance.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    command = [sys.executable, "-c", code, "replay", str(log), "--json", str(report)]
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"replay failed ({done.returncode}):\n{done.stderr}")
    return elapsed, int(done.stderr.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="replay-bench-") as folder:
        rows = []
        for messages in (args.messages // 10, args.messages):
            log = Path(folder) / f"log-{messages}.jsonl"
            rounds = write_log(log, messages)
            seconds, peak = replay_in_child(log, Path(folder) / "report.jsonl")
            rows.append((messages, rounds, log.stat().st_size, seconds, peak))
    print(
        f"{'messages':>9} {'rounds':>7} {'log MiB':>8} {'seconds':>8} "
        f"{'rounds/s':>9} {'messages/s':>11} {'peak RSS MiB':>13}"
    )
    for messages, rounds, size, seconds, peak in rows:
        print(
            f"{messages:>9} {rounds:>7} {size / 2**20:>8.1f} {seconds:>8.2f} "
            f"{rounds / seconds:>9.0f} {messages / seconds:>11.0f} {peak / 1024:>13.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
