"""Replay the SDK's recorded answers through any protocol-v1 harness (issue 11).

``../shared/upstream/sdk-0.9.0-observations.jsonl`` and
``sdk-0.9.0-corpus.jsonl.gz`` hold requests sent to the SDK 0.9.0 (behind the
kit's TypeScript harness) and the answers it gave. :func:`replay` sends every
request, in file order, to a harness command and requires the SDK's answer,
except on lines an exclusion :class:`Rule` covers; each rule cites the spec
statement that puts its lines outside the kit's domain. Nothing is excluded
line by line.

How an answer is compared (spec/protocol.md PROT-19, PROT-20, PROT-26):

* the ``id`` is compared; a create's session id is not (it is the harness's own);
* an SDK error ``internal`` whose message starts with ``TypeError:`` is the
  code ``type-error`` (the recording harness predates it, PROT-25);
* an error is compared by code; a ``canonicalization`` error also by message;
* a result by the vector comparison rule (spec/vectors.md#comparison), with
  ``warnings[].code`` ignored (the SDK has messages only, CFG-34).

Sessions: a monitor request names ``"@N"`` (the session the ``create`` with id
N made) or, in the observations file, the recording harness's own id; both are
mapped to the replaying harness's session. A fresh harness process starts
whenever a line's id is not greater than the previous line's.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import shlex
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from doomloop_kit.generators.format import compare
from doomloop_kit.reference.jsvalues import is_number

MONITOR_OPS: Final = frozenset(
    {
        "declareRound",
        "recordToolCall",
        "recordAssistantText",
        "resetTextStreak",
        "canEscalate",
        "consumeEscalation",
        "getState",
        "restore",
        "close",
    }
)


@dataclass(frozen=True)
class Line:
    """One recorded request and the SDK's answer."""

    number: int
    klass: str
    request: Any
    """The request as JSON data (for a deep request, its members but a null value)."""
    raw: str
    """The request line exactly as sent to the SDK."""
    sdk: Mapping[str, Any]


@dataclass(frozen=True)
class Rule:
    """An exclusion: the lines it matches are outside the domain by ``statement``."""

    name: str
    statement: str
    reason: str
    matches: Callable[[Line, frozenset[str]], bool]
    """(line, the harness's declared features) -> excluded?"""


@dataclass
class Report:
    """What a replay found."""

    reproduced: int = 0
    excluded: Counter[str] = field(default_factory=Counter)
    differences: list[str] = field(default_factory=list)

    def summary(self) -> str:
        rules = ", ".join(f"{name}: {count}" for name, count in sorted(self.excluded.items()))
        return (
            f"{self.reproduced} reproduced, {sum(self.excluded.values())} excluded"
            f" ({rules or 'none'}), {len(self.differences)} different"
        )


# -- reading the recordings ------------------------------------------------------

_TRUNCATED: Final = re.compile(r"\u2026\((\d+) chars\)$")
_NESTED: Final = re.compile(r"^\((\d+) nested arrays around (\S+);")


def _tag_non_finite(value: Any) -> Any:
    """The corpus writes NaN and +/-Infinity as bare literals (not JSON); on the
    wire they travel as their tags (PROT-04, PROT-05)."""
    if isinstance(value, float) and not math.isfinite(value):
        name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return {"$js": "number", "value": name}
    if isinstance(value, list):
        return [_tag_non_finite(item) for item in value]
    if isinstance(value, dict):
        return {key: _tag_non_finite(member) for key, member in value.items()}
    return value


def _raw_request(record: Mapping[str, Any]) -> str:
    """The request line: ``request_raw`` when given (rebuilding the one abridged
    deep-nesting line from its description), else the request as JSON."""
    raw = record.get("request_raw")
    if raw is None:
        return json.dumps(_tag_non_finite(record["request"]), allow_nan=False)
    cut = _TRUNCATED.search(raw)
    if cut is None:
        return str(raw)
    nested = _NESTED.match(str(record["request"]))
    if nested is None:
        raise ValueError(f"cannot rebuild an abridged request: {record['request']!r}")
    depth, atom = int(nested.group(1)), nested.group(2)
    prefix = raw[: raw.index("[")]
    rebuilt = prefix + "[" * depth + atom + "]" * depth + "}"
    if len(rebuilt) != int(cut.group(1)):
        raise ValueError("the rebuilt request does not have the recorded length")
    return rebuilt


