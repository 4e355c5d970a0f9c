"""The runner against the Python reference harness: selection, reports, expected failures."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from doomloop_kit.conformance import report
from doomloop_kit.vectorset.files import iter_vector_files
from harnesses import support
from harnesses.protocol_schema import SCHEMAS, check_traffic


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.fixture_root(tmp_path_factory.mktemp("vectors"))


def _last_lines(capsys: pytest.CaptureFixture[str], count: int = 1) -> list[str]:
    return capsys.readouterr().out.rstrip("\n").splitlines()[-count:]


@pytest.mark.skipif(support.committed_vectors() is None, reason="vectors/ not committed yet")
def test_reference_passes_every_committed_vector() -> None:
    status, lines, _, _ = support.committed_reference_run()
    footer = lines[-1]
    assert status == 0, [line for line in lines if line.get("status") not in (None, "passed")][:3]
    # the reference declares json-own-members, so the js-inherited-members
    # vectors (JS `in`, KEY-23) are skipped and nothing else (CONF-11)
    inherited = sum(
        "js-inherited-members" in vector.features
        for file in support.committed_files()
        for vector in file.vectors
    )
    assert inherited > 0
    assert footer["totals"]["skipped"] == inherited
    assert footer["totals"]["passed"] + inherited == lines[0]["vectorSet"]["vectors"]
    assert lines[0]["vectorSet"]["generatorVersion"]


def test_reference_passes_the_fixtures(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines = support.run(
        ["--vectors", str(root), "--port", support.REFERENCE], tmp_path / "report.jsonl"
    )
    assert status == 0
    total = sum(len(f.vectors) for f in support.fixtures.build_files().values())
    assert _last_lines(capsys, 2) == [
        "breakdown -- wrong answers: 0, errored: 0, unexpected passes: 0, expected failures: 0, "
        "not run: 0",
        f"{total} passed, 0 failed, 0 errored, 0 skipped",
    ]
    header, footer = lines[0], lines[-1]
    assert header["type"] == "header" and header["protocol"] == 1
    assert header["runner"]["version"]
    assert header["vectorSet"]["generatorVersion"] == "test"
    assert header["harness"]["implementation"]["language"] == "python"
    assert len(lines) == total + 2
    assert footer == {
        "type": "footer",
        "status": "complete",
        "reason": None,
        "notRun": 0,
        "totals": {
            "passed": total,
            "failed": 0,
            "errored": 0,
            "skipped": 0,
            "xfailed": 0,
            "xpassed": 0,
            "not-run": 0,
        },
        "missingFeatures": {},
        "restarts": 0,
        "aborted": None,
        "stopped": None,
        "protocolFaults": [],
        "problems": [],
        "exitStatus": 0,
    }


def test_selection_by_file_family_and_glob(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = ["--port", support.REFERENCE]
    assert support.run([str(root / "curated/text.json"), *port])[0] == 0
    assert _last_lines(capsys) == ["3 passed, 0 failed, 0 errored, 0 skipped"]
    assert (
        support.run(
            ["--vectors", str(root), "--family", "escalation", "--family", "functions", *port]
        )[0]
        == 0
    )
    assert _last_lines(capsys) == ["4 passed, 0 failed, 0 errored, 0 skipped"]
    assert (
        support.run(["--vectors", str(root), "-k", "*/declared-*", "-k", "text/period*", *port])[0]
        == 0
    )
    assert _last_lines(capsys) == ["3 passed, 0 failed, 0 errored, 0 skipped"]
    assert support.run(["--vectors", str(root), "-k", "nothing/*", *port])[0] == 2
    assert "no vector matches" in capsys.readouterr().out


def test_missing_features_are_skipped_and_named(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAULT_FEATURES", "undefined")
    status, lines = support.run(
        ["--vectors", str(root), "--port", support.fault("none")], tmp_path / "report.jsonl"
    )
    assert status == 0
    skipped = support.by_status(lines, "skipped")
    assert {line["id"]: line["missingFeatures"] for line in skipped} == {
        "canonical/bigint-error": ["bigint"],
        "canonical/fingerprint-tool": ["lone-surrogates"],
        "canonical/negative-zero": ["negative-zero"],
        "functions/loop-key": ["loop-key-functions"],
    }
    assert lines[-1]["missingFeatures"] == {
        "bigint": 1,
        "lone-surrogates": 1,
        "loop-key-functions": 1,
        "negative-zero": 1,
    }
    out = capsys.readouterr().out
    assert (
        "skipped 4 vector(s) for missing features: bigint (1), lone-surrogates (1), "
        "loop-key-functions (1), negative-zero (1)" in out
    )
    assert out.rstrip().endswith("passed, 0 failed, 0 errored, 4 skipped")


def test_failure_report_names_step_path_and_transcript(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines = support.run(
        [
            "--vectors",
            str(root),
            "-k",
            "text/period-tie",
            "--port",
            support.mutant("larger-period-tie"),
        ],
        tmp_path / "report.jsonl",
    )
    assert status == 1
    (failed,) = support.by_status(lines, "failed")
    failure = failed["failure"]
    assert failure["step"] == 0 and failure["op"] == "detectTextRepetition"
    assert failure["path"] == "$.repeats"
    assert (failure["expected"], failure["actual"]) == (8, 2)
    assert failed["description"] == "equal coverage: the shortest period wins"
    assert failed["transcript"][1].startswith('> {"id":1,"op":"detectTextRepetition"')
    assert failed["transcript"][2].startswith('< {"id":1,"result":{"repeats":2')
    out = capsys.readouterr().out
    assert "FAILED text/period-tie" in out
    assert "step 0 (detectTextRepetition) differs at $.repeats" in out
    assert "expected: 8" in out and "actual:   2" in out
    assert out.rstrip().splitlines()[-1] == "0 passed, 1 failed, 0 errored, 0 skipped"


@pytest.mark.parametrize(
    ("mutant", "vector", "reason"),
    [
        (
            "bigint-canonicalized",
            "canonical/bigint-error",
            "expected error canonicalization, got a result",
        ),
        (
            "negative-zero-refused",
            "canonical/negative-zero",
            "expected a result, got error canonicalization",
        ),
    ],
)
def test_canonicalization_error_mismatch_is_a_failure(
    root: Path, tmp_path: Path, mutant: str, vector: str, reason: str
) -> None:
    """An unexpected or a missing `canonicalization` error is a wrong answer, not an error."""
    status, lines = support.run(
        ["--vectors", str(root), "-k", "canonical/*", "--port", support.mutant(mutant)],
        tmp_path / "report.jsonl",
    )
    assert status == 1
    (failed,) = support.by_status(lines, "failed")
    assert failed["id"] == vector and failed["failure"]["reason"] == reason
    assert not support.by_status(lines, "errored")


def test_expected_failures_strict_both_ways(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = ["--vectors", str(root), "--port", support.mutant("larger-period-tie")]
    written = tmp_path / "written.txt"
    assert support.run([*port, "--write-expected-failures", str(written)])[0] == 1
    ids = [
        line.split()[0]
        for line in written.read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert ids == ["text/js-whitespace", "text/period-tie"]
    assert "# step 0 (detectTextRepetition) differs at $.repeats" in written.read_text()
    capsys.readouterr()

    # the written file makes the run green: failures become expected
    status, lines = support.run([*port, "--expected-failures", str(written)], tmp_path / "r1.jsonl")
    assert status == 0
    assert {line["id"] for line in support.by_status(lines, "xfailed")} == set(ids)
    assert "expected failures: 2" in capsys.readouterr().out

    # a glob works too; an entry matching nothing fails the run
    listed = tmp_path / "listed.txt"
    listed.write_text("text/*  # tie-break differs\nnope/never  # stale\n")
    status, lines = support.run([*port, "--expected-failures", str(listed)], tmp_path / "r2.jsonl")
    assert status == 1
    assert "listed.txt:2: entry 'nope/never' matches no vector" in capsys.readouterr().out
    # text/streak-never-blocks passes under this mutant but is listed by the glob: strict
    assert {line["id"] for line in support.by_status(lines, "xpassed")} == {
        "text/streak-never-blocks"
    }
    assert any("listed as an expected failure but passed" in p for p in lines[-1]["problems"])


def test_max_fail_stops_early(root: Path, tmp_path: Path) -> None:
    status, lines = support.run(
        ["--vectors", str(root), "-x", "--port", support.mutant("tool-name-separator")],
        tmp_path / "report.jsonl",
    )
    assert status == 1
    footer = lines[-1]
    assert footer["totals"]["failed"] == 1
    assert footer["totals"]["not-run"] > 0
    assert "--max-fail" in footer["stopped"]
    status, lines = support.run(
        [
            "--vectors",
            str(root),
            "--max-fail",
            "3",
            "--port",
            support.mutant("tool-name-separator"),
        ],
        tmp_path / "report2.jsonl",
    )
    assert lines[-1]["totals"]["failed"] == 3


def test_junit_xml(root: Path, tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    support.run(
        [
            "--vectors",
            str(root),
            "--port",
            support.mutant("surrogate-utf8-passthrough"),
            "--junit-xml",
            str(junit),
        ]
    )
    suite = ET.parse(junit).getroot()
    total = sum(len(f.vectors) for f in support.fixtures.build_files().values())
    assert suite.tag == "testsuite" and suite.get("tests") == str(total)
    failures = [
        case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None
    ]
    assert failures == ["canonical/fingerprint-tool"]
    assert suite.get("failures") == "1" and suite.get("errors") == "0"


def test_progress_bar_on_a_terminal(root: Path) -> None:
    stream = io.StringIO()
    console = report.Console(stream, "bar", verbose=False)
    vector = support.fixtures.build_files()["curated/text.json"].vectors[0]
    from collections import Counter

    from doomloop_kit.conformance.outcomes import Outcome, Status

    console.begin(2)
    assert "0/2 vectors" in stream.getvalue()
    console.vector(Outcome(vector, "f", Status.PASSED), Counter({Status.PASSED: 1}))
    console.note("a line while the bar is shown")
    # the bar is cleared before the line, drawn again below it with the counts and
    # the time left, and taken away at the end (no bar left behind the summary)
    before, _, after = stream.getvalue().rpartition("a line while the bar is shown\n")
    assert before.endswith("\r") and before.rstrip("\r").endswith(" ")
    assert "1/2 vectors [" in after and "<" in after and "1 passed, 0 failed" in after
    console.end()
    last = stream.getvalue().rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == ""


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_a_line_stdout_cannot_encode_is_escaped_not_a_closed_stdout(encoding: str) -> None:
    """A difference holding a lone surrogate (or any character a non-UTF-8 console cannot
    encode) is printed escaped; it must not end the run as if stdout were closed (141)."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict")
    console = report.Console(stream, "lines", verbose=False)
    console.note('expected: "\ud800\u00e9"')
    console.note("next")
    assert not console.closed
    assert (
        raw.getvalue().decode(encoding)
        == 'expected: "\\ud800' + ("\u00e9" if encoding == "utf-8" else "\\xe9") + '"\nnext\n'
    )


