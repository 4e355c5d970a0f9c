"""The artefacts of a release, built side by side into a scratch folder.

Four independent jobs, run at once (each a few commands, each with its log):

- ``python``: the sdist, and the wheel built from that sdist (``python -m build``);
- ``npm``: the tarball of the TypeScript harness package ``doomloop-kit-harness``
  (``npm ci`` then ``npm pack``, which builds it);
- ``site``: the versioned site (:mod:`.site`);
- ``vectors``: ``doomloop-kit vectors regenerate --check`` (a check, run
  beside the builds because it is the slowest step; its failure discards them).

The first failure stops the other jobs (their running command is terminated),
so that a failed release ends soon. Nothing is written to ``dist/`` here:
:mod:`.__main__` moves the folder there once every job succeeded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import site


@dataclass
class Job:
    name: str
    commands: list[list[str]]
    cwd: Path
    env: Mapping[str, str] | None = None
    seconds: float = 0.0


@dataclass
class Failure:
    job: str
    command: str
    status: int
    output: str


def jobs(root: Path, work: Path, spec_version: str, reports: Path | None) -> list[Job]:
    """The jobs that build every artefact of ``root`` into ``work/out``."""
    out = work / "out"
    scratch = work / "site-repo"
    out.mkdir()
    scratch.mkdir()
    bin_dir = Path(sys.executable).parent
    npm_prefix = root / "ports" / "typescript"
    return [
        Job(
            "vectors",
            [
                [
                    str(bin_dir / "doomloop-kit"),
                    "vectors",
                    "regenerate",
                    "--check",
                    "--root",
                    str(root / "vectors"),
                ]
            ],
            root,
        ),
        Job(
            "python",
            [[sys.executable, "-m", "build", "--outdir", str(out), str(root)]],
            root,
        ),
        Job(
            "npm",
            [
                ["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund"],
                ["npm", "pack", "--pack-destination", str(out)],
            ],
            npm_prefix,
        ),
        Job(
            "site",
            site.build_commands(root, spec_version, out / f"site-{spec_version}.tar.gz"),
            scratch,
            site.environment(work / "site-build", reports),
        ),
    ]


class _Runs:
    """The jobs' running processes, and whether one of the jobs failed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.failed = False
        self.running: set[subprocess.Popen[str]] = set()

    def fail(self) -> None:
        with self.lock:
            self.failed = True
            for process in self.running:  # each command leads its own process group
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)

    def run(self, job: Job) -> Failure | None:
        started = time.monotonic()
        try:
            return self._commands(job)
        finally:
            job.seconds = time.monotonic() - started

    def _commands(self, job: Job) -> Failure | None:
        for command in job.commands:
            with self.lock:
                if self.failed:
                    return None  # stopped: another job failed
                process = subprocess.Popen(
                    command,
                    cwd=job.cwd,
                    env=None if job.env is None else dict(job.env),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    start_new_session=True,
                )
                self.running.add(process)
            output, _ = process.communicate()
            with self.lock:
                self.running.discard(process)
                stopped = self.failed
            if process.returncode != 0:
                if stopped:
                    return None
                self.fail()
                return Failure(job.name, " ".join(command), process.returncode, output)
        return None


def run_all(to_run: Sequence[Job]) -> list[Failure]:
    """Run the jobs at once; the failures, in the jobs' order (the first stops the others)."""
    runs = _Runs()
    with ThreadPoolExecutor(max_workers=len(to_run)) as pool:
        results = list(pool.map(runs.run, to_run))
    return [failure for failure in results if failure is not None]
