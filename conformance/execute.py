"""Running one vector through a harness (spec/protocol.md): its requests and its verdict.

Each step becomes a request (:class:`~.protocol.messages.Request`); each
answer is judged by :mod:`.judge`; the verdict is an
:class:`~.outcomes.Outcome` with the transcript of the exchange.

Requests are pipelined: every request of a vector is sent before the first
answer is awaited, except where a request needs an earlier answer -- the
session id returned by ``create``, and the state blob ``getState`` returns
for a ``resume`` step (which the runner composes as ``getState``, ``create``
with that state, ``close`` of the old session).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from doomloop_kit.vectorset.files import Step, Vector
from doomloop_kit.vectorset.vocabulary import RESUME_OP

from .judge import HarnessSide, expectation_of, judge_step
from .outcomes import HarnessError, Outcome, Status, WrongAnswer
from .protocol import Connection, Exchange, HarnessFault
from .protocol.messages import Request

TRANSCRIPT_LINE_CHARS: Final = 2000


class _Stop(Exception):
    """A vector's run ends early with an ``errored`` outcome (harness still healthy)."""

    def __init__(self, cause: str, message: str, step: int | None = None, op: str = "") -> None:
        super().__init__(message)
        self.cause, self.message, self.step, self.op = cause, message, step, op


def request_for(step: Step, session: str | None) -> Request:
    """The protocol request of a step (``resume`` starts with ``getState``, PROT-18)."""
    op = "getState" if step.op == RESUME_OP else step.op
    return Request(op, step.inputs, session if step.needs_monitor else None)