def test_bad_inputs_are_usage_errors(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": 1}')
    assert support.run([str(broken), "--port", support.REFERENCE])[0] == 2
    assert "cannot use the vectors" in capsys.readouterr().out
    bad = tmp_path / "xfail.txt"
    bad.write_text("two ids here\n")
    assert (
        support.run(
            ["--vectors", str(root), "--port", support.REFERENCE, "--expected-failures", str(bad)]
        )[0]
        == 2
    )
    assert "one id or glob per line" in capsys.readouterr().out


def test_vector_files_round_trip_through_the_format_module(root: Path) -> None:
    for path in iter_vector_files(root):
        assert json.loads(path.read_text())["format"] == 1


def test_bad_request_is_compared_only_where_a_step_expects_it() -> None:
    """PROT-40: bad-request is an expected outcome of a step that expects it (an
    undecodable tagged value); anywhere else it still makes the vector error (PROT-20)."""
    from doomloop_kit.conformance.judge import expected_outcome
    from doomloop_kit.conformance.protocol.messages import ErrorBody

    bad_request: ErrorBody = {"code": "bad-request", "message": "free text"}
    assert expected_outcome(bad_request, "canonicalize", {"error": "bad-request"})
    assert not expected_outcome(bad_request, "canonicalize", {"result": "[1]"})
    assert not expected_outcome(bad_request, "canonicalize", {"error": "type-error"})
    assert not expected_outcome(bad_request, "resume", {"error": "bad-request"})
    internal: ErrorBody = {"code": "internal", "message": "boom"}
    assert not expected_outcome(internal, "canonicalize", {"error": "bad-request"})


@pytest.mark.skipif(support.committed_vectors() is None, reason="vectors/ not committed yet")
def test_committed_traffic_validates_and_covers_every_op() -> None:
    """The traffic of the full run above (shared: one run of the committed set) validates
    against the protocol's schemas, and uses every operation they define."""
    status, _, requests, responses = support.committed_reference_run()
    assert status == 0
    ops = check_traffic(requests, responses)
    monitor = json.loads((SCHEMAS / "monitor.schema.json").read_text())["$defs"]
    functions = json.loads((SCHEMAS / "functions.schema.json").read_text())["$defs"]
    engine = json.loads((SCHEMAS / "engine.schema.json").read_text())["$defs"]
    every = {
        name.removesuffix("Request")
        for name in [*monitor, *functions, *engine]
        if name.endswith("Request")
    }
    assert every | {"hello", "create", "close"} == ops
