"""The ``doomloop-kit`` command line as a newcomer meets it (issue 33).

Its help, the refusal of abbreviated options with a "did you mean", ``list``,
``-k`` as a substring, the message for a selection matching nothing,
``constraints``, ``completion``, ``conformance sdk-replay``, errors grouped
by cause on the console and in ``report summary``, the JUnit ``time``
attributes, and the progress bar's modes. Expected values come from the
committed files read directly (the manifest, the vector files), never from
the code under test.
"""

from __future__ import annotations

import io
import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from doomloop_kit.conformance import cli
from doomloop_kit.vectorset import loading
from doomloop_kit.vectorset.files import VectorFile, iter_vector_files
from doomloop_kit.vectorset.progress import Progress
from harnesses import support

VECTORS = support.COMMITTED
# parsed, not schema-checked again: the vector tests check every file (that costs ~20 s)
FILES = [VectorFile.from_json(json.loads(p.read_bytes()), p) for p in iter_vector_files(VECTORS)]
ALL_IDS = [vector.id for vector_file in FILES for vector in vector_file.vectors]

SKELETON = """
import json, sys
for text in sys.stdin:
    request = json.loads(text)
    if request.get("op") == "hello":
        result = {"protocol": 1, "features": [],
                  "implementation": {"name": "skeleton", "language": "python", "version": "0"}}
        print(json.dumps({"id": request["id"], "result": result}), flush=True)
    else:
        error = {"code": "unknown-op", "message": 'unknown op "%s"' % request.get("op")}
        print(json.dumps({"id": request["id"], "error": error}), flush=True)
"""
"""A harness that knows the handshake only, as a port author's first skeleton does."""


def kit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = cli.main(list(argv))
    except SystemExit as exit:  # argparse: --help, usage errors
        status = int(exit.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_top_level_help_is_for_users_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = kit(capsys, "--help")
    assert status == 0
    assert "this file only routes" not in out  # the module's docstring is for developers
    assert "examples:" in out and 'doomloop-kit conformance run --port "./my-harness"' in out
    for command in ("list", "conformance run", "conformance sdk-replay", "report summary"):
        assert f"\n  {command} " in out, command


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["conformance", "run", "--port", "x", "--fam", "facts"], "did you mean --family?"),
        (["conformance", "run", "--port", "x", "--expected-fail", "f"], "--expected-failures?"),
        (["conformence", "run"], "did you mean conformance?"),
        (["conformance", "runn"], "did you mean run?"),
        (["conformance", "run", "--port", "x", "--progress", "bars"], "did you mean bar?"),
        (["list", "famlies"], "did you mean families?"),
    ],
)
def test_abbreviations_are_refused_and_typos_get_a_suggestion(
    capsys: pytest.CaptureFixture[str], argv: list[str], suggestion: str
) -> None:
    status, out, err = kit(capsys, *argv)
    assert status == 2 and out == ""
    assert suggestion in err


