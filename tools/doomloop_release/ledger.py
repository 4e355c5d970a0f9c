"""What a release may not change after an earlier one: the release check's rules.

Against the record of the previous release (``releases/<version>.json``, the
highest version below the one being released):

- a statement id is never renumbered or removed: every released id is still
  defined (a withdrawn statement keeps its id, marked withdrawn);
- a statement id is never reused: an id withdrawn in a release stays withdrawn,
  and no id is defined twice;
- a released vector never changes (nor disappears) under the same vector-set
  version (format and generator version of ``vectors/manifest.json``).

Each problem names the offending id.
"""

from __future__ import annotations

from pathlib import Path

from packaging.version import InvalidVersion, Version

from . import record
from .record import Record

RELEASES_DIR = "releases"


def parse_version(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion as error:
        raise record.RecordError(f"not a release version: {text!r}") from error


def previous(releases: Path, release: str) -> Record | None:
    """The record of the highest release below ``release``, if any."""
    wanted = parse_version(release)
    older = [
        (version, path)
        for path in releases.glob("*.json")
        if (version := parse_version(path.stem)) < wanted
    ]
    if not older:
        return None
    return record.load(max(older)[1])


def duplicate_problems(duplicates: list[str]) -> list[str]:
    return [f"statement id {sid} is defined twice: an id is never reused" for sid in duplicates]


def statement_problems(before: Record, now: Record) -> list[str]:
    problems = []
    for sid, status in sorted(before.statements.items()):
        current = now.statements.get(sid)
        if current is None:
            problems.append(
                f"statement id {sid} of release {before.release} is gone: ids are never "
                "renumbered or removed; keep it, marked withdrawn"
            )
        elif status == record.WITHDRAWN and current != record.WITHDRAWN:
            problems.append(
                f"statement id {sid} was withdrawn in release {before.release} and is reused: "
                "a new requirement takes a new id"
            )
    return problems


def vector_problems(before: Record, now: Record) -> list[str]:
    if now.vector_set != before.vector_set:
        return []
    problems = []
    for vid, digest in sorted(before.vectors.items()):
        current = now.vectors.get(vid)
        if current == digest:
            continue
        change = "was removed" if current is None else "changed"
        problems.append(
            f"vector {vid} of release {before.release} {change} under the same vector-set "
            f"version ({now.vector_set}): a changed vector needs a new vector-set version "
            "(GENERATOR_VERSION of generators/regenerate.py, written to the manifest)"
        )
    return problems


def problems(before: Record | None, now: Record, duplicates: list[str]) -> list[str]:
    """Every rule of this module broken by ``now`` (``before``: the previous release)."""
    found = duplicate_problems(duplicates)
    if before is not None:
        found += statement_problems(before, now) + vector_problems(before, now)
    return found
