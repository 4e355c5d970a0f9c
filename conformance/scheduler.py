"""The scheduler of ``conformance run``: a selection on a supervised harness, in order.

Up to ``--window`` vectors are in flight on the harness at once (PROT-08:
requests are pipelined), outcomes are yielded in selection order, and a
harness fault is charged to the one vector that owns the request it
concerns; the others run again on the restarted harness (PROT-21).
"""

from __future__ import annotations

import collections
import dataclasses
import time
from collections.abc import Iterator
from typing import Any

from doomloop_kit.vectorset.files import Vector

from .execute import VectorRun
from .outcomes import HarnessError, Outcome, Status, Tally
from .protocol import HarnessFault, ProtocolMismatch
from .supervisor import BudgetSpent, Supervisor

Selected = list[tuple[str, Vector]]
"""The vectors of a run, each with the file it came from, in selection order."""


class Scheduler:
    """Runs a selection on a supervised harness; yields outcomes in selection order.

    Up to ``window`` vectors are in flight at once: while one waits for an
    answer (its session id, a resume's state, its last step) the next ones are
    already sent. When the harness breaks, the vector that owns the request the
    fault concerns is charged with it; the other vectors in flight are innocent
    and run again on the restarted harness. With ``max_fail`` the window is 1,
    so that the run stops exactly after N failures.
    """

    def __init__(
        self, supervisor: Supervisor, tally: Tally, window: int, max_fail: int | None
    ) -> None:
        self.supervisor = supervisor
        self.tally = tally
        self.window = 1 if max_fail is not None else window
        self.max_fail = max_fail

    def outcomes(self, selected: Selected) -> Iterator[Outcome]:
        todo: collections.deque[tuple[int, str, Vector]] = collections.deque(
            (position, label, vector) for position, (label, vector) in enumerate(selected)
        )
        self.positions = {vector.id: position for position, (_, vector) in enumerate(selected)}
        self.results: dict[int, Outcome] = {}
        self.started: dict[int, float] = {}
        """When each vector in flight sent its first request (the JUnit report's times)."""
        self.emitted = 0
        active: list[tuple[int, VectorRun]] = []
        while todo or active:
            while len(active) < self.window and todo:
                position, label, vector = todo.popleft()
                run = self._begin(position, label, vector)
                if run is not None:
                    active.append((position, run))
            if active:
                active = self._answer(active, todo)
            while self.emitted in self.results:  # in selection order, as soon as possible
                yield self.results.pop(self.emitted)
                self.emitted += 1

    def _begin(self, position: int, label: str, vector: Vector) -> VectorRun | None:
        """Start a vector; None when its outcome is already known."""
        if self.max_fail is not None and self.tally.failed_total >= self.max_fail:
            self.tally.stopped = f"stopped after {self.max_fail} failed vector(s) (--max-fail)"
        if self.tally.aborted is not None or self.tally.stopped is not None:
            self.results[position] = Outcome(vector, label, Status.NOT_RUN)
            return None
        missing = tuple(sorted(set(vector.features) - self.supervisor.features))
        if missing:
            self.results[position] = Outcome(
                vector, label, Status.SKIPPED, missing_features=missing
            )
            return None
        connection = self.supervisor.connection
        if connection is None:
            try:
                connection = self.supervisor.restart()
            except (BudgetSpent, ProtocolMismatch) as problem:
                self.tally.aborted = f"the restarted harness is unusable: {problem}"
                self.results[position] = Outcome(vector, label, Status.NOT_RUN)
                return None
            except HarnessFault as fault:
                self.results[position] = Outcome(
                    vector,
                    label,
                    Status.ERRORED,
                    error=HarnessError(
                        "handshake",
                        f"restarting the harness failed: {fault}",
                        stderr=tuple(fault.stderr),
                    ),
                )
                return None
        self.started[position] = time.monotonic()
        run = VectorRun(connection, vector, label)
        if run.advance():
            self.results[position] = self._timed(position, run.finish())
            return None
        return run

    def _answer(
        self,
        active: list[tuple[int, VectorRun]],
        todo: collections.deque[tuple[int, str, Vector]],
    ) -> list[tuple[int, VectorRun]]:
        """Receive the next answers; return the vectors still in flight."""
        connection = self.supervisor.connection
        assert connection is not None
        first = min(active, key=lambda item: item[1].waiting.request["id"])
        try:
            connection.receive(first[1].waiting)
        except HarnessFault as fault:
            owner = self._culprit(fault, active, connection.oldest_pending(), first)
            stderr = self.supervisor.discard()  # after the kill stderr is complete
            for position, run in reversed(active):  # innocent: run again after the restart
                if owner is None or run is not owner[1]:
                    todo.appendleft((position, run.file, run.vector))
            if owner is not None:
                outcome = owner[1].fault_outcome(fault).with_stderr(stderr)
                self.results[owner[0]] = self._timed(owner[0], outcome)
            else:
                self._charge_finished(fault, stderr)
            return []
        still: list[tuple[int, VectorRun]] = []
        for position, run in active:
            if run.advance():
                self.results[position] = self._timed(position, run.finish())
            else:
                still.append((position, run))
        return still

    def _timed(self, position: int, outcome: Outcome) -> Outcome:
        """The outcome with the seconds since its vector started (for display only: the
        harness answers vectors in flight side by side, so the times overlap)."""
        seconds = time.monotonic() - self.started.pop(position)
        return dataclasses.replace(outcome, seconds=seconds)

    @staticmethod
    def _culprit(
        fault: HarnessFault,
        active: list[tuple[int, VectorRun]],
        pending: Any,
        first: tuple[int, VectorRun],
    ) -> tuple[int, VectorRun] | None:
        """The vector in flight the fault is charged to (None: one already finished)."""
        if fault.culprit is not None:
            return next((item for item in active if item[1].vector.id == fault.culprit), None)
        return next((item for item in active if item[1].owns(pending)), first)

    def _charge_finished(self, fault: HarnessFault, stderr: list[str]) -> None:
        """A duplicate answer to a vector already judged: its outcome becomes errored if it
        has not been reported yet; otherwise the fault is a protocol fault of the run."""
        assert fault.culprit is not None
        position = self.positions.get(fault.culprit)
        finished = self.results.get(position) if position is not None else None
        if position is None or finished is None:
            self.tally.protocol_faults.append(f"{fault.cause}: {fault.message}")
            return
        self.results[position] = Outcome(
            finished.vector,
            finished.file,
            Status.ERRORED,
            error=HarnessError(fault.cause, fault.message, stderr=tuple(stderr)),
            transcript=finished.transcript,
            fault=True,
        )
