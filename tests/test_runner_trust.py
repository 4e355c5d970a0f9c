"""Runner 2 (issue 13): results a CI can trust.

One test (or a few) per finding of the issue's "Why": integrity of the vector
set, reports that survive aborts, no silent skips or bad numbers, selection
that means what it says, a loader that reads only what it needs, and a core
whose shape the tests pin.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.conformance import cli, outcomes
from doomloop_kit.vectorset import files, loading, resources
from harnesses import support

REPO = support.REPO
SMALL = ["--family", "fanout", "--family", "state"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return support.fixture_root(tmp_path / "vectors")


def _out(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def _rewrite(root: Path, label: str, change: Callable[[dict[str, Any]], None]) -> None:
    """Change one vector file and bring the manifest up to date (sha, count, total)."""
    path = root / label
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    files.write_json_atomic(path, data)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        if entry["path"] == label:
            entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
            entry["vectors"] = len(data["vectors"])
    manifest["vectors"] = sum(entry["vectors"] for entry in manifest["files"])
    files.write_json_atomic(root / "manifest.json", manifest)


def _edit_manifest(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    change(manifest)
    files.write_json_atomic(root / "manifest.json", manifest)


def _run(root: Path, *extra: str, report: Path | None = None) -> tuple[int, list[dict[str, Any]]]:
    return support.run(["--vectors", str(root), "--port", support.REFERENCE, *extra], report)


# -- integrity -----------------------------------------------------------------------------


def test_an_edited_expectation_is_an_integrity_error(
    root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = root / "curated/text.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["vectors"][0]["steps"][0]["expect"] = {"result": "edited by hand"}
    files.write_json_atomic(path, data)  # the manifest still has the old sha256
    status, _ = _run(root)
    assert status == 2
    out = _out(capsys)
    assert "integrity" in out and "curated/text.json: sha256" in out and "--no-verify" in out
    # --no-verify runs it anyway, and the report header says so
    status, lines = _run(root, "--no-verify", report=tmp_path / "r.jsonl")
    assert status == 1  # the edited expectation now blames the port
    header = lines[0]["vectorSet"]
    assert header["verified"] is False
    assert any("curated/text.json: sha256" in p for p in header["integrityProblems"])


def test_an_id_in_two_files_is_an_integrity_error(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def duplicate(data: dict[str, Any]) -> None:
        data["vectors"].append(dict(data["vectors"][0]))

    _rewrite(root, "curated/text.json", duplicate)
    status, _ = _run(root)
    assert status == 2
    assert "duplicate vector id 'text/js-whitespace'" in _out(capsys)  # within one file

    root2 = support.fixture_root(root.parent / "again")

    def steal(data: dict[str, Any]) -> None:
        data["vectors"][0]["id"] = "functions/ladder-action"
        data["family"] = "functions"
        for vector in data["vectors"][1:]:
            vector["id"] = vector["id"].replace("escalation/", "functions/x-")

    _rewrite(root2, "curated/escalation.json", steal)
    _edit_manifest(
        root2,
        lambda m: next(e for e in m["files"] if e["family"] == "escalation").update(
            family="functions"
        ),
    )
    status, _ = _run(root2)
    assert status == 2
    assert (
        "vector id 'functions/ladder-action' is in curated/escalation.json and "
        "curated/functions.json" in _out(capsys)
    )


def test_a_wrong_count_and_an_empty_file_are_integrity_errors(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit_manifest(root, lambda m: m["files"][0].update(vectors=m["files"][0]["vectors"] + 1))
    assert _run(root)[0] == 2
    assert "curated/canonical.json: 5 vectors, the manifest says 6" in _out(capsys)
    _edit_manifest(root, lambda m: m["files"][0].update(vectors=m["files"][0]["vectors"] - 1))
    _edit_manifest(root, lambda m: m.update(vectors=m["vectors"] + 1))
    assert _run(root)[0] == 2
    assert "manifest.json: 19 vectors in the files, it says 20" in _out(capsys)

    root2 = support.fixture_root(root.parent / "empty")
    _rewrite(root2, "curated/escalation.json", lambda data: data.update(vectors=[]))
    assert _run(root2)[0] == 2
    assert "curated/escalation.json: holds no vector" in _out(capsys)


@pytest.mark.parametrize(
    ("found", "text"),
    [(2, "format 2; this runner reads format 1 only (the set is newer than the runner")],
)
def test_another_format_version_names_found_and_supported(
    root: Path, capsys: pytest.CaptureFixture[str], found: int, text: str
) -> None:
    _edit_manifest(root, lambda m: m.update(format=found))
    assert _run(root)[0] == 2
    assert text in _out(capsys)


def test_a_root_without_manifest_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path)[0] == 2
    assert f"{tmp_path} is not a vector set: it has no manifest.json" in _out(capsys)


# -- reports -----------------------------------------------------------------------------


def _never_started(tmp_path: Path) -> str:
    """A harness command that leaves a mark if it is ever started."""
    return f"touch {tmp_path / 'started'}; exit 1"


@pytest.mark.parametrize("option", ["--junit-xml", "--write-expected-failures", "--report-json"])
def test_report_paths_are_checked_before_the_run(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for target, text in ((tmp_path, "is a directory"), (a_file / "r.xml", "is not a directory")):
        status, _ = support.run(
            ["--vectors", str(root), "--port", _never_started(tmp_path), option, str(target)]
        )
        assert status == 2
        assert text in _out(capsys)
        assert not (tmp_path / "started").exists()


def test_fuzz_out_is_checked_before_fuzzing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    status = cli.main(
        ["conformance", "fuzz", "--port", _never_started(tmp_path), "--out", str(a_file)]
    )
    assert status == 2 and "is not a directory" in _out(capsys)
    assert not (tmp_path / "started").exists()


def test_an_aborted_run_writes_every_report_with_its_state(root: Path, tmp_path: Path) -> None:
    junit, xfail = tmp_path / "junit.xml", tmp_path / "xfail.txt"
    junit.write_text("<testsuite tests='1' failures='0'/>")  # a previous green run
    status, lines = support.run(
        [
            "--vectors",
            str(root),
            "--port",
            support.fault("no-handshake"),
            "--startup-timeout",
            "1",
            "--junit-xml",
            str(junit),
            "--write-expected-failures",
            str(xfail),
        ],
        tmp_path / "r.jsonl",
    )
    assert status == 3
    assert lines[-1]["status"] == "aborted" and lines[-1]["exitStatus"] == 3
    suite = ET.parse(junit).getroot()
    state = suite.find("properties/property[@name='status']")
    assert state is not None and state.get("value") == "aborted"
    assert suite.get("errors") == "1" and suite.find("testcase/error") is not None
    assert "# run status: aborted" in xfail.read_text()


def test_an_interrupted_run_writes_its_reports(root: Path, tmp_path: Path) -> None:
    report, junit = tmp_path / "r.jsonl", tmp_path / "junit.xml"
    pidfile = tmp_path / "pids"
    runner = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "doomloop_kit.conformance.cli",
            "conformance",
            "run",
            "--vectors",
            str(root),
            "--port",
            support.fault("hang", 4),
            "--timeout",
            "60",
            "--report-json",
            str(report),
            "--junit-xml",
            str(junit),
        ],
        env={**os.environ, "FAULT_PIDFILE": str(pidfile)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 20
    while not pidfile.exists() or len(pidfile.read_text().split()) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    runner.send_signal(signal.SIGINT)
    output, _ = runner.communicate(timeout=20)
    assert runner.returncode == 130, output
    assert b"Traceback" not in output
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert lines[-1]["status"] == "interrupted"
    assert lines[-1]["totals"]["not-run"] > 0
    assert ET.parse(junit).getroot().get("errors") != "0"


def test_an_interrupt_while_loading_is_no_traceback(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(loading, "open_vector_set", interrupted)
    assert _run(root)[0] == 130
    assert "interrupted" in _out(capsys)


def test_errored_and_failed_runs_have_distinct_exit_codes(root: Path) -> None:
    assert _run(root, *SMALL)[0] == 0
    assert (
        support.run(["--vectors", str(root), "--port", support.mutant("last-call-streak")])[0] == 1
    )
    assert (
        support.run(["--vectors", str(root), "--port", support.fault("internal-error", 2), *SMALL])[
            0
        ]
        == 3
    )


# -- silence -------------------------------------------------------------------------------


def test_an_unknown_feature_name_is_an_error_or_with_a_flag_a_warning(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAULT_FEATURES", "bigints,undefined")
    port = ["--vectors", str(root), "--port", support.fault("none")]
    assert support.run(port)[0] == 3
    assert "unknown feature(s) bigints" in _out(capsys)
    status, _ = support.run([*port, "--allow-unknown-features"])
    out = _out(capsys)
    assert "warning: the harness declares unknown feature(s) bigints" in out
    assert "skipped" in out and status == 0


@pytest.mark.parametrize(
    "option",
    [
        ["--timeout", "nan"],
        ["--timeout", "inf"],
        ["--timeout", "0"],
        ["--startup-timeout", "-1"],
        ["--max-line-bytes", "0"],
        ["--window", "0"],
        ["--max-restarts", "-1"],
        ["--max-fail", "0"],
    ],
)
def test_numeric_options_are_validated(
    root: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _run(root, *option)
    assert exit_info.value.code == 2
    assert option[0] in capsys.readouterr().err


def test_a_duplicate_answer_is_a_protocol_fault_of_the_harness(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULT_ONCE", str(tmp_path / "once"))
    status, lines = support.run(
        ["--vectors", str(root), "--port", support.fault("duplicate", 2), "--window", "1", *SMALL],
        tmp_path / "r.jsonl",
    )
    assert status == 3
    (errored,) = support.by_status(lines, "errored")
    first = next(line for line in lines if line["type"] == "vector")
    assert errored["id"] == first["id"]  # the vector whose request was answered twice
    assert errored["error"]["cause"] == "duplicate-answer"
    assert "a second time" in errored["error"]["message"]
    assert "protocol fault of the harness" in errored["error"]["message"]


# -- selection -----------------------------------------------------------------------------


def test_family_and_tag_are_separate(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def fanout(data: dict[str, Any]) -> None:
        data["vectors"][0]["tags"] = ["text", "fanout"]

    _rewrite(root, "curated/text.json", fanout)
    assert _run(root, "--family", "fanout")[0] == 0
    assert _out(capsys).rstrip().endswith("4 passed, 0 failed, 0 errored, 0 skipped")
    assert _run(root, "--tag", "fanout")[0] == 0
    assert _out(capsys).rstrip().endswith("5 passed, 0 failed, 0 errored, 0 skipped")
    assert _run(root, "--family", "text", "--tag", "fanout")[0] == 0
    assert _out(capsys).rstrip().endswith("1 passed, 0 failed, 0 errored, 0 skipped")
    with pytest.raises(SystemExit):
        _run(root, "-t", "fanout")


# -- speed: what the loader reads ----------------------------------------------------------


def test_a_warm_run_validates_nothing_and_a_one_vector_run_parses_one_file(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DOOMLOOP_KIT_CACHE", str(tmp_path / "cache"))
    validated: list[object] = []
    parsed: list[str] = []
    real_validate = files.validate_vector_file_data
    real_load = loading.SourceFile.load

    def counting_validate(data: Any, path: Any = "<memory>") -> None:
        validated.append(path)
        real_validate(data, path)

    def counting_load(self: loading.SourceFile) -> files.VectorFile:
        parsed.append(self.label)
        return real_load(self)

    monkeypatch.setattr(files, "validate_vector_file_data", counting_validate)
    monkeypatch.setattr(loading.SourceFile, "load", counting_load)
    cold = loading.open_vector_set(root)
    assert len(validated) == len(cold.files)  # every file once
    warm = loading.open_vector_set(root)
    assert len(validated) == len(cold.files)  # none again: same bytes, same schema
    assert [v.id for _, v in warm.select(loading.Selection(patterns=("text/period-tie",)))] == [
        "text/period-tie"
    ]
    assert parsed == ["curated/text.json"]


def test_the_run_command_imports_neither_hypothesis_nor_the_fuzzer() -> None:
    # a fresh interpreter: this test process has imported both long ago
    probe = (
        "import sys\n"
        "from doomloop_kit.conformance import cli\n"
        "cli.build_parser(['conformance', 'run', '--port', 'x'])\n"
        "heavy = ('hypothesis', 'doomloop_kit.conformance.fuzz', 'doomloop_kit.generators')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert found.strip() == "[]"
    with pytest.raises(SystemExit) as exit_info:  # the other commands still parse
        cli.main(["conformance", "fuzz", "--port", "x", "--examples", "nan"])
    assert exit_info.value.code == 2


# -- shape ---------------------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names.update(f"{module}.{alias.name}".lstrip(".") for alias in node.names)
            names.add(module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_reports_do_not_import_the_runner_and_the_core_not_the_generators() -> None:
    conformance = REPO / "conformance"
    assert not any("runner" in name for name in _imports(conformance / "report.py"))
    assert not any(
        "runner" in name or "report" in name for name in _imports(conformance / "outcomes.py")
    )
    for module in ("runner.py", "execute.py", "report.py", "outcomes.py", "supervisor.py"):
        assert not any("generators" in name for name in _imports(conformance / module)), module


def test_run_and_fuzz_share_one_supervisor() -> None:
    for module in ("runner.py", "fuzz.py"):
        names = _imports(REPO / "conformance" / module)
        assert "supervisor.Supervisor" in names, module
        assert "protocol.Connection" not in names, module


def test_outcomes_are_immutable(root: Path) -> None:
    vector = support.fixtures.build_files()["curated/text.json"].vectors[0]
    outcome = outcomes.Outcome(vector, "f", outcomes.Status.FAILED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.status = outcomes.Status.XFAILED  # type: ignore[misc]
    expected = outcome.expected_to_fail("known")
    assert (outcome.status, expected.status) == (outcomes.Status.FAILED, outcomes.Status.XFAILED)


def test_no_module_shadows_a_builtin_module() -> None:
    shadowing = {"format", "json", "types", "io", "select", "signal", "string", "typing"}
    packages = ("reference", "generators", "conformance", "vectorset")
    found = [
        path
        for package in packages
        for path in (REPO / package).rglob("*.py")
        if path.stem in shadowing
    ]
    assert found == []


def test_the_shipped_set_is_parsed_not_schema_checked_on_a_cold_run(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Files of an installed set whose bytes are still those of the wheel's RECORD need no
    schema check, and are not cached; an edited one is checked, however the manifest
    was re-sealed, and so is a copy of the set elsewhere."""
    monkeypatch.setenv("DOOMLOOP_KIT_CACHE", str(tmp_path / "cache"))
    validated: list[object] = []
    real_validate = files.validate_vector_file_data

    def counting_validate(data: Any, path: Any = "<memory>") -> None:
        validated.append(path)
        real_validate(data, path)

    record = {
        entry["path"]: hashlib.sha256((root / entry["path"]).read_bytes()).hexdigest()
        for entry in json.loads((root / "manifest.json").read_text())["files"]
    }
    monkeypatch.setattr(resources, "installed_vector_digests", lambda _: record)
    monkeypatch.setattr(files, "validate_vector_file_data", counting_validate)
    loading.open_vector_set(root, shipped=True)
    assert validated == []
    loading.open_vector_set(root)  # not the installed set: every file checked (none cached)
    assert len(validated) == len(record)
    validated.clear()

    def renamed(data: dict[str, Any]) -> None:  # an edit the schema refuses, then re-sealed
        data["vectors"][0]["id"] = "text/Not An Id"

    _rewrite(root, "curated/text.json", renamed)
    with pytest.raises(loading.VectorSetError, match=r"curated/text\.json"):
        loading.open_vector_set(root, shipped=True)
    assert validated == [root / "curated/text.json"]