def test_list_counts_the_families_as_the_manifest_does(capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((VECTORS / "manifest.json").read_text(encoding="utf-8"))
    expected: Counter[str] = Counter()
    for entry in manifest["files"]:
        expected[entry["family"]] += entry["vectors"]
    status, out, _ = kit(capsys, "list", "--vectors", str(VECTORS), "--json")
    assert status == 0
    assert {row["family"]: row["vectors"] for row in json.loads(out)} == expected
    status, out, _ = kit(capsys, "list", "--vectors", str(VECTORS))
    assert out.splitlines()[-1] == f"{manifest['vectors']} vectors in {len(expected)} families"


def test_list_features_counts_the_vectors_needing_each(capsys: pytest.CaptureFixture[str]) -> None:
    expected = Counter(
        feature for vector_file in FILES for v in vector_file.vectors for feature in v.features
    )
    status, out, _ = kit(capsys, "list", "features", "--vectors", str(VECTORS), "--json")
    assert status == 0
    assert {row["feature"]: row["vectors"] for row in json.loads(out)} == expected


def test_k_is_a_substring_and_a_glob_when_it_holds_glob_characters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = kit(capsys, "list", "ids", "--vectors", str(VECTORS), "-k", "fanout")
    holding = [vector_id for vector_id in ALL_IDS if "fanout" in vector_id]
    assert out.split() == holding and len(holding) > 1
    _, out, _ = kit(capsys, "list", "ids", "--vectors", str(VECTORS), "-k", "facts/fanout-*")
    assert out.split() == [i for i in ALL_IDS if i.startswith("facts/fanout-")]
    # a substring may sit in another family than its text before "/" names
    selection = loading.Selection(patterns=("acts/fanout",))
    vectors = [vector for vector_file in FILES for vector in vector_file.vectors]
    assert [i for i in ALL_IDS if "acts/fanout" in i] == [
        vector.id for vector in vectors if selection.wants(vector)
    ]


def test_a_selection_matching_nothing_names_the_families_there_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    families = list(dict.fromkeys(vector_file.family for vector_file in FILES))
    status, out, err = kit(
        capsys,
        "conformance",
        "run",
        "--port",
        "true",
        "--vectors",
        str(VECTORS),
        "--family",
        "restor",
    )
    assert status == 2
    assert "no vector matches --family restor (did you mean --family restore?)" in out
    assert f"known families ({len(families)}): {', '.join(families)}" in out
    assert "did you mean --family restore?" in err  # the one line on stderr says it too
    status, _, err = kit(capsys, "list", "--vectors", str(VECTORS), "-k", "no-such-id")
    assert status == 2 and "known families" in err


def test_constraints_prints_the_pinned_versions(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = kit(capsys, "constraints")
    assert status == 0
    assert out == (support.REPO / "constraints.txt").read_text(encoding="utf-8")
    assert any(line.startswith("hypothesis==") for line in out.splitlines())


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_scripts_know_the_commands_and_options(
    capsys: pytest.CaptureFixture[str], shell: str
) -> None:
    status, out, _ = kit(capsys, "completion", shell)
    assert status == 0
    for word in ("conformance", "sdk-replay", "summary", "--family", "--expected-failures"):
        assert word in out, word


def test_the_sdk_replay_is_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    observations = support.REPO.parent / "shared" / "upstream" / "sdk-0.9.0-observations.jsonl"
    if not observations.is_file():
        pytest.skip("../shared/upstream is not beside the checkout")
    status, out, _ = kit(
        capsys, "conformance", "sdk-replay", "--port", support.REFERENCE, str(observations)
    )
    assert status == 0 and "reproduced" in out and ", 0 different" in out
    status, _, err = kit(capsys, "conformance", "sdk-replay", "--port", "x", "/no/such/file")
    assert status == 2 and "cannot read /no/such/file" in err


@pytest.fixture(scope="module")
def skeleton_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path, Path]:
    """The facts family against a harness that answers the handshake only."""
    folder = tmp_path_factory.mktemp("skeleton")
    harness = folder / "skeleton.py"
    harness.write_text(SKELETON)
    report, junit = folder / "run.jsonl", folder / "run.xml"
    out = io.StringIO()
    saved = sys.stdout
    sys.stdout = out
    try:
        status = cli.main(
            [
                "conformance",
                "run",
                "--port",
                f"{sys.executable} {harness}",
                "--vectors",
                str(VECTORS),
                "--family",
                "facts",
                "--progress",
                "lines",
                "--report-json",
                str(report),
                "--junit-xml",
                str(junit),
            ]
        )
    finally:
        sys.stdout = saved
    return status, out.getvalue(), report, junit


def _facts_without_features() -> list[str]:
    facts = next(f for f in FILES if f.family == "facts")
    return [vector.id for vector in facts.vectors if not vector.features]


def test_a_skeleton_harness_gets_one_grouped_cause(
    skeleton_run: tuple[int, str, Path, Path],
) -> None:
    status, out, _, _ = skeleton_run
    errored = _facts_without_features()
    assert status == 3 and len(errored) > 4
    assert out.count("ERRORED ") == 3  # the first three in detail, the others counted
    cause = 'errored: create-failed: create answered unknown-op: unknown op "create"'
    assert f"{len(errored):6}  {cause}  (first: {errored[0]})" in out
    assert out.count(cause) == 2  # the "more with this cause" line and the summary's


def test_report_summary_groups_the_causes(
    capsys: pytest.CaptureFixture[str], skeleton_run: tuple[int, str, Path, Path]
) -> None:
    _, _, report, _ = skeleton_run
    errored = _facts_without_features()
    status, out, _ = kit(capsys, "report", "summary", str(report))
    assert status == 0
    assert "### Conformance: skeleton 0 (python)" in out
    assert "- **Run**: complete; exit status 3" in out
    assert f"| {len(errored)} | errored: create-failed:" in out
    status, out, _ = kit(capsys, "report", "summary", "--format", "json", str(report))
    data = json.loads(out)
    assert data["exitStatus"] == 3 and data["totals"]["errored"] == len(errored)
    assert data["causes"] == [
        {
            "cause": 'errored: create-failed: create answered unknown-op: unknown op "create"',
            "vectors": len(errored),
            "first": errored[0],
        }
    ]


def test_report_summary_refuses_what_is_not_a_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = tmp_path / "log.txt"
    text.write_text("0 passed, 0 failed\n")
    status, out, err = kit(capsys, "report", "summary", str(text))
    assert status == 2 and out == "" and "not JSON" in err


def test_junit_cases_have_a_time(skeleton_run: tuple[int, str, Path, Path]) -> None:
    _, _, _, junit = skeleton_run
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert len(cases) == 20
    assert all(float(case.get("time", "-1")) >= 0 for case in cases)


def test_the_progress_bar_is_drawn_only_where_asked() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for mode, stream, drawn in (
        ("auto", io.StringIO(), False),
        ("lines", Terminal(), False),
        ("auto", Terminal(), True),
        ("bar", io.StringIO(), True),
    ):
        with Progress(4, what="building", unit="steps", mode=mode, stream=stream) as bar:
            bar.advance(2)
            with bar.above():
                stream.write("a line\n")
        text = stream.getvalue()
        assert ("building:" in text and "2/4 steps" in text) is drawn, (mode, text)
        assert "a line\n" in text