def read_lines(path: Path) -> list[Line]:
    """Every line of an observations (``.jsonl``) or corpus (``.jsonl.gz``) file."""
    opener = gzip.open if path.suffix == ".gz" else open
    lines = []
    with opener(path, "rt", encoding="utf-8") as stream:
        for number, text in enumerate(stream, start=1):
            if text.strip():
                record = json.loads(text)
                raw = _raw_request(record)
                request = record["request"]
                if not isinstance(request, Mapping):  # abridged: its members up to the value
                    request = json.loads(raw[: raw.index("[")] + "null}")
                lines.append(Line(number, record["class"], request, raw, record["sdk"]))
    return lines


# -- comparing one answer ---------------------------------------------------------


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


def _without_warning_codes(op: str, result: Any) -> Any:
    if op == "resolveOption" and isinstance(result, Mapping):
        warnings = result.get("warnings")
        if isinstance(warnings, list):
            return {
                **result,
                "warnings": [
                    {k: v for k, v in w.items() if k != "code"} if isinstance(w, Mapping) else w
                    for w in warnings
                ],
            }
    return result


def differences(line: Line, actual: Mapping[str, Any]) -> list[str]:
    """Why the harness's answer is not the SDK's (empty when it is)."""
    expected = sdk_expectation(line.sdk)
    op = line.request.get("op") if isinstance(line.request, Mapping) else None
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
    if op == "create":
        return found  # the session id is the harness's own
    want, got = (_without_warning_codes(str(op), r) for r in (expected["result"], actual["result"]))
    return found + [str(d) for d in compare(want, got, "$.result")]


# -- talking to a harness -----------------------------------------------------------


class Harness:
    """One harness process, spoken to one request at a time."""

    def __init__(self, command: str) -> None:
        self.process = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        hello = self.ask('{"id": 0, "op": "hello", "protocol": 1}')
        self.features = frozenset(hello["result"]["features"])

    def ask(self, raw: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(raw.encode("utf-8", "surrogatepass") + b"\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer.strip():
            raise RuntimeError(f"the harness wrote no answer to {raw[:200]!r}")
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def _with_session(line: Line, sessions: Mapping[str, str]) -> str:
    request = line.request
    if not isinstance(request, Mapping) or request.get("op") not in MONITOR_OPS:
        return line.raw
    named = request.get("session")
    if not isinstance(named, str) or named not in sessions:
        return line.raw
    return json.dumps({**request, "session": sessions[named]})


def _ids(lines: Iterable[Line]) -> Iterator[tuple[Line, bool]]:
    """Each line with whether it starts a fresh harness (its id did not increase)."""
    previous: float | None = None
    for line in lines:
        ident = line.request.get("id") if isinstance(line.request, Mapping) else None
        number = float(ident) if is_number(ident) else None
        yield line, previous is None or (number is not None and number <= previous)
        previous = number if number is not None else previous


def replay(command: str, lines: Sequence[Line], rules: Sequence[Rule]) -> Report:
    """Send every line to ``command`` (a protocol-v1 harness) and compare (module doc)."""
    report = Report()
    harness: Harness | None = None
    sessions: dict[str, str] = {}
    try:
        for line, fresh in _ids(lines):
            if fresh:
                if harness is not None:
                    harness.close()
                harness, sessions = Harness(command), {}
            assert harness is not None
            answer = harness.ask(_with_session(line, sessions))
            request = line.request if isinstance(line.request, Mapping) else {}
            if request.get("op") == "create" and "result" in answer:
                ours = answer["result"]["session"]
                sessions[f"@{request.get('id')}"] = ours
                recorded = line.sdk.get("result")
                if isinstance(recorded, Mapping):
                    sessions[str(recorded.get("session"))] = ours
            rule = next((r for r in rules if r.matches(line, harness.features)), None)
            if rule is not None:
                report.excluded[f"{rule.name} ({rule.statement})"] += 1
                continue
            found = differences(line, answer)
            if found:
                report.differences.append(f"line {line.number} [{line.klass}]: {'; '.join(found)}")
            else:
                report.reproduced += 1
    finally:
        if harness is not None:
            harness.close()
    return report
