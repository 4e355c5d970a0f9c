"""The mutation job's machinery (tests/mutation/run.py), checked cheaply.

The full job takes minutes and is not part of the suite; these tests make
sure its parts cannot pass vacuously: a mutant really is swapped in (one that
breaks the ladder is killed), the unmutated reference replays cleanly, the
excluded regions are only what has no behaviour, and every triage entry is
well formed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ports_report  # noqa: E402

import replay  # noqa: E402
import run  # noqa: E402


@pytest.fixture(scope="module")
def prepared() -> replay.Prepared:
    return replay.load()


def test_clean_replay_and_an_obvious_mutant(prepared: replay.Prepared) -> None:
    run.snapshot_sources()
    mutants, _ = run.enumerate_mutants(["ladder"])
    # ("stop", True) -> ("stop", False): the stop rung is never considered.
    stop = next(
        m
        for m in mutants
        if m.operator == "core/ReplaceTrueWithFalse" and m.code == '("stop", True),'
    )
    results = run.run_mutants([None, stop], prepared, 2, timeout=120, progress=False)
    by_mutant = {mutant: (code, message) for mutant, code, message, _ in results}
    assert by_mutant[None] == (0, "")
    code, message = by_mutant[stop]
    assert code == 1, message
    assert "/" in message.split(":", 1)[0]  # names the vector that failed


def test_exclusions_cover_only_annotations_docstrings_and_aliases() -> None:
    source = (
        '"""Doc."""\n'
        "from typing import Literal\n"
        'Kind = Literal["a", "b"]\n'
        '__all__ = ["f"]\n'
        "def f(x: int | None = None) -> int | None:\n"
        '    """Doc."""\n'
        "    return x + 1 if x is not None else None\n"
    )
    spans = run.excluded_spans(source)
    whys = sorted({why for _, _, why in spans})
    assert whys == ["__all__", "annotation", "docstring", "type alias"]
    body = (7, 11)  # the `+` of line 7
    assert not any(run._inside(body, span) for span in spans)


def test_triage_entries_are_well_formed() -> None:
    entries = run.load_equivalents(HERE / "equivalents.toml")
    assert entries
    for entry in entries:
        assert entry["kind"] in ("equivalent", "unreachable"), entry
        assert entry["operators"] and all(op.startswith("core/") for op in entry["operators"])
        assert len(" ".join(entry["why"].split())) > 40, entry
        source = run.REPO / entry["module"]
        assert source.exists(), entry
        # an entry names its line by text: once the line is edited away it is stale
        lines = {line.strip() for line in source.read_text(encoding="utf-8").splitlines()}
        assert entry["code"] in lines, f"stale triage entry: {entry['module']} {entry['code']}"


# -- the ports' reports (tests/mutation/ports_report.py) ---------------------------


def _stryker(status: str, replacement: str = "false") -> dict[str, object]:
    return {
        "files": {
            "src/doom-loop.ts": {
                "source": "const a = 1;\nif (x > 0) y();\n",
                "mutants": [
                    {
                        "mutatorName": "ConditionalExpression",
                        "replacement": replacement,
                        "location": {
                            "start": {"line": 2, "column": 5},
                            "end": {"line": 2, "column": 10},
                        },
                        "status": status,
                    }
                ],
            }
        }
    }


def test_port_score_leaves_out_not_viable_and_equivalent_only() -> None:
    mutants, _ = ports_report._typescript(_stryker("Survived"))
    (survivor,) = mutants
    assert (survivor.file, survivor.line, survivor.code) == (
        "ports/typescript/src/doom-loop.ts",
        2,
        "if (x > 0) y();",
    )
    compile_error, _ = ports_report._typescript(_stryker("CompileError"))
    killed, _ = ports_report._typescript(_stryker("Killed"))
    everything = mutants + compile_error + killed
    assert ports_report.score(everything) == (1, 2, 0.5)  # the survivor counts until triaged
    entry = {
        "port": "typescript",
        "file": "ports/typescript/src/doom-loop.ts",
        "code": "if (x > 0) y();",
        "operators": ["ConditionalExpression"],
        "replacement": "false",
        "kind": "equivalent",
        "why": "test",
    }
    assert ports_report.triage("typescript", everything, [entry]) == []
    assert ports_report.score(everything) == (1, 1, 1.0)
    # "unpinned" keeps the survivor in the score
    survivor.triage = ""
    assert ports_report.triage("typescript", everything, [{**entry, "kind": "unpinned"}]) == []
    assert ports_report.score(everything) == (1, 2, 0.5)


def test_port_triage_goes_stale_when_the_line_or_the_replacement_changes() -> None:
    entry = {
        "port": "typescript",
        "file": "ports/typescript/src/doom-loop.ts",
        "code": "if (x >= 0) y();",
        "operators": ["ConditionalExpression"],
        "kind": "equivalent",
        "why": "test",
    }
    mutants, _ = ports_report._typescript(_stryker("Survived"))
    assert ports_report.triage("typescript", mutants, [entry]) == [
        f"{entry['file']}: {entry['code']}"
    ]
    assert mutants[0].triage == ""
    other = {**entry, "code": "if (x > 0) y();", "replacement": "true"}
    assert ports_report.triage("typescript", mutants, [other]) != []
    assert mutants[0].triage == ""
