"""Judging one step's answer against the vector's expectation (spec/protocol.md §P.7).

Expected results never travel to the harness: the runner sends a step's
inputs and compares the whole answer (every part of a result is normative,
PROT-22) with the step's expectation by the vector comparison rule
(:func:`~doomloop_kit.vectorset.files.compare`), or an engine transcript by
its partial order
(:func:`~doomloop_kit.vectorset.transcripts.compare_transcripts`). An error
answer is an expected outcome (PROT-20) or a harness-side error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from doomloop_kit.conformance.protocol.messages import ErrorBody, Response
from doomloop_kit.vectorset.expectations import ENGINE_ORDER, error_expectation
from doomloop_kit.vectorset.files import Difference, Step, compare
from doomloop_kit.vectorset.transcripts import compare_transcripts
from doomloop_kit.vectorset.vocabulary import ENGINE_OP, EXPECTED_ERRORS, RESUME_OP, UNDECODABLE


@dataclass(frozen=True)
class Wrong:
    """Where a step's answer first differs from its expectation (``count`` differences)."""

    path: str
    reason: str
    expected: Any
    actual: Any
    count: int = 1


@dataclass(frozen=True)
class HarnessSide:
    """An error answer that is no outcome of the operation: the vector errors."""

    cause: str
    message: str


def judge_step(step: Step, response: Response) -> Wrong | HarnessSide | None:
    """Why ``response`` does not meet ``step``'s expectation; None when it does."""
    if "error" in response:
        error = response["error"]
        code, message = error["code"], error["message"]
        if not expected_outcome(error, step.op, step.expect):
            return HarnessSide(f"error-{code}", message)
        reason = _error_mismatch(step.expect, code, message)
        if reason is None:
            return None
        expected = step.expect.get("result", step.expect)
        return Wrong("$", reason, expected, {"error": code, "message": message})
    result = response["result"]
    if step.expects_error is not None:
        reason = f"expected error {step.expects_error}, got a result"
        return Wrong("$", reason, {"error": step.expects_error}, result)
    if _same_text(step.expected_result, result):
        return None  # identical JSON text: equal by the comparison rule, no need to walk
    differences = _differences(step, result)
    if not differences:
        return None
    first = differences[0]
    return Wrong(first.path, first.reason, first.expected, first.actual, len(differences))


def expectation_of(step: Step, response: Response) -> dict[str, Any] | None:
    """The answer in the form of a vector expectation (spec/vectors.md#expect):
    ``{"result": <normative result>}``, or ``{"error": code}`` for a code a vector
    may expect; None for a harness-side error."""
    if "error" not in response:
        return {"result": response["result"]}
    error = response["error"]
    if expected_outcome(error, step.op, step.expect):
        return error_expectation(error["code"], error["message"])
    return None


def expected_outcome(error: ErrorBody, op: str, expect: Mapping[str, Any]) -> bool:
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


def _differences(step: Step, result: Any) -> list[Difference]:
    """The comparison rule of a step: an engine transcript's, by its partial order
    (spec/vectors.md#engine-vectors, ENG-139), for ``runScenario``; else the vector
    comparison rule."""
    if step.op == ENGINE_OP:
        return compare_transcripts(step.expected_result, result, step.expect.get(ENGINE_ORDER))
    return compare(step.expected_result, result)


def _same_text(expected: Any, actual: Any) -> bool:
    """A fast sufficient test of equality: the same sorted JSON text.

    Equal text implies equal values under the vector comparison rule (same
    numbers, same code units, same members); unequal text proves nothing (3
    vs 3.0), so :func:`~doomloop_kit.vectorset.files.compare` decides then.
    """
    try:
        return _SORTED_ENCODER.encode(expected) == _SORTED_ENCODER.encode(actual)
    except (TypeError, ValueError, RecursionError):
        return False


_SORTED_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
