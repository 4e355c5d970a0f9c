"""What hostile logs cost ``doomloop-kit replay``: time and peak memory, printed.

Each case is a log written into a temporary folder and replayed by the
command in a child process (its peak resident memory read from
``getrusage``), issue 34's cases 8 and 15:

* a JSON-document log whose second element is one string of N MiB, on a
  line of its own (the reader meets it through its window): the time grows
  linearly with N (it was quadratic: 16 MiB took 3.9 s, 64 MiB 55 s);
* a JSON-lines log whose line is N MiB of text;
* ``truncate -s 2G``: two gigabytes of NUL bytes and no line feed, refused at
  its first line after 256 MiB, in bounded memory (it peaked at 4.2 GB);
* a line 9,000 levels deep and a 5,000-digit integer, which JS reads.

    .venv/bin/python benchmarks/hostile_logs.py [--sizes 8,16,32,64]

Figures only: nothing is asserted (tests/test_hostile_inputs.py counts the
characters the reader scans instead of timing it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = [sys.executable, "-m", "doomloop_kit.conformance.cli", "replay"]


def replay(log: Path) -> tuple[float, float, int]:
    """(seconds, peak resident MiB, exit status) of ``replay LOG --quiet``."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [*KIT, str(log), "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_maxrss / 1024, child.returncode


def document(folder: Path, mebibytes: int) -> Path:
    path = folder / f"doc-{mebibytes}.json"
    user = json.dumps({"role": "user", "content": "go"})
    big = json.dumps({"role": "assistant", "content": "x" * (mebibytes << 20)})
    path.write_text(f"[\n{user},\n{big}\n]\n", encoding="utf-8")
    return path


def line(folder: Path, mebibytes: int) -> Path:
    path = folder / f"line-{mebibytes}.jsonl"
    text = json.dumps({"role": "assistant", "content": "y" * (mebibytes << 20)})
    path.write_text(json.dumps({"role": "user", "content": "go"}) + "\n" + text + "\n")
    return path


def zeros(folder: Path) -> Path:
    path = folder / "zeros.jsonl"
    with path.open("wb") as handle:
        handle.truncate(2 << 30)
    return path


def deep_and_long(folder: Path) -> Path:
    path = folder / "deep.jsonl"
    deep = "[" * 9000 + "]" * 9000
    path.write_text(
        '{"role": "user", "content": "go", "n": ' + "9" * 5000 + ', "deep": ' + deep + "}\n"
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,16,32,64", help="MiB of the long values")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="doomloop-hostile-") as temporary:
        folder = Path(temporary)
        print(f"{'case':<36}{'seconds':>9}{'peak MiB':>10}{'exit':>6}")
        cases = [(f"document element {n} MiB", document, n) for n in sizes]
        cases += [(f"JSON-lines line {n} MiB", line, n) for n in sizes]
        for label, write, size in cases:
            log = write(folder, size)
            seconds, peak, status = replay(log)
            print(f"{label:<36}{seconds:>9.2f}{peak:>10.0f}{status:>6}")
            log.unlink()
        others = (
            ("truncate -s 2G (NUL bytes)", zeros),
            ("9,000 levels, 5,000 digits", deep_and_long),
        )
        for label, make in others:
            log = make(folder)
            seconds, peak, status = replay(log)
            print(f"{label:<36}{seconds:>9.2f}{peak:>10.0f}{status:>6}")
            log.unlink()


if __name__ == "__main__":
    main()