def test_an_input_error_replaces_the_previous_reports(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit, xfail = tmp_path / "r.jsonl", tmp_path / "junit.xml", tmp_path / "known.txt"
    report.write_text('{"type": "footer", "exitStatus": 0}\n')  # a previous green run
    junit.write_text("<testsuite tests='1' failures='0'/>")
    xfail.write_text("text/period-tie  # a known failure\n")
    _edit_manifest(root, lambda m: m["files"][0].update(sha256="0" * 64))
    status, lines = _run(
        root,
        "--junit-xml",
        str(junit),
        "--expected-failures",
        str(xfail),
        "--write-expected-failures",
        str(xfail),
        report=report,
    )
    assert status == 2
    assert lines[-1]["status"] == "aborted" and lines[-1]["exitStatus"] == 2
    assert "integrity" in lines[-1]["aborted"]
    assert ET.parse(junit).getroot().get("errors") == "1"
    assert xfail.read_text() == "text/period-tie  # a known failure\n"  # nothing known: kept


def test_an_aborted_run_keeps_the_listed_vectors_it_did_not_run(root: Path, tmp_path: Path) -> None:
    xfail = tmp_path / "known.txt"
    xfail.write_text("state/restore-clamps  # a known failure\n")
    status, _ = support.run(
        [
            "--vectors",
            str(root),
            "--port",
            support.fault("crash", 1),
            "--max-restarts",
            "0",
            "--family",
            "state",
            "--expected-failures",
            str(xfail),
            "--write-expected-failures",
            str(xfail),
        ]
    )
    assert status == 3
    written = xfail.read_text()
    assert "# run status: aborted" in written
    assert "state/restore-clamps  # a known failure (not-run)" in written
