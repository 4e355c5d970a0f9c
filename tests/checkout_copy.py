"""A temporary clone of this checkout as it is now, for tests that commit, tag or release.

The files git would see (tracked, and untracked but not ignored) are copied, so
uncommitted work is tested too, and committed as one commit of a new repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "kit test",
    "GIT_AUTHOR_EMAIL": "test@doomloop.invalid",
    "GIT_COMMITTER_NAME": "kit test",
    "GIT_COMMITTER_EMAIL": "test@doomloop.invalid",
}


def git(repository: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repository), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **GIT_IDENTITY},
    )
    return done.stdout.strip()


def clone(target: Path) -> Path:
    """A new repository at ``target`` holding this checkout's files, committed."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file():  # deleted in the working tree
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name, follow_symlinks=False)
    git(target, "init", "--quiet", "--initial-branch=main")
    commit_all(target, "the checkout under test")
    return target


def commit_all(repository: Path, message: str) -> None:
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "--allow-empty", "-m", message)


def tools_env(repository: Path) -> dict[str, str]:
    """The environment in which the clone's release tool and mike run, from this venv."""
    paths = [str(repository / "tools"), str(repository / "docs" / "hooks")]
    return {
        **os.environ,
        **GIT_IDENTITY,
        "PYTHONPATH": os.pathsep.join(paths),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
