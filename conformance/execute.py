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

    def _send(self, request: dict[str, Any]) -> Exchange:
        exchange = self.harness.send(request)
        self.exchanges.append(exchange)
        return exchange

    def _create(self, state: Any) -> str:
        request: dict[str, Any] = {"op": "create", "option": self.vector.option}
        if state is not vformat.ABSENT:
            request["state"] = state
        response = self.harness.receive(self._send(request))
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

    def run(self) -> Outcome:
        try:
            self._drive()
        except HarnessFault as fault:
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
        except _Stop as stop:
            outcome = self._judge()
            if outcome.status == PASSED:
                outcome = self._errored(stop.cause, stop.message, [], stop.step, stop.op)
            return outcome
        return self._judge()

    def _drive(self) -> None:
        steps = self.vector.steps
        session = self._create(self.vector.initial_state) if self.vector.needs_monitor else None
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
            self.harness.receive(last)
            if steps[index - 1].op == vformat.RESUME_OP:
                response = self.step_exchange[index - 1].response  # type: ignore[union-attr]
                assert response is not None
                if "error" in response:
                    return  # judged below: getState failed
                blob = json.loads(json.dumps(response["result"]))
                old, session = session, self._create(blob)
                assert old is not None
                self._close(old)  # answered along with the next batch
                if index == len(steps):
                    assert session is not None
                    self.harness.receive(self._close(session))
        for closing in self.closes:
            self.harness.receive(closing)

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
                if code != "canonicalization" or op == vformat.RESUME_OP:
                    return self._errored(f"error-{code}", message, [], index, op)
                if step.expects_error is not None:
                    continue
                return self._failed(
                    index,
                    op,
                    "$",
                    "expected a result, got error canonicalization",
                    step.expected_result,
                    {"error": code},
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


def _clip(text: str) -> str:
    if len(text) <= TRANSCRIPT_LINE_CHARS:
        return text
    return text[: TRANSCRIPT_LINE_CHARS - 20] + f"... ({len(text)} chars)"


def run_vector(harness: Harness, vector: vformat.Vector, file: str) -> Outcome:
    """Run one vector on a live harness (raises nothing the harness can cause)."""
    return VectorRun(harness, vector, file).run()
