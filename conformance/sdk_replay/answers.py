"""How a harness's answer to a recorded line is compared with the SDK's (PROT-22, PROT-23,
PROT-25, ENG-139, ENG-141): the rules of the package's docstring, one function each."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from doomloop_kit.jsvalue.jsjson import stringify
from doomloop_kit.reference import messages
from doomloop_kit.vectorset.files import compare
from doomloop_kit.vectorset.transcripts import compare_transcripts
from doomloop_kit.vectorset.vocabulary import ENGINE_OP

from .recordings import Line


def sdk_expectation(answer: Mapping[str, Any]) -> Mapping[str, Any]:
    """The SDK's answer with a recorded JS TypeError read as ``type-error`` (PROT-25)."""
    error = answer.get("error")
    if (
        isinstance(error, Mapping)
        and error.get("code") == "internal"
        and str(error.get("message", "")).startswith("TypeError:")
    ):
        return {**answer, "error": {**error, "code": "type-error"}}
    return answer


def _derived_codes(op: str, result: Any) -> Any:
    """The SDK's warnings with the kit's ``code``/``rung``/``shadowedBy`` derived
    from each message (CFG-34) in place of the recording's ``"unclassified"``."""
    if op == "resolveOption" and isinstance(result, Mapping):
        warnings = result.get("warnings")
        if isinstance(warnings, list):
            return {
                **result,
                "warnings": [
                    messages.warning_data(w["message"]) if isinstance(w, Mapping) else w
                    for w in warnings
                ],
            }
    return result


def _sdk_error_kinds() -> tuple[tuple[str, str], ...]:
    """The rows of ``sdk-error-kinds.json``, the kit's one table of them (the TypeScript
    harness's ``--sdk-engine`` reads the same file)."""
    text = resources.files(__package__).joinpath("sdk-error-kinds.json").read_text("utf-8")
    return tuple((row["start"], row["kind"]) for row in json.loads(text)["kinds"])


SDK_ERROR_KINDS: Final = _sdk_error_kinds()
"""The kind of each error the SDK threw (ENG-141), by the start of its message."""


def sdk_transcript(result: Any) -> Any:
    """The SDK's transcript with each ``sdk-error`` given its kind (ENG-141)."""
    if not isinstance(result, Mapping) or not isinstance(result.get("runs"), list):
        return result
    runs = []
    for run in result["runs"]:
        error = run.get("end", {}).get("error") if isinstance(run, Mapping) else None
        if isinstance(error, Mapping) and error.get("kind") == "sdk-error":
            message = str(error.get("message", ""))
            kind = next((k for start, k in SDK_ERROR_KINDS if message.startswith(start)), None)
            if kind is not None:
                run = {**run, "end": {**run["end"], "error": {**error, "kind": kind}}}
        runs.append(run)
    return {**result, "runs": runs}


@dataclass(frozen=True)
class ReferenceRun:
    """The reference engine's answer to a recorded scenario: its transcript and order
    (ENG-139), of every run, or of the runs before the one that leaves the engine
    level's domain (ENG-151); ``in_domain`` is then that run's index."""

    transcript: Any
    order: Any
    in_domain: int | None = None


@functools.cache
def _reference_run(raw_scenario: str) -> ReferenceRun:
    """Cached for the process: each line asks more than once (is it in the domain, which
    runs are compared, the comparison), and a corpus replayed through several harnesses in
    one process (the test-suite replays the engine corpus through three) runs the
    reference once a line."""
    from doomloop_kit.engine import OutsideDomain, Scenario, run_scenario  # engine lines only

    transcript: Any
    in_domain: int | None
    try:
        transcript = run_scenario(Scenario.from_json(json.loads(raw_scenario)))
    except OutsideDomain as outside:
        transcript, in_domain = outside.before, outside.run
    else:
        in_domain = None
    json_form = json.loads(stringify(transcript.to_json()))
    return ReferenceRun(json_form, transcript.event_order(), in_domain)


