"""Wall time of one strict build of the spec site: prints the figure.

    .venv/bin/python benchmarks/docs_build.py [--repeat N]

The build is ``mkdocs build --strict`` into a temporary folder, with the
in-tree conformance reports when ``make conformance-reports`` wrote them
(the matrix page reads them). Speed is measured here, never asserted in a
test (tests/test_docs_build.py only guards against a hung build).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_once(site: Path) -> float:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.setdefault("DOOMLOOP_DOCS_REPORTS", str(ROOT / ".artifacts" / "reports"))
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
    command += ["--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="builds to time (default 3)")
    args = parser.parse_args()
    times = []
    for _ in range(max(1, args.repeat)):
        with tempfile.TemporaryDirectory(prefix="doomloop-site-") as site:
            times.append(build_once(Path(site)))
    print(
        f"strict site build: median {statistics.median(times):.1f} s over {len(times)} builds "
        f"(min {min(times):.1f} s, max {max(times):.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
