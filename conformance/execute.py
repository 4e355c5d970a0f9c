"""Running one vector through a harness and judging the answers (spec/protocol.md).

Expected results never travel to the harness: the runner sends each step's
inputs, applies :func:`~doomloop_kit.generators.oracle.normative` to the
answer and compares it with the step's expectation using
:func:`~doomloop_kit.generators.format.compare`.

Requests are pipelined: every request of a vector is sent before the first
answer is awaited, except where a request needs an earlier answer -- the
session id returned by ``create``, and the state blob ``getState`` returns
for a ``resume`` step (which the runner composes as ``getState``, ``create``
with that state, ``close`` of the old session).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from doomloop_kit.generators import format as vformat
from doomloop_kit.generators import oracle

from .protocol import Exchange, Harness, HarnessFault

HARNESS_ERROR_CODES: Final = ("bad-request", "unknown-op", "unknown-session", "internal")
"""Error codes that mean the harness could not do what was asked: the vector errors."""

TRANSCRIPT_LINE_CHARS: Final = 2000

PASSED, FAILED, ERRORED, SKIPPED = "passed", "failed", "errored", "skipped"
XFAILED, XPASSED, NOT_RUN = "xfailed", "xpassed", "not-run"


@dataclass
class Outcome:
    """What became of one vector."""

    vector: vformat.Vector
    file: str
    status: str
    failure: dict[str, Any] | None = None
    """For ``failed``: step, op, path, reason, expected, actual, differences."""
    error: dict[str, Any] | None = None
    """For ``errored``: cause, message, step/op when known, stderr tail."""
    missing_features: list[str] = field(default_factory=list)
    transcript: list[str] = field(default_factory=list)
    expected_reason: str | None = None
    """The expected-failures entry's reason, for ``xfailed`` / ``xpassed``."""
    fault: bool = False
    """True when the harness broke the protocol and must be restarted."""

    @property
    def id(self) -> str:
        return str(self.vector.id)

    def summary(self, values: bool = True) -> str:
        """One line saying what went wrong (empty for a pass)."""
        if self.failure is not None:
            f = self.failure
            where = f"step {f['step']} ({f['op']}) differs at {f['path']}: {f['reason']}"
            if not values:
                return where
            return (
                f"{where} (expected {_show(f['expected'], f.get('expectedAbsent'))}, "
                f"got {_show(f['actual'], f.get('actualAbsent'))})"
            )
        if self.error is not None:
            where = (
                f" at step {self.error['step']} ({self.error['op']})"
                if "step" in self.error
                else ""
            )
            return f"{self.error['cause']}{where}: {self.error['message']}"
        if self.missing_features:
            return "missing features: " + ", ".join(self.missing_features)
        return ""


def _show(value: Any, absent: bool | None = False) -> str:
    if absent:
        return "nothing"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _jsonable(value: Any) -> tuple[Any, bool]:
    return (None, True) if value is vformat.ABSENT else (value, False)


class _Stop(Exception):
    """A vector's run ends early with an ``errored`` outcome (harness still healthy)."""

    def __init__(self, cause: str, message: str, step: int | None = None, op: str = "") -> None:
        super().__init__(message)
        self.cause, self.message, self.step, self.op = cause, message, step, op


def request_for(step: vformat.Step, session: str | None) -> dict[str, Any]:
    """The protocol request of a step (``resume`` starts with ``getState``)."""
    request: dict[str, Any] = {"op": "getState" if step.op == vformat.RESUME_OP else step.op}
    if step.needs_monitor:
        request["session"] = session
    request.update(step.inputs)
    return request


class VectorRun:
    """One vector's requests, answers and verdict."""

    def __init__(self, harness: Harness, vector: vformat.Vector, file: str) -> None:
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
        exchange = self.harness.send(request)
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
        if stop is not None and outcome.status == PASSED:
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
        outcome = self._errored(fault.cause, fault.message, fault.stderr, step, op)
        outcome.fault = True
        return outcome

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
                if step.op == vformat.RESUME_OP:
                    break
            if session is not None and index == len(steps) and steps[-1].op != vformat.RESUME_OP:
                last = self._close(session)
            assert last is not None
            yield last
            if steps[index - 1].op == vformat.RESUME_OP:
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
                if code not in oracle.EXPECTED_ERRORS or op == vformat.RESUME_OP:
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
            result = oracle.normative(
                "getState" if op == vformat.RESUME_OP else op, response["result"]
            )
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
            differences = vformat.compare(step.expected_result, result)
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
        return Outcome(self.vector, self.file, PASSED)

    def _transcript(self, upto: Exchange | None) -> list[str]:
        hello = '> {"id":0,"op":"hello","protocol":1}'
        lines = [hello]
        for exchange in self.exchanges:
            lines.append("> " + _clip(json.dumps(exchange.request, separators=(",", ":"))))
            if exchange.response is not None:
                lines.append("< " + _clip(exchange.line))
            if exchange is upto:
                break
        return lines

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
        expected, expected_absent = _jsonable(expected)
        actual, actual_absent = _jsonable(actual)
        failure: dict[str, Any] = {
            "step": index,
            "op": op,
            "path": path,
            "reason": reason,
            "expected": expected,
            "actual": actual,
            "differences": count,
        }
        if expected_absent:
            failure["expectedAbsent"] = True
        if actual_absent:
            failure["actualAbsent"] = True
        return Outcome(
            self.vector, self.file, FAILED, failure=failure, transcript=self._transcript(exchange)
        )

    def _errored(
        self,
        cause: str,
        message: str,
        stderr: list[str],
        step: int | None = None,
        op: str | None = None,
    ) -> Outcome:
        error: dict[str, Any] = {"cause": cause, "message": message}
        if step is not None:
            error["step"], error["op"] = step, op
        if stderr:
            error["stderr"] = stderr
        upto = self.step_exchange[step] if step is not None else None
        return Outcome(
            self.vector, self.file, ERRORED, error=error, transcript=self._transcript(upto)
        )


def _same_text(expected: Any, actual: Any) -> bool:
    """A fast sufficient test of equality: the same sorted JSON text.

    Equal text implies equal values under the vector comparison rule (same
    numbers, same code units, same members); unequal text proves nothing (3
    vs 3.0), so :func:`~doomloop_kit.generators.format.compare` decides then.
    """
    try:
        return _sorted_text(expected) == _sorted_text(actual)
    except (TypeError, ValueError, RecursionError):
        return False


def _sorted_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _clip(text: str) -> str:
    if len(text) <= TRANSCRIPT_LINE_CHARS:
        return text
    return text[: TRANSCRIPT_LINE_CHARS - 20] + f"... ({len(text)} chars)"


def run_vector(harness: Harness, vector: vformat.Vector, file: str) -> Outcome:
    """Run one vector on a live harness (raises nothing the harness can cause)."""
    return VectorRun(harness, vector, file).run()


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