class VectorRun:
    """One vector's requests, answers and verdict."""

    def __init__(self, harness: Connection, vector: Vector, file: str) -> None:
        self.harness = harness
        self.vector = vector
        self.file = file
        self.exchanges: list[Exchange] = []
        self.step_exchange: list[Exchange | None] = [None] * len(vector.steps)
        self.closes: list[Exchange] = []
        self._generator: Iterator[Exchange] | None = None
        self._waiting: Exchange | None = None
        self._stop: _Stop | None = None

    def _send(self, request: Request) -> Exchange:
        exchange = self.harness.send(request, owner=self.vector.id)
        self.exchanges.append(exchange)
        return exchange

    def _create(self, state: Any) -> Exchange:
        return self._send(Request.create(self.vector.option, state))

    @staticmethod
    def _session_of(exchange: Exchange) -> str:
        response = exchange.response
        assert response is not None
        if "error" in response:
            error = response["error"]
            raise _Stop("create-failed", f"create answered {error['code']}: {error['message']}")
        result = response["result"]
        if not isinstance(result, dict) or not isinstance(result.get("session"), str):
            raise _Stop(
                "bad-response", f'create must answer {{"session": <string>}}, got {result!r}'
            )
        session: str = result["session"]
        return session

    # -- driving -------------------------------------------------------------------
    #
    # ``_requests`` is a generator: it sends requests and yields each exchange
    # whose answer it needs before it can go on. ``advance`` runs it until it
    # waits on an unanswered exchange, so that a scheduler can keep several
    # vectors in flight on one harness; ``run`` drives one vector alone.

    @property
    def waiting(self) -> Exchange:
        """The exchange this vector waits for (valid after ``advance`` returned False)."""
        assert self._waiting is not None
        return self._waiting

    def advance(self) -> bool:
        """Send what can be sent; True when the vector is finished (then call ``finish``)."""
        if self._generator is None:
            self._generator = self._requests()
        try:
            while self._waiting is None or self._waiting.response is not None:
                self._waiting = next(self._generator)
        except StopIteration:
            return True
        except _Stop as stop:
            self._stop = stop
            return True
        return False

    def finish(self) -> Outcome:
        """The verdict of a finished vector."""
        outcome = self._judge()
        stop = self._stop
        if stop is not None and outcome.status == Status.PASSED:
            outcome = self._errored(stop.cause, stop.message, [], stop.step, stop.op)
        return outcome

    def fault_outcome(self, fault: HarnessFault) -> Outcome:
        """The verdict when the harness broke while this vector was being answered."""
        step = next(
            (
                index
                for index, exchange in enumerate(self.step_exchange)
                if exchange is not None and exchange.response is None
            ),
            None,
        )
        op = self.vector.steps[step].op if step is not None else None
        return self._errored(fault.cause, fault.message, fault.stderr, step, op, fault=True)

    def answers(self) -> list[dict[str, Any] | None]:
        """Each step's answer in the form of a vector expectation (spec/vectors.md#expect).

        ``{"result": <normative result>}``, or ``{"error": code}`` for a code a
        vector may expect; None where the step got no answer or a harness-side
        error. Call once the run has finished without a fault.
        """
        found: list[dict[str, Any] | None] = []
        for step, exchange in zip(self.vector.steps, self.step_exchange, strict=True):
            response = None if exchange is None else exchange.response
            found.append(None if response is None else expectation_of(step, response))
        return found

    def judge(self, vector: Vector) -> Outcome:
        """This finished run judged against the expectations of ``vector`` instead.

        ``vector`` has the same steps and inputs, other expectations (for
        example :meth:`answers` of another harness); the harness is not asked again.
        """
        if [step.request() for step in vector.steps] != [s.request() for s in self.vector.steps]:
            raise ValueError(f"{vector.id}: not the steps of {self.vector.id}")
        self.vector = vector
        return self.finish()

    def owns(self, exchange: Exchange | None) -> bool:
        return exchange is not None and any(mine is exchange for mine in self.exchanges)

    def run(self) -> Outcome:
        try:
            while not self.advance():
                self.harness.receive(self.waiting)
        except HarnessFault as fault:
            return self.fault_outcome(fault)
        return self.finish()

    def _requests(self) -> Iterator[Exchange]:
        steps = self.vector.steps
        session: str | None = None
        if self.vector.needs_monitor:
            created = self._create(self.vector.initial_state)
            yield created
            session = self._session_of(created)
        index = 0
        while index < len(steps):
            last: Exchange | None = None
            while index < len(steps):
                step = steps[index]
                last = self.step_exchange[index] = self._send(request_for(step, session))
                index += 1
                if step.op == RESUME_OP:
                    break
            if session is not None and index == len(steps) and steps[-1].op != RESUME_OP:
                last = self._close(session)
            assert last is not None
            yield last
            if steps[index - 1].op == RESUME_OP:
                response = self.step_exchange[index - 1].response  # type: ignore[union-attr]
                assert response is not None
                if "error" in response:
                    return  # judged later: getState failed
                blob = json.loads(json.dumps(response["result"]))
                created = self._create(blob)
                yield created
                old, session = session, self._session_of(created)
                assert old is not None
                self._close(old)  # answered along with the next batch
                if index == len(steps):
                    yield self._close(session)
        for closing in self.closes:
            if closing.response is None:
                yield closing

    def _close(self, session: str) -> Exchange:
        exchange = self._send(Request.close(session))
        self.closes.append(exchange)
        return exchange

    # -- judging -------------------------------------------------------------------

    def _judge(self) -> Outcome:
        for index, step in enumerate(self.vector.steps):
            exchange = self.step_exchange[index]
            if exchange is None or exchange.response is None:
                break
            problem = judge_step(step, exchange.response)
            if isinstance(problem, HarnessSide):
                return self._errored(problem.cause, problem.message, [], index, step.op)
            if problem is not None:
                wrong = WrongAnswer(
                    index,
                    step.op,
                    problem.path,
                    problem.reason,
                    problem.expected,
                    problem.actual,
                    problem.count,
                )
                return Outcome(
                    self.vector,
                    self.file,
                    Status.FAILED,
                    wrong_answer=wrong,
                    transcript=self._transcript(exchange),
                )
        for closing in self.closes:
            answer = closing.response
            if answer is not None and ("error" in answer or answer.get("result") is not None):
                return self._errored(
                    "bad-response", f"close must answer null, got {closing.line}", [], None, "close"
                )
        return Outcome(self.vector, self.file, Status.PASSED)

    def _transcript(self, upto: Exchange | None) -> tuple[str, ...]:
        hello = '> {"id":0,"op":"hello","protocol":1}'
        lines = [hello]
        for exchange in self.exchanges:
            lines.append("> " + _clip(json.dumps(exchange.request, separators=(",", ":"))))
            if exchange.response is not None:
                lines.append("< " + _clip(exchange.line))
            if exchange is upto:
                break
        return tuple(lines)

    def _errored(
        self,
        cause: str,
        message: str,
        stderr: list[str],
        step: int | None = None,
        op: str | None = None,
        *,
        fault: bool = False,
    ) -> Outcome:
        upto = self.step_exchange[step] if step is not None else None
        return Outcome(
            self.vector,
            self.file,
            Status.ERRORED,
            error=HarnessError(cause, message, step, op, tuple(stderr)),
            transcript=self._transcript(upto),
            fault=fault,
        )


def _clip(text: str) -> str:
    if len(text) <= TRANSCRIPT_LINE_CHARS:
        return text
    return text[: TRANSCRIPT_LINE_CHARS - 20] + f"... ({len(text)} chars)"


def run_vector(harness: Connection, vector: Vector, file: str) -> Outcome:
    """Run one vector on a live harness (raises nothing the harness can cause)."""
    return VectorRun(harness, vector, file).run()
