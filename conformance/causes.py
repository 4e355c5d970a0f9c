"""Failed and errored vectors grouped by cause: one line per cause, with a count.

A harness that lacks one operation fails thousands of vectors the same way;
the console (:mod:`.report`) and ``report summary`` (:mod:`.report_summary`)
show such a run as a few causes with their counts, not thousands of lines.
A cause is read from a vector line of the JSON-lines report
(:meth:`~.outcomes.Outcome.to_json`): for an errored vector its error's cause
and message, for a wrong answer the operation, where the answer differs and
why. Numbers in it (request ids, steps, indices) are written ``N``, so that
the same fault at another request or index is the same cause.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_NUMBER = re.compile(r"[0-9]+")


def _masked(text: object) -> str:
    return _NUMBER.sub("N", str(text))


def cause_of(line: Mapping[str, Any]) -> str | None:
    """The cause of a vector line of the JSON-lines report; None for a vector that did not
    fail (passed, skipped, expected to fail, not run)."""
    status = line.get("status")
    if status == "errored":
        error = line.get("error") or {}
        where = f" ({error['op']})" if error.get("op") else ""
        return f"errored{where}: {error.get('cause')}: {_masked(error.get('message'))}"
    if status == "failed":
        failure = line.get("failure") or {}
        return (
            f"wrong answer to {failure.get('op')} at {_masked(failure.get('path'))}: "
            f"{_masked(failure.get('reason'))}"
        )
    if status == "xpassed":
        return "passed, though listed as an expected failure"
    return None


@dataclass
class Cause:
    text: str
    count: int
    first: str
    """The id of the first vector with this cause."""

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.text, "vectors": self.count, "first": self.first}


class Causes:
    """The causes of a run's failed and errored vectors, counted as they come."""

    def __init__(self) -> None:
        self._by_text: dict[str, Cause] = {}

    def add(self, line: Mapping[str, Any]) -> Cause | None:
        """Count a vector line; its cause (None when it did not fail)."""
        text = cause_of(line)
        if text is None:
            return None
        cause = self._by_text.get(text)
        if cause is None:
            cause = self._by_text[text] = Cause(text, 0, str(line.get("id")))
        cause.count += 1
        return cause

    def most_frequent(self) -> list[Cause]:
        """Every cause, the most frequent first (then in the order they were met)."""
        return sorted(self._by_text.values(), key=lambda cause: -cause.count)


def grouped(lines: Iterable[Mapping[str, Any]]) -> list[Cause]:
    causes = Causes()
    for line in lines:
        causes.add(line)
    return causes.most_frequent()
