"""What a conformance run produces: typed, immutable outcomes and the run's totals.

Both the runner (which makes them) and the report writers (which show and
write them) import this module; it imports neither. Each class has one
``to_json`` giving its form in the JSON-lines report (spec/protocol.md).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

from doomloop_kit.vectorset.files import ABSENT, Vector

from . import interrupts


class Status(StrEnum):
    """What became of one vector."""

    PASSED = "passed"
    FAILED = "failed"
    """The harness answered, wrongly."""
    ERRORED = "errored"
    """The harness broke: crash, hang, junk, a harness-side error code."""
    SKIPPED = "skipped"
    """The harness lacks a feature the vector needs."""
    XFAILED = "xfailed"
    """Failed (a wrong answer), and listed as an expected failure. An errored vector
    listed there stays errored: a crash, a hang or a harness error is never expected."""
    XPASSED = "xpassed"
    """Passed, but listed as an expected failure (strict: counts as a failure)."""
    NOT_RUN = "not-run"
    """The run ended before this vector."""


BAD_STATUSES = (Status.FAILED, Status.ERRORED, Status.XPASSED)
"""The statuses that fail a run (and are shown in detail on the console)."""


class ExitStatus(IntEnum):
    """The exit status of ``conformance run`` (documented in spec/protocol.md#prot-running
    and docs/guide/ci.md#how-a-run-ends)."""

    PASSED = 0
    """Every selected vector passed (or was skipped, or failed as expected)."""
    FAILED = 1
    """A wrong answer, an unexpected pass or a stale expected-failures entry."""
    USAGE = 2
    """Bad arguments or bad input (vector set, expected failures, output paths)."""
    ERRORED = 3
    """A vector errored, the harness was unusable, or the run was aborted."""
    UNWRITTEN = 4
    """A report could not be written (a full disk, an I/O error): it keeps what it held."""
    INTERRUPTED_SIGHUP = 129
    INTERRUPTED_SIGINT = 130
    STDOUT_CLOSED = interrupts.STDOUT_CLOSED
    """Stdout was closed (the reader of the pipe ended): 128 + SIGPIPE, 141."""
    INTERRUPTED_SIGTERM = 143


class RunState(StrEnum):
    """How the run ended, recorded in every report."""

    COMPLETE = "complete"
    """Every selected vector was judged (skipped ones included)."""
    STOPPED = "stopped"
    """``--max-fail`` stopped the run on purpose; the rest were not run."""
    ABORTED = "aborted"
    """Bad input, an unusable harness, a spent restart budget, an internal error."""
    INTERRUPTED = "interrupted"
    """A signal, or stdout closed."""
    UNFINISHED = "unfinished"
    """Written when the run starts: a report still saying so was never finished."""


@dataclass(frozen=True)
class WrongAnswer:
    """Where a step's answer first differs from the expectation."""

    step: int
    op: str
    path: str
    reason: str
    expected: Any
    actual: Any
    differences: int = 1

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "step": self.step,
            "op": self.op,
            "path": self.path,
            "reason": self.reason,
            "expected": None if self.expected is ABSENT else self.expected,
            "actual": None if self.actual is ABSENT else self.actual,
            "differences": self.differences,
        }
        if self.expected is ABSENT:
            data["expectedAbsent"] = True
        if self.actual is ABSENT:
            data["actualAbsent"] = True
        return data

    def describe(self, values: bool = True) -> str:
        where = f"step {self.step} ({self.op}) differs at {self.path}: {self.reason}"
        if not values:
            return where
        return f"{where} (expected {show(self.expected)}, got {show(self.actual)})"


