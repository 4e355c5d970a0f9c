"""The versioned spec site of a release, built with mike in a scratch repository.

mike writes one folder per specification version into a gh-pages branch, moves
the ``latest`` alias to it and keeps ``versions.json`` (read by the version
selector). The release must not touch the checkout's own branches, so it works
in a scratch repository: the checkout's gh-pages (if any) is fetched into it,
the new version is deployed there, and the branch is archived. ``make
docs-deploy`` (``python -m doomloop_release.site``) is the same deployment
into the checkout's own gh-pages branch. Nothing is ever pushed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import record

BRANCH = "gh-pages"
ALIAS = "latest"


def mike(*args: str) -> list[str]:
    """A mike command (its script sits beside this Python, in the same environment)."""
    return [str(Path(sys.executable).parent / "mike"), *args]


def _has_branch(repository: Path, branch: str) -> bool:
    done = subprocess.run(
        ["git", "-C", str(repository), "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"],
        capture_output=True,
    )
    return done.returncode == 0


def environment(site_dir: Path, reports: Path | None) -> dict[str, str]:
    """The environment of a strict site build into ``site_dir``, committed by mike."""
    bin_dir = str(Path(sys.executable).parent)  # mike runs the mkdocs found on PATH
    env = {
        **os.environ,
        "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")]),
        "NO_MKDOCS_2_WARNING": "1",
        "DOOMLOOP_SITE_DIR": str(site_dir),
        "DOOMLOOP_DOCS_STRICT": "true",
    }
    env.setdefault("GIT_COMMITTER_NAME", "doomloop-kit release")
    env.setdefault("GIT_COMMITTER_EMAIL", "release@doomloop.invalid")
    if reports is not None:
        env["DOOMLOOP_DOCS_REPORTS"] = str(reports)
    return env


def deploy_commands(config: Path, version: str, message: str) -> list[list[str]]:
    """mike's commands that add ``version`` (and move ``latest``) in the gh-pages branch."""
    common = ["--config-file", str(config), "--branch", BRANCH, "--ignore-remote-status"]
    return [
        mike("deploy", *common, "--message", message, "--update-aliases", version, ALIAS),
        mike("set-default", *common, "--message", f"Default version: {ALIAS}", ALIAS),
    ]


def build_commands(root: Path, version: str, archive: Path) -> list[list[str]]:
    """Every command, in order, that builds the versioned site of ``root`` as ``archive``.

    Run in an empty scratch folder; the checkout's gh-pages is only read."""
    commands = [["git", "init", "--quiet"]]
    if _has_branch(root, BRANCH):
        commands.append(["git", "fetch", "--quiet", str(root), f"{BRANCH}:{BRANCH}"])
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    message = f"Specification {version}, site of commit {head}"
    commands += deploy_commands(root / "mkdocs.yml", version, message)
    commands.append(["git", "archive", "--format=tar.gz", "-o", str(archive), BRANCH])
    return commands


def deploy(root: Path, reports: Path | None) -> int:
    """Deploy the specification version of ``root`` into its own gh-pages branch."""
    version = record.spec_version(root)
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="doomloop-site-") as site_dir:
        env = environment(Path(site_dir), reports)
        message = f"Specification {version}, site of commit {head}"
        for command in deploy_commands(root / "mkdocs.yml", version, message):
            done = subprocess.run(command, cwd=root, env=env, stdin=subprocess.DEVNULL)
            if done.returncode != 0:
                return done.returncode
    print(f"site: specification {version} is in the local {BRANCH} branch, as {ALIAS}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog="doomloop_release.site", description=deploy.__doc__
    )
    parser.add_argument("--root", type=Path, default=Path("."), help="the checkout (default .)")
    parser.add_argument("--reports", type=Path, help="conformance reports for the matrix")
    args = parser.parse_args(argv)
    return deploy(args.root.resolve(), args.reports)


if __name__ == "__main__":
    sys.exit(main())
