"""The artefacts of a release, built side by side into a scratch folder.

Four independent jobs, run at once (each a few commands, each with its log):

- ``python``: the sdist, and the wheel built from that sdist (``python -m build``);
- ``npm``: the tarball of the TypeScript harness package ``doomloop-kit-harness``
  (``npm ci`` then ``npm pack``, which builds it);
- ``site``: the versioned site (:mod:`.site`);
- ``vectors``: ``doomloop-kit vectors regenerate --check`` (a check, run
  beside the builds because it is the slowest step; its failure discards them).

Nothing is written to ``dist/`` here: :mod:`.__main__` moves the folder there
once every job succeeded.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import site


@dataclass
class Job:
    name: str
    commands: list[list[str]]
    cwd: Path
    env: Mapping[str, str] | None = None
    log: list[str] = field(default_factory=list)


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


def _run(job: Job) -> Failure | None:
    for command in job.commands:
        done = subprocess.run(
            command,
            cwd=job.cwd,
            env=None if job.env is None else dict(job.env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        job.log.append(done.stdout + done.stderr)
        if done.returncode != 0:
            return Failure(job.name, " ".join(command), done.returncode, done.stdout + done.stderr)
    return None


def run_all(to_run: Sequence[Job]) -> list[Failure]:
    """Run the jobs at once; the failures, in the jobs' order."""
    with ThreadPoolExecutor(max_workers=len(to_run)) as pool:
        results = list(pool.map(_run, to_run))
    return [failure for failure in results if failure is not None]
