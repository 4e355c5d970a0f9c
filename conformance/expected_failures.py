"""``--expected-failures``: the ids a run expects to fail, and how strictly.

One id or glob per line, ``# reason`` after it; ``profile:NAME`` names a
profile the kit ships (``conformance/profiles/``). The list is strict: an
entry that matches no vector, or a listed vector that passes, is a problem
of the run (exit status 1).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from doomloop_kit.vectorset import reading, resources

from .outcomes import Outcome, Status
from .run_arguments import UsageError


@dataclass(frozen=True)
class ExpectedEntry:
    """One line of the file: an id or glob, why it fails, and where it was written."""

    pattern: str
    reason: str
    line: int


def expected_failures_file(path: Path) -> Path:
    """The file ``--expected-failures`` names: ``profile:NAME`` is a profile the kit
    ships (installed or not), anything else a path."""
    try:
        return resources.profile_or_path(path)
    except resources.MissingResource as error:
        raise UsageError(f"--expected-failures {path}: {error}") from error


def read_expected_failures(path: Path) -> list[ExpectedEntry]:
    try:  # a pipe is fine (`<(...)`); an endless input is cut off (reading.MAX_INPUT_BYTES)
        text = reading.read_text(expected_failures_file(path), regular=False)
    except reading.InputError as error:
        raise UsageError(f"cannot read expected failures {error}") from error
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        pattern, _, reason = raw.partition("#")
        pattern = pattern.strip()
        if not pattern:
            continue
        if len(pattern.split()) != 1:
            raise UsageError(f"{path}:{number}: one id or glob per line, '# reason' after it")
        entries.append(ExpectedEntry(pattern, reason.strip(), number))
    return entries


def match_expected(entries: Sequence[ExpectedEntry], vector_id: str) -> ExpectedEntry | None:
    for entry in entries:
        if fnmatch.fnmatchcase(vector_id, entry.pattern):
            return entry
    return None


def with_expectation(entries: Sequence[ExpectedEntry], outcome: Outcome) -> Outcome:
    """The outcome as judged against the expected failures: the first entry matching its
    vector turns it into an expected failure (or an unexpected pass)."""
    entry = match_expected(entries, outcome.id)
    return outcome if entry is None else outcome.expected_to_fail(entry.reason)


def stale_entries(entries: Sequence[ExpectedEntry], ids: Iterable[str]) -> list[ExpectedEntry]:
    """The entries that match no vector of the set (each a problem of the run)."""
    ids = list(ids)
    return [e for e in entries if not any(fnmatch.fnmatchcase(i, e.pattern) for i in ids)]


def problems(
    entries: Sequence[ExpectedEntry],
    stale: Sequence[ExpectedEntry],
    outcomes: Iterable[Outcome],
    path: Path | None,
) -> list[str]:
    """What the strict list holds against the run: stale entries, unexpected passes."""
    found = [
        f"{path}:{entry.line}: entry {entry.pattern!r} matches no vector; remove it"
        for entry in stale
    ]
    for outcome in outcomes:
        if outcome.status == Status.XPASSED:
            entry = match_expected(entries, outcome.id)
            assert entry is not None
            found.append(
                f"{path}:{entry.line}: {outcome.id} is listed as an expected "
                "failure but passed; remove the entry"
            )
    return found
