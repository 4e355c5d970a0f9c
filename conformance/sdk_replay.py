"""Replay the SDK's recorded answers through any protocol-v1 harness (issue 11).

``../shared/upstream/sdk-0.9.0-observations.jsonl`` and
``sdk-0.9.0-corpus.jsonl.gz`` hold requests sent to the SDK 0.9.0 (behind the
kit's TypeScript harness) and the answers it gave. :func:`replay` sends every
request, in file order, to a harness command and requires the SDK's answer,
except on lines an exclusion :class:`Rule` covers; each rule cites the spec
statement that puts its lines outside the kit's domain. Nothing is excluded
line by line.

How an answer is compared (spec/protocol.md PROT-22, PROT-23, PROT-25):

* the ``id`` is compared; a create's session id is not (it is the harness's own);
* an SDK error ``internal`` whose message starts with ``TypeError:`` is the
  code ``type-error`` (the recording harness predates it, PROT-23);
* an error is compared by code; a ``canonicalization`` error also by message;
* a result by the vector comparison rule (spec/vectors.md#comparison), with
  each SDK warning's ``code`` (always ``"unclassified"``: the SDK has messages
  only) replaced by the one the kit derives from the message (CFG-34).

Sessions: a monitor request names ``"@N"`` (the session the ``create`` with id
N made) or, in the observations file, the recording harness's own id; both are
mapped to the replaying harness's session, and a session's lines need the
features its ``create`` needed. A fresh harness process starts whenever a
line's id is not greater than the previous line's.

Exclusions (:data:`SDK_0_9_0_RULES`): a bare ``-0`` token (PROT-29), and a
feature the line needs that the harness does not declare (CONF-05; for
``js-coercion`` CFG-45, for ``js-inherited-members`` KEY-23). The corpus
writes non-finite numbers as bare ``NaN``/``Infinity`` literals; they are sent
as their tags.

Engine lines (``sdk-engine-0.9.0-corpus.jsonl.gz``, one ``runScenario`` each)
are judged with the reference engine run in-process: a scenario whose run the
reference refuses as outside the engine level's domain is excluded (ENG-151);
otherwise the SDK's transcript must equal the reference's, and the harness's
transcript must equal the reference's, both by the partial order of ENG-139
(the reference's order is the only one the two comparisons share). The
recording harness spelled every error the SDK threw as ``sdk-error`` with the
SDK's message: :data:`SDK_ERROR_KINDS` gives its kind (ENG-141).
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import re
import select
import shlex
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from doomloop_kit.jsvalue.values import is_number
from doomloop_kit.reference import messages
from doomloop_kit.vectorset import oracle, vocabulary
from doomloop_kit.vectorset.files import compare
from doomloop_kit.vectorset.transcripts import compare_transcripts

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
    matches: Callable[[Line, frozenset[str], frozenset[str]], bool]
    """(line, the features the line needs, the features the harness declares) -> excluded?"""


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
    if not isinstance(raw, str):
        return json.dumps(_tag_non_finite(record["request"]), allow_nan=False)
    cut = _TRUNCATED.search(raw)
    if cut is None:
        return raw
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


SDK_ERROR_KINDS: Final = (
    ("Invalid final response:", "invalid-final-response"),
    ("Tool(s) require approval but no state accessor", "approval-needs-state-accessor"),
    (
        "approveToolCalls and rejectToolCalls require a state accessor",
        "decisions-need-state-accessor",
    ),
    ("TypeError:", "type-error"),
)
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


@functools.lru_cache(maxsize=4)
def _reference_run(raw_scenario: str) -> tuple[Any, Any] | None:
    """The reference engine's transcript and order for a scenario; None when the run
    leaves the engine level's domain (ENG-151). A malformed scenario raises."""
    from doomloop_kit.engine import OutsideDomain, Scenario, run_scenario
    from doomloop_kit.jsvalue.jsjson import stringify

    try:
        transcript = run_scenario(Scenario.from_json(json.loads(raw_scenario)))
    except OutsideDomain:
        return None
    return json.loads(stringify(transcript.to_json())), transcript.event_order()


def _scenario_key(line: Line) -> str:
    request = line.request if isinstance(line.request, Mapping) else {}
    return json.dumps(request.get("scenario"))


def outside_engine_domain(line: Line) -> bool:
    """A ``runScenario`` line whose run the reference refuses as outside the domain."""
    request = line.request if isinstance(line.request, Mapping) else {}
    return request.get("op") == vocabulary.ENGINE_OP and _reference_run(_scenario_key(line)) is None


