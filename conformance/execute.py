"""Running one vector through a harness and judging the answers (spec/protocol.md).

Expected results never travel to the harness: the runner sends each step's
inputs, applies :func:`~doomloop_kit.vectorset.oracle.normative` to the
answer and compares it with the step's expectation using
:func:`~doomloop_kit.vectorset.files.compare`. The verdict is an
:class:`~.outcomes.Outcome`.

Requests are pipelined: every request of a vector is sent before the first
answer is awaited, except where a request needs an earlier answer -- the
session id returned by ``create``, and the state blob ``getState`` returns
for a ``resume`` step (which the runner composes as ``getState``, ``create``
with that state, ``close`` of the old session).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

from doomloop_kit.vectorset import files as vformat
from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.transcripts import compare_transcripts
from doomloop_kit.vectorset.vocabulary import ENGINE_OP, EXPECTED_ERRORS, RESUME_OP, UNDECODABLE

from .outcomes import HarnessError, Outcome, Status, WrongAnswer
from .protocol import Connection, Exchange, HarnessFault

TRANSCRIPT_LINE_CHARS: Final = 2000


class _Stop(Exception):
    """A vector's run ends early with an ``errored`` outcome (harness still healthy)."""

    def __init__(self, cause: str, message: str, step: int | None = None, op: str = "") -> None:
        super().__init__(message)
        self.cause, self.message, self.step, self.op = cause, message, step, op


def request_for(step: vformat.Step, session: str | None) -> dict[str, Any]:
    """The protocol request of a step (``resume`` starts with ``getState``)."""
    request: dict[str, Any] = {"op": "getState" if step.op == RESUME_OP else step.op}
    if step.needs_monitor:
        request["session"] = session
    request.update(step.inputs)
    return request


class VectorRun:
    """One vector's requests, answers and verdict."""

    def __init__(self, harness: Connection, vector: vformat.Vector, file: str) -> None:
        self.harness = harness
        self.vector = vector
        self.file = file
        self.exchanges: list[Exchange] = []
        self.step_exchange: list[Exchange | None] = [None] * len(vector.steps)
        self.closes: list[Exchange] = []
        self._generator: Iterator[Exchange] | None = None
        self._waiting: Exchange | None = None
        self._stop: _Stop | None = None

    def _send(self, request: dict[str, Any]) -> Exchange:
        exchange = self.harness.send(request, owner=self.vector.id)
        self.exchanges.append(exchange)
        return exchange

    def _create(self, state: Any) -> Exchange:
        request: dict[str, Any] = {"op": "create", "option": self.vector.option}
        if state is not vformat.ABSENT:
            request["state"] = state
        return self._send(request)

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
            if response is None:
                found.append(None)
            elif "error" not in response:
                found.append(
                    {"result": oracle.normative(_answering_op(step.op), response["result"])}
                )
            elif _expected_outcome(response["error"], step.op, step.expect):
                error = response["error"]
                found.append(oracle.error_expectation(error["code"], error["message"]))
            else:
                found.append(None)
        return found

    def judge(self, vector: vformat.Vector) -> Outcome:
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
        exchange = self._send({"op": "close", "session": session})
        self.closes.append(exchange)
        return exchange

    # -- judging -------------------------------------------------------------------

    def _judge(self) -> Outcome:
        for index, step in enumerate(self.vector.steps):
            exchange = self.step_exchange[index]
            if exchange is None or exchange.response is None:
                break
            response = exchange.response
            op = step.op
            if "error" in response:
                code, message = response["error"]["code"], response["error"]["message"]
                if not _expected_outcome(response["error"], op, step.expect):
                    return self._errored(f"error-{code}", message, [], index, op)
                reason = _error_mismatch(step.expect, code, message)
                if reason is None:
                    continue
                return self._failed(
                    index,
                    op,
                    "$",
                    reason,
                    step.expect.get("result", step.expect),
                    {"error": code, "message": message},
                    exchange,
                )
            result = oracle.normative(_answering_op(op), response["result"])
            if step.expects_error is not None:
                return self._failed(
                    index,
                    op,
                    "$",
                    f"expected error {step.expects_error}, got a result",
                    {"error": step.expects_error},
                    result,
                    exchange,
                )
            if _same_text(step.expected_result, result):
                continue  # identical JSON text: equal by the comparison rule, no need to walk
            differences = _differences(step, result)
            if differences:
                first = differences[0]
                return self._failed(
                    index,
                    op,
                    first.path,
                    first.reason,
                    first.expected,
                    first.actual,
                    exchange,
                    len(differences),
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

    def _failed(
        self,
        index: int,
        op: str,
        path: str,
        reason: str,
        expected: Any,
        actual: Any,
        exchange: Exchange,
        count: int = 1,
    ) -> Outcome:
        wrong = WrongAnswer(index, op, path, reason, expected, actual, count)
        return Outcome(
            self.vector,
            self.file,
            Status.FAILED,
            wrong_answer=wrong,
            transcript=self._transcript(exchange),
        )

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


def _answering_op(op: str) -> str:
    """The operation whose answer a step's result is (``resume`` is answered by ``getState``)."""
    return "getState" if op == RESUME_OP else op


def _differences(step: vformat.Step, result: Any) -> list[vformat.Difference]:
    """The comparison rule of a step: an engine transcript's, by its partial order
    (spec/vectors.md#engine-vectors, ENG-139), for ``runScenario``; else the vector
    comparison rule."""
    if step.op == ENGINE_OP:
        return compare_transcripts(
            step.expected_result, result, step.expect.get(oracle.ENGINE_ORDER)
        )
    return vformat.compare(step.expected_result, result)


def _same_text(expected: Any, actual: Any) -> bool:
    """A fast sufficient test of equality: the same sorted JSON text.

    Equal text implies equal values under the vector comparison rule (same
    numbers, same code units, same members); unequal text proves nothing (3
    vs 3.0), so :func:`~doomloop_kit.vectorset.files.compare` decides then.
    """
    try:
        return _sorted_text(expected) == _sorted_text(actual)
    except (TypeError, ValueError, RecursionError):
        return False


_SORTED_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _sorted_text(value: Any) -> str:
    return _SORTED_ENCODER.encode(value)


def _clip(text: str) -> str:
    if len(text) <= TRANSCRIPT_LINE_CHARS:
        return text
    return text[: TRANSCRIPT_LINE_CHARS - 20] + f"... ({len(text)} chars)"


def run_vector(harness: Connection, vector: vformat.Vector, file: str) -> Outcome:
    """Run one vector on a live harness (raises nothing the harness can cause)."""
    return VectorRun(harness, vector, file).run()


def _expected_outcome(error: Mapping[str, Any], op: str, expect: Mapping[str, Any]) -> bool:
    """An error that is an outcome of the operation, compared like a result (PROT-20);
    ``bad-request`` too where the step expects it (an undecodable tagged value, PROT-40).
    A ``resume`` step has none."""
    code = error["code"]
    comparable = code in EXPECTED_ERRORS or (code == UNDECODABLE and expect.get("error") == code)
    return comparable and op != RESUME_OP


def _error_mismatch(expect: Mapping[str, Any], code: str, message: str) -> str | None:
    """Why an expected-outcome error (PROT-20, PROT-23) does not meet ``expect``;
    None when it does. A canonicalization message is compared when the vector
    gives one (PROT-22)."""
    if "error" not in expect:
        return f"expected a result, got error {code}"
    if expect["error"] != code:
        return f"expected error {expect['error']}, got error {code}"
    if "message" in expect and expect["message"] != message:
        return f"different {code} message"
    return None
