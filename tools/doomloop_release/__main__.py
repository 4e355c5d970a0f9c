"""``python -m doomloop_release VERSION``: check a release, then build it into dist/VERSION/.

The version is checked first (a semantic version, or exit 2 at once); the
other checks come next and are cheap (:mod:`.declared`, :mod:`.changelog`,
:mod:`.ledger`); any problem stops the release before anything is built, with
a message naming the offending file, version or id. ``--check`` stops there
(``make release`` runs it before it spends time on the conformance reports).
The artefacts are then built in a scratch folder under ``.artifacts/``
(:mod:`.artefacts`) and moved to ``dist/VERSION/`` in one rename once all of
them exist; the release record is
written last to ``releases/VERSION.json``, to be committed with the release.
Exit status: 0 released (or, with ``--check``, could be), 1 a check or a build
failed, 2 usage error (a version that is not x.y.z).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import artefacts, changelog, declared, ledger, record

SCRATCH = ".artifacts"
DIST = "dist"
GO_TAGS_FILE = "go-module-tags.txt"
CONSTRAINTS_FILE = "constraints.txt"
"""The pinned versions, beside the wheel: `pip install -c constraints.txt <wheel>`."""
RECORD_FILE = "release.json"
SUMS_FILE = "SHA256SUMS"


def _say(message: str) -> None:
    print(f"release: {message}", file=sys.stderr)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def dirty_problems(root: Path) -> list[str]:
    changed = _git(root, "status", "--porcelain", "--untracked-files=no")
    return [f"uncommitted change, commit it first: {line[3:]}" for line in changed.splitlines()]


def check(root: Path, version: str) -> tuple[record.Record, list[str]]:
    """The record this release would write, and every problem that stops it."""
    now, duplicates = record.of_checkout(root, version)
    problems = dirty_problems(root) + declared.problems(root, version)
    problems += changelog.problems(root, version)
    releases = root / ledger.RELEASES_DIR
    earlier = [ledger.previous(releases, version)]
    again = releases / f"{version}.json"
    if again.is_file():  # the release is built again: it must not have changed since
        earlier.append(record.load(again))
    for before in earlier:
        problems += [p for p in ledger.problems(before, now, duplicates) if p not in problems]
    return now, problems


def go_tags_text(root: Path, version: str) -> str:
    commit = _git(root, "rev-parse", "HEAD")
    tags = declared.go_tags(version)
    lines = [
        f"# Go module tags of release {version}: recorded here, not created. To publish:",
        *(f"#   git tag {tag} {commit}" for tag in tags),
        *(f"{tag} {commit}" for tag in tags),
    ]
    return "\n".join(lines) + "\n"


def _sums(folder: Path) -> str:
    return "".join(
        f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}\n"
        for path in sorted(folder.iterdir())
    )


def build(root: Path, version: str, now: record.Record, reports: Path | None) -> Path | None:
    """Build every artefact; the final folder, or None (nothing left behind) on failure."""
    (root / SCRATCH).mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"release-{version}-", dir=root / SCRATCH))
    try:
        jobs = artefacts.jobs(root, work, now.specification, reports)
        failures = artefacts.run_all(jobs)
        _say(", ".join(f"{job.name} {job.seconds:.0f}s" for job in jobs))
        for failure in failures:
            _say(f"{failure.job} failed (exit {failure.status}): {failure.command}")
            print(failure.output[-4000:], file=sys.stderr)
        if failures:
            return None
        out = work / "out"
        (out / GO_TAGS_FILE).write_text(go_tags_text(root, version), encoding="utf-8")
        shutil.copyfile(root / CONSTRAINTS_FILE, out / CONSTRAINTS_FILE)
        (out / RECORD_FILE).write_bytes(now.dumps())
        (out / SUMS_FILE).write_text(_sums(out), encoding="utf-8")
        final = root / DIST / version
        final.parent.mkdir(exist_ok=True)
        replaced = work / "replaced"
        if final.exists():
            final.rename(replaced)
        try:
            out.rename(final)
        except OSError:
            if replaced.exists():  # put the earlier build back before the scratch goes
                replaced.rename(final)
            raise
        return final
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write_record(root: Path, now: record.Record) -> Path:
    path = root / ledger.RELEASES_DIR / f"{now.release}.json"
    path.parent.mkdir(exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(now.dumps())
    temporary.replace(path)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog="doomloop_release", description=__doc__
    )
    parser.add_argument("version", help="the release version, e.g. 1.0.0")
    parser.add_argument("--root", type=Path, default=Path("."), help="the checkout (default .)")
    parser.add_argument(
        "--reports", type=Path, help="conformance reports for the site's matrix (JSON lines)"
    )
    parser.add_argument(
        "--check", action="store_true", help="only check that the release could be made"
    )
    args = parser.parse_args(argv)
    if not declared.is_semantic_version(args.version):
        _say(f"{args.version!r} is not a semantic version (x.y.z, e.g. 1.0.0); nothing was done")
        return 2
    root = args.root.resolve()
    try:
        now, problems = check(root, args.version)
    except (record.RecordError, OSError, ValueError, KeyError) as error:
        _say(f"cannot read the checkout: {error}")
        return 1
    for problem in problems:
        _say(problem)
    if problems:
        _say(f"stopped: {len(problems)} problem(s); nothing was built")
        return 1
    if args.check:
        _say(f"release {args.version} can be made (checks only; nothing was built)")
        return 0
    final = build(root, args.version, now, args.reports)
    if final is None:
        _say("stopped: a build failed; nothing was written to dist/")
        return 1
    recorded = write_record(root, now)
    for path in sorted(final.iterdir()):
        print(f"{path.stat().st_size:>10}  {path.relative_to(root)}")
    total = sum(p.stat().st_size for p in final.iterdir())
    print(f"{total:>10}  total; release record {recorded.relative_to(root)} (commit it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