def _engine_differences(line: Line, actual: Mapping[str, Any]) -> list[str]:
    """A ``runScenario`` line: SDK = reference = harness, by the partial order (ENG-139)."""
    found = [str(d) for d in compare(line.sdk.get("id"), actual.get("id"), "$.id")]
    reference = _reference_run(_scenario_key(line))
    assert reference is not None, "outside the domain: excluded before comparing"
    transcript, order = reference
    if "result" not in line.sdk:
        return [*found, f"the recording holds no transcript: {line.sdk}"]
    sdk = compare_transcripts(transcript, sdk_transcript(line.sdk["result"]), order)
    found += [f"the reference departs from the SDK: {d}" for d in sdk[:1]]
    if "result" not in actual:
        return [*found, f"expected a transcript, got {actual}"]
    return found + [str(d) for d in compare_transcripts(transcript, actual["result"], order)[:1]]


def differences(line: Line, actual: Mapping[str, Any]) -> list[str]:
    """Why the harness's answer is not the SDK's (empty when it is)."""
    expected = sdk_expectation(line.sdk)
    op = line.request.get("op") if isinstance(line.request, Mapping) else None
    if op == vocabulary.ENGINE_OP:
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
    if op == "create":
        return found  # the session id is the harness's own
    want = _derived_codes(str(op), expected["result"])
    return found + [str(d) for d in compare(want, actual["result"], "$.result")]


# -- what a line needs, and the exclusion rules ---------------------------------------

_INPUTS_IGNORED: Final = ("id", "op", "session")
ENGINE_FEATURE: Final = "engine"
"""The feature a ``runScenario`` line needs (spec/features.md#engine)."""


def needs(line: Line) -> frozenset[str]:
    """The features a line's own request needs (spec/features.md): those its
    tagged inputs reveal, ``js-coercion`` (CFG-45), and ``js-inherited-members``
    when a field list names an inherited member absent from ``args`` (KEY-23)."""
    request = line.request if isinstance(line.request, Mapping) else {}
    found: set[str] = set()
    for name, value in request.items():
        if name not in _INPUTS_IGNORED:
            found |= vocabulary.features_of(value)
    if vocabulary.uses_js_coercion(request):
        found.add("js-coercion")
    if oracle.needs_member_rule(request):
        found.add("js-inherited-members")
    if request.get("op") == vocabulary.ENGINE_OP:
        found.add(ENGINE_FEATURE)
    return frozenset(found)


_NEGATIVE_ZERO: Final = {"$js": "number", "value": "-0"}
_JSON_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
_ID_MEMBER: Final = re.compile(r'^\{"":\s*-?[0-9.eE+]+\s*,')
_BARE_NEGATIVE_ZERO: Final = re.compile(r"[:\[,]\s*-0\s*[,\]}]")


def _holds(value: Any, wanted: Any) -> bool:
    if value == wanted and type(value) is type(wanted):
        return True
    if isinstance(value, float) and value == 0 and math.copysign(1.0, value) < 0:
        return bool(wanted == _NEGATIVE_ZERO)
    if isinstance(value, Mapping):
        return any(_holds(member, wanted) for member in value.values())
    if isinstance(value, list):
        return any(_holds(item, wanted) for item in value)
    return False


def raw_negative_zero(line: Line) -> bool:
    """The request carried a bare ``-0`` token in an input (PROT-29, DIV-12).

    Seen either in the raw request text, or -- where the recording wrote the
    request after a JSON reader had already turned that token into ``0`` -- in
    an SDK answer holding a negative zero that no input of the request holds.
    """
    values = _JSON_STRING.sub('""', line.raw)
    values = _ID_MEMBER.sub("", values, count=1)  # an id of -0 is the id 0 (PROT-24)
    if _BARE_NEGATIVE_ZERO.search(values):
        return True
    return _holds(line.sdk, _NEGATIVE_ZERO) and not _holds(line.request, _NEGATIVE_ZERO)


_FEATURE_STATEMENTS: Final = {"js-coercion": "CFG-45", "js-inherited-members": "KEY-23"}
"""The statement that puts a feature's inputs outside the core domain; CONF-05 otherwise."""


def _undeclared(feature: str) -> Rule:
    return Rule(
        f"needs {feature}",
        _FEATURE_STATEMENTS.get(feature, "CONF-05"),
        f"the request needs feature {feature}, which the harness does not declare",
        lambda line, needed, declared: feature in needed and feature not in declared,
    )