def reference_run(line: Line) -> ReferenceRun:
    """The reference engine's answer to a ``runScenario`` line. A malformed scenario raises."""
    request = line.request if isinstance(line.request, Mapping) else {}
    return _reference_run(json.dumps(request.get("scenario")))


def outside_engine_domain(line: Line) -> bool:
    """A ``runScenario`` line whose first run the reference refuses as outside the domain:
    nothing of it is compared (ENG-151)."""
    request = line.request if isinstance(line.request, Mapping) else {}
    return request.get("op") == ENGINE_OP and reference_run(line).in_domain == 0


def runs_compared(line: Line) -> int | None:
    """How many runs of a ``runScenario`` line are compared: those before the one that
    leaves the domain; None for every run (or a line of another operation)."""
    request = line.request if isinstance(line.request, Mapping) else {}
    return reference_run(line).in_domain if request.get("op") == ENGINE_OP else None


def _first_runs(transcript: Any, count: int | None) -> Any:
    """The transcript with only its first ``count`` runs (all of them for None)."""
    if count is None or not isinstance(transcript, Mapping):
        return transcript
    runs = transcript.get("runs")
    return {**transcript, "runs": runs[:count]} if isinstance(runs, list) else transcript


def _engine_differences(line: Line, actual: Mapping[str, Any]) -> list[str]:
    """A ``runScenario`` line: SDK = reference = harness, by the partial order (ENG-139),
    over the runs before any that leaves the domain (ENG-151). A harness may answer
    ``bad-scenario`` for a scenario that leaves it (PROT-43): its runs are then not judged,
    the SDK's still are."""
    found = [str(d) for d in compare(line.sdk.get("id"), actual.get("id"), "$.id")]
    reference = reference_run(line)
    transcript, order, count = reference.transcript, reference.order, reference.in_domain
    if "result" not in line.sdk:
        return [*found, f"the recording holds no transcript: {line.sdk}"]
    sdk = _first_runs(sdk_transcript(line.sdk["result"]), count)
    found += [
        f"the reference departs from the SDK: {d}"
        for d in compare_transcripts(transcript, sdk, order)[:1]
    ]
    error = actual.get("error")
    if count is not None and isinstance(error, Mapping) and error.get("code") == "bad-scenario":
        return found
    if "result" not in actual:
        return [*found, f"expected a transcript, got {actual}"]
    answer = _first_runs(actual["result"], count)
    return found + [str(d) for d in compare_transcripts(transcript, answer, order)[:1]]


def created_session(answer: Mapping[str, Any]) -> str | None:
    """The session id a ``create`` answer names; None for an error or a malformed result."""
    result = answer.get("result")
    session = result.get("session") if isinstance(result, Mapping) else None
    return session if isinstance(session, str) else None


def differences(line: Line, actual: Mapping[str, Any]) -> list[str]:
    """Why the harness's answer is not the SDK's (empty when it is)."""
    expected = sdk_expectation(line.sdk)
    op = line.request.get("op") if isinstance(line.request, Mapping) else None
    if op == ENGINE_OP:
        return _engine_differences(line, actual)
    found = [str(d) for d in compare(expected.get("id"), actual.get("id"), "$.id")]
    if "error" in expected:
        error = actual.get("error")
        if not isinstance(error, Mapping):
            return [*found, f"expected error {expected['error']}, got {actual}"]
        want = expected["error"]
        if error.get("code") != want["code"]:
            found.append(f"error code {error.get('code')!r}, expected {want['code']!r}")
        elif want["code"] == "canonicalization" and error.get("message") != want["message"]:
            found.append(f"message {error.get('message')!r}, expected {want['message']!r}")
        return found
    if "result" not in actual:
        return [*found, f"expected result {expected['result']!r}, got {actual}"]
    if op == "create":  # the session id is the harness's own: any string
        if created_session(actual) is None:
            found.append(f"expected a result naming a session, got {actual['result']!r}")
        return found
    want = _derived_codes(str(op), expected["result"])
    return found + [str(d) for d in compare(want, actual["result"], "$.result")]