@dataclass(frozen=True)
class HarnessError:
    """Why a vector errored; ``cause`` is one word (``crash``, ``timeout``, ``error-internal``)."""

    cause: str
    message: str
    step: int | None = None
    op: str | None = None
    stderr: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"cause": self.cause, "message": self.message}
        if self.step is not None:
            data["step"], data["op"] = self.step, self.op
        if self.stderr:
            data["stderr"] = list(self.stderr)
        return data

    def describe(self) -> str:
        where = f" at step {self.step} ({self.op})" if self.step is not None else ""
        return f"{self.cause}{where}: {self.message}"


@dataclass(frozen=True)
class Outcome:
    """What became of one vector, with what the report shows about it."""

    vector: Vector
    file: str
    status: Status
    wrong_answer: WrongAnswer | None = None
    error: HarnessError | None = None
    missing_features: tuple[str, ...] = ()
    transcript: tuple[str, ...] = ()
    expected_reason: str | None = None
    """The expected-failures entry's reason, for ``xfailed`` / ``xpassed``."""
    fault: bool = False
    """True when the harness broke the protocol and must be restarted."""
    seconds: float = 0.0
    """How long the vector was in flight (the JUnit report's ``time``; never compared)."""

    @property
    def id(self) -> str:
        return self.vector.id

    def summary(self, values: bool = True) -> str:
        """One line saying what went wrong (empty for a pass)."""
        if self.wrong_answer is not None:
            return self.wrong_answer.describe(values)
        if self.error is not None:
            return self.error.describe()
        if self.missing_features:
            return "missing features: " + ", ".join(self.missing_features)
        return ""

    def expected_to_fail(self, reason: str) -> Outcome:
        """This outcome seen through an expected-failures entry: a wrong answer is an
        expected failure; an error (a crash, a timeout, a harness error) stays one."""
        if self.status == Status.FAILED:
            return dataclasses.replace(self, status=Status.XFAILED, expected_reason=reason)
        if self.status == Status.PASSED:
            return dataclasses.replace(self, status=Status.XPASSED, expected_reason=reason)
        return dataclasses.replace(self, expected_reason=reason)  # skipped or not run: kept

    def with_stderr(self, stderr: list[str]) -> Outcome:
        """The outcome with the harness's final stderr tail (known once it was killed)."""
        if self.error is None or not stderr:
            return self
        return dataclasses.replace(
            self, error=dataclasses.replace(self.error, stderr=tuple(stderr))
        )

    def to_json(self) -> dict[str, Any]:
        vector = self.vector
        line: dict[str, Any] = {
            "type": "vector",
            "id": vector.id,
            "file": self.file,
            "status": str(self.status),
            "description": vector.description,
        }
        if self.missing_features:
            line["missingFeatures"] = list(self.missing_features)
        if self.wrong_answer is not None:
            line["failure"] = self.wrong_answer.to_json()
        if self.error is not None:
            line["error"] = self.error.to_json()
        if self.expected_reason is not None:
            line["expectedFailure"] = self.expected_reason
        if self.transcript:
            line["transcript"] = list(self.transcript)
        return line


@dataclass
class Tally:
    """The running totals of a run (mutable: it grows as outcomes arrive)."""

    counts: Counter[Status] = field(default_factory=Counter)
    missing: Counter[str] = field(default_factory=Counter)
    restarts: int = 0
    aborted: str | None = None
    """Why the run ended early (None: it did not, or only ``--max-fail`` stopped it)."""
    stopped: str | None = None
    """Why the run stopped early on purpose (``--max-fail``)."""
    protocol_faults: list[str] = field(default_factory=list)
    """Harness faults that could not be charged to a vector still being judged."""

    def add(self, outcome: Outcome) -> None:
        self.counts[outcome.status] += 1
        self.missing.update(outcome.missing_features)

    @property
    def failed_total(self) -> int:
        return sum(self.counts[status] for status in BAD_STATUSES)

    def totals(self) -> dict[str, int]:
        return {str(status): self.counts[status] for status in Status}


def show(value: Any) -> str:
    """A value as it appears in a one-line message."""
    if value is ABSENT:
        return "nothing"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 120 else text[:117] + "..."
