"""The SDK decides (issue 11): every recorded SDK answer is reproduced or excluded by a rule.

``../shared/upstream/sdk-0.9.0-observations.jsonl`` (74 lines) and
``sdk-0.9.0-corpus.jsonl.gz`` (16,122 lines) are the SDK 0.9.0's own answers.
:func:`assert_reproduces_sdk` replays both through a harness command
(:mod:`doomloop_kit.conformance.sdk_replay`) and fails on any line that is
neither reproduced nor excluded by one of ``SDK_0_9_0_RULES``, each of which
cites the spec statement that puts its lines outside the domain.

The Python reference harness and both in-tree ports (built by ``make ports``,
which ``make test`` runs first) are replayed; a port that is not built fails.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from doomloop_kit.conformance import sdk_replay
from doomloop_kit.vectorset.files import iter_vector_files, load_vector_file
from harnesses import support

UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "upstream"
OBSERVATIONS = UPSTREAM / "sdk-0.9.0-observations.jsonl"
CORPUS = UPSTREAM / "sdk-0.9.0-corpus.jsonl.gz"
SPEC = support.REPO / "spec"


def assert_reproduces_sdk(command: str) -> dict[str, sdk_replay.Report]:
    """Replay both recordings through ``command``; every line reproduced or excluded.

    Prints, per file, how many lines were reproduced and how many each rule
    excluded, and returns the reports.
    """
    reports = {}
    for path in (OBSERVATIONS, CORPUS):
        lines = sdk_replay.read_lines(path)
        report = sdk_replay.replay(command, lines, sdk_replay.SDK_0_9_0_RULES)
        print(f"{path.name}: {report.summary()}")
        assert not report.differences, "\n".join(report.differences[:20])
        assert report.reproduced + sum(report.excluded.values()) == len(lines)
        reports[path.name] = report
    return reports


PORTS = {
    # the TS port declares js-coercion and js-inherited-members (it is JS)
    "typescript": (
        f"node {support.REPO / 'ports/typescript/dist/harness.js'}",
        {"raw -0 token (PROT-29)"},
    ),
    # the Go port declares json-own-members and js-coercion, not js-inherited-members
    "go": (
        str(support.REPO / "ports/go/bin/doomloop-harness"),
        {"raw -0 token (PROT-29)", "needs js-inherited-members (KEY-23)"},
    ),
}


@pytest.mark.parametrize("port", sorted(PORTS))
def test_in_tree_port_reproduces_the_sdk(port: str) -> None:
    command, allowed_exclusions = PORTS[port]
    reports = assert_reproduces_sdk(command)
    for report in reports.values():
        assert set(report.excluded) <= allowed_exclusions, report.summary()


def test_python_reference_reproduces_the_sdk(
    record_property: Callable[[str, object], None],
) -> None:
    reports = assert_reproduces_sdk(support.REFERENCE)
    for name, report in reports.items():
        record_property(name, report.summary())
    corpus = reports[CORPUS.name]
    # the exclusions stay a small, named minority of the corpus
    assert corpus.reproduced > 16_000
    assert set(corpus.excluded) <= {
        "raw -0 token (PROT-29)",
        "needs js-inherited-members (KEY-23)",
    }


def test_every_rule_cites_a_statement_of_the_spec() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in SPEC.glob("*.md"))
    anchors = set(re.findall(r'<a id="([A-Z]+-\d+)"></a>', text))
    for rule in sdk_replay.SDK_0_9_0_RULES:
        assert rule.statement in anchors, rule.name


def test_a_changed_answer_is_a_difference() -> None:
    """The replay can fail: one SDK answer edited (a verdict action) is reported."""
    lines = sdk_replay.read_lines(OBSERVATIONS)
    index = next(i for i, line in enumerate(lines) if line.request.get("op") == "recordToolCall")
    edited = dict(lines[index].sdk)
    result = dict(edited["result"])
    result["verdict"] = {**result["verdict"], "action": "observe"}
    edited["result"] = result
    lines[index] = dataclasses.replace(lines[index], sdk=edited)
    report = sdk_replay.replay(support.REFERENCE, lines, sdk_replay.SDK_0_9_0_RULES)
    assert len(report.differences) == 1
    assert "$.result.verdict.action" in report.differences[0]


def test_a_recorded_type_error_is_the_code_type_error() -> None:
    answer = {"id": 1, "error": {"code": "internal", "message": "TypeError: x of null"}}
    assert sdk_replay.sdk_expectation(answer)["error"]["code"] == "type-error"
    other = {"id": 1, "error": {"code": "internal", "message": "RangeError: x"}}
    assert sdk_replay.sdk_expectation(other) == other


def test_a_bare_negative_zero_is_recognised() -> None:
    def line(raw: str, sdk: Mapping[str, object]) -> sdk_replay.Line:
        return sdk_replay.Line(1, "t", {}, raw, sdk)

    assert sdk_replay.raw_negative_zero(line('{"id": 1, "option": {"m": -0}}', {}))
    assert not sdk_replay.raw_negative_zero(line('{"id": -0, "option": {"m": 0}}', {}))
    assert not sdk_replay.raw_negative_zero(line('{"id": 1, "text": "a: -0, b"}', {}))
    lost = {"result": {"m": {"$js": "number", "value": "-0"}}}
    assert sdk_replay.raw_negative_zero(line('{"id": 1, "option": {"m": 0}}', lost))


PROFILE = support.REPO / "conformance" / "profiles" / "sdk-0.9.0.txt"


def test_the_sdk_profile_is_runner_data() -> None:
    """The profile reads as an expected-failures file; its entries name real
    vectors, and its undeclared features are features of the vocabulary."""
    from doomloop_kit.conformance.expected_failures import read_expected_failures
    from doomloop_kit.vectorset.vocabulary import FEATURES

    entries = read_expected_failures(PROFILE)
    ids = (
        [
            vector.id
            for path in iter_vector_files(support.COMMITTED)
            for vector in load_vector_file(path).vectors
        ]
        if entries
        else []
    )
    for entry in entries:
        assert entry.reason, f"line {entry.line}: an expected failure needs its reason"
        assert any(fnmatch.fnmatchcase(i, entry.pattern) for i in ids), entry.pattern
    (line,) = [x for x in PROFILE.read_text().splitlines() if "features-not-declared:" in x]
    undeclared = line.split(":", 1)[1].split()
    assert undeclared and set(undeclared) <= set(FEATURES)
    # a harness declares at most one of the two field-list expectations (CONF-11)
    assert "json-own-members" in undeclared and "js-inherited-members" not in undeclared


def test_a_sessions_lines_need_what_its_create_needed() -> None:
    """C7: the create needs js-coercion (a NaN text.enabled), so its session's
    recordAssistantText lines are excluded with it for a harness without it."""
    lines = [line for line in sdk_replay.read_lines(OBSERVATIONS) if line.klass.startswith("C7")]
    coercion = sdk_replay.Rule(
        "needs js-coercion",
        "CFG-45",
        "as for a harness that does not declare js-coercion",
        lambda line, needed, declared: "js-coercion" in needed,
    )
    report = sdk_replay.replay(support.REFERENCE, lines, [coercion])
    assert len(lines) == 6
    assert report.excluded == {"needs js-coercion (CFG-45)": 6}


def test_the_command_line_reports_and_exits_by_the_differences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert sdk_replay.main(["--port", support.REFERENCE, str(OBSERVATIONS)]) == 0
    assert "68 reproduced" in capsys.readouterr().out
    # one SDK answer edited: the same command exits 1 and names the line
    edited = tmp_path / "edited.jsonl"
    records = [json.loads(text) for text in OBSERVATIONS.read_text().splitlines()]
    first = next(r for r in records if r["request"].get("op") == "canEscalate")
    first["sdk"]["result"] = not first["sdk"]["result"]
    edited.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert sdk_replay.main(["--port", support.REFERENCE, str(edited)]) == 1
    assert "$.result" in capsys.readouterr().out


NULL_CREATE = """
import json, re, sys
for text in sys.stdin:
    try:
        request = json.loads(text)
    except RecursionError:  # a deeply nested value: its id is enough here
        request = {"id": int(re.match(r'{"id": ([0-9]+)', text).group(1))}
    if request.get("op") == "hello":
        result = {"protocol": 1, "features": [],
                  "implementation": {"name": "null", "language": "py", "version": "0"}}
    else:
        result = None
    print(json.dumps({"id": request.get("id"), "result": result}), flush=True)
"""


def test_a_create_answered_without_a_session_is_a_difference(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A harness answering ``create`` with ``{"result": null}`` differs on that line; the
    replay goes on (the session's later lines name no session the harness opened)."""
    harness = tmp_path / "null_create.py"
    harness.write_text(NULL_CREATE)
    lines = sdk_replay.read_lines(OBSERVATIONS)
    creates = [
        line.number for line in lines if line.request.get("op") == "create" and "result" in line.sdk
    ]
    assert creates
    report = sdk_replay.replay(f"python3 {harness}", lines, [])
    named = [d for d in report.differences if "expected a result naming a session" in d]
    assert [int(d.split()[1]) for d in named] == creates
    assert sdk_replay.main(["--port", f"python3 {harness}", str(OBSERVATIONS)]) == 1
    assert "expected a result naming a session" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["false", "echo not-json", "python3 -c pass"])
def test_an_unusable_harness_ends_the_replay_with_exit_3_and_one_line(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``conformance run`` (docs/guide/ci.md#how-a-run-ends): a harness that cannot be
    used is exit 3 (not 1, "differences found"), one line on stderr, no traceback."""
    assert sdk_replay.main(["--port", command, str(OBSERVATIONS)]) == 3
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "the harness is unusable" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""