SDK_0_9_0_RULES: Final = (
    Rule(
        "raw -0 token",
        "PROT-29",
        "a bare -0 number token is outside the protocol's input domain (DIV-12)",
        lambda line, needed, declared: raw_negative_zero(line),
    ),
    *(_undeclared(feature) for feature in vocabulary.FEATURES),
    Rule(
        "outside the engine level's domain",
        "ENG-151",
        "the run decides a pending call twice, pauses for approval beside a call of a hitl "
        "tool, or approves a call of a hitl tool whose body returns null",
        lambda line, needed, declared: outside_engine_domain(line),
    ),
    _undeclared(ENGINE_FEATURE),
)
"""Every exclusion the replay of the SDK 0.9.0 recordings applies."""


# -- talking to a harness -----------------------------------------------------------


class RawHarness:
    """One harness process, sent recorded request lines verbatim, one at a time.

    Not :class:`~doomloop_kit.conformance.protocol.Connection`: that client
    numbers requests itself, while these lines must reach the harness exactly
    as recorded (their own ids included, PROT-24). A harness that does not
    answer within ``timeout`` seconds is killed and the replay fails.
    """

    def __init__(self, command: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
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
        ready, _, _ = select.select([self.process.stdout], [], [], self.timeout)
        if not ready:
            self.process.kill()
            raise RuntimeError(f"the harness did not answer within {self.timeout} s: {raw[:200]!r}")
        answer = self.process.stdout.readline()
        if not answer.strip():
            raise RuntimeError(f"the harness wrote no answer to {raw[:200]!r}")
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _with_session(line: Line, sessions: Mapping[str, str]) -> str:
    request = line.request
    if not isinstance(request, Mapping) or request.get("op") not in MONITOR_OPS:
        return line.raw
    named = request.get("session")
    if not isinstance(named, str) or named not in sessions:
        return line.raw
    return json.dumps(_tag_non_finite({**request, "session": sessions[named]}), allow_nan=False)


def _ids(lines: Iterable[Line]) -> Iterator[tuple[Line, bool]]:
    """Each line with whether it starts a fresh harness (its id did not increase)."""
    previous: float | None = None
    for line in lines:
        ident = line.request.get("id") if isinstance(line.request, Mapping) else None
        number = float(ident) if isinstance(ident, int | float) and is_number(ident) else None
        yield line, previous is None or (number is not None and number <= previous)
        previous = number if number is not None else previous


def replay(command: str, lines: Sequence[Line], rules: Sequence[Rule]) -> Report:
    """Send every line to ``command`` (a protocol-v1 harness) and compare (module doc)."""
    report = Report()
    harness: RawHarness | None = None
    sessions: dict[str, str] = {}
    session_needs: dict[str, frozenset[str]] = {}  # a session's lines need what its create needed
    try:
        for line, fresh in _ids(lines):
            if fresh:
                if harness is not None:
                    harness.close()
                harness, sessions = RawHarness(command), {}
            assert harness is not None
            answer = harness.ask(_with_session(line, sessions))
            request = line.request if isinstance(line.request, Mapping) else {}
            needed = needs(line) | session_needs.get(str(request.get("session")), frozenset())
            if request.get("op") == "create":
                # the session is named "@<id>" or by the recording's own id; a
                # create that failed here maps them to a name no harness opened
                ours = answer["result"]["session"] if "result" in answer else "@none"
                recorded = line.sdk.get("result")
                names = [f"@{request.get('id')}"]
                if isinstance(recorded, Mapping):
                    names.append(str(recorded.get("session")))
                for name in names:
                    sessions[name], session_needs[name] = ours, needed
            rule = next((r for r in rules if r.matches(line, needed, harness.features)), None)
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m doomloop_kit.conformance.sdk_replay --port CMD FILE...``: replay
    recordings through a harness; exit 1 on any difference."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m doomloop_kit.conformance.sdk_replay")
    parser.add_argument("--port", required=True, help="shell command starting the harness")
    parser.add_argument("files", nargs="+", type=Path, help="observations .jsonl / corpus .gz")
    args = parser.parse_args(argv)
    different = False
    for path in args.files:
        report = replay(args.port, read_lines(path), SDK_0_9_0_RULES)
        print(f"{path.name}: {report.summary()}")
        for difference in report.differences[:20]:
            print(f"  {difference}")
        different = different or bool(report.differences)
    return 1 if different else 0


if __name__ == "__main__":
    raise SystemExit(main())
