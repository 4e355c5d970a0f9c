"""Every mutant harness (one deliberate fault) fails at least one committed vector.

KILLERS pins, per mutant, one committed vector that kills it; the test runs
the mutant on that vector alone and asserts the runner fails exactly it. To
re-derive the table run each mutant over all vectors (``doomloop-kit
conformance run --port "python tests/harnesses/mutants.py NAME" -x``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harnesses import mutants, support

KILLERS: dict[str, tuple[str, str]] = {
    "json-dumps-canonical": ("curated/upstream.json", "upstream/tool-call-non-ascii"),
    "code-point-key-order": ("curated/canonical.json", "canonical/keys-utf16-order"),
    "last-call-streak": ("curated/facts.json", "facts/fanout-repeat-three"),
    "per-call-streak-ignored": ("curated/facts.json", "facts/fanout-changed-member"),
    "no-duplicate-collapsing": ("curated/facts.json", "facts/declared-duplicate-call"),
    "restore-without-clamping": ("curated/restore.json", "restore/streak-clamping"),
    "always-call-streaks": ("curated/facts.json", "facts/resume-then-round-zero"),
    "python-whitespace": ("curated/text.json", "text/separator-bom"),
    "block-on-text": ("curated/text.json", "text/cross-step-verdict"),
    "escalation-budget-unchecked": (
        "curated/escalation.json",
        "escalation/budget-exhausted-falls-through",
    ),
    "wrong-message": ("curated/polling.json", "polling/identical-arguments-block-at-three"),
    "larger-period-tie": ("curated/text.json", "text/period-tie-smaller-wins"),
    "stop-below-block": ("curated/config.json", "config/ladder-order"),
    "surrogate-utf8-passthrough": ("curated/canonical.json", "canonical/tool-name-lone-surrogate"),
    "tool-name-separator": ("curated/facts.json", "facts/fanout-repeat-three"),
    "escalations-not-restored": (
        "curated/escalation.json",
        "escalation/escalations-used-persisted",
    ),
    "duplicate-flag-ignored": ("curated/facts.json", "facts/duplicate-in-round-declared"),
    "bigint-canonicalized": ("curated/canonical.json", "canonical/bigint-fails"),
    "negative-zero-refused": ("curated/canonical.json", "canonical/numbers-negative-zero"),
    "canonical-message-changed": ("curated/texts.json", "texts/canonical-bigint"),
    "null-option-turns-off": ("curated/edges.json", "edges/option-null-throws"),
    "null-escalation-member-absent": (
        "curated/edges.json",
        "edges/escalation-model-null-is-a-mechanism",
    ),
    "counters-as-exact-integers": ("curated/edges.json", "edges/text-streak-stays-at-2-53"),
    "warning-text-changed": ("curated/texts.json", "texts/warning-dead-rung"),
    "shared-as-cycle": ("curated/sharing.json", "sharing/canonicalize-shared-member"),
    "alias-decoded-as-copy": ("curated/sharing.json", "sharing/alias-is-the-same-object"),
    "tag-past-the-limit-decoded": (
        "curated/wire-errors.json",
        "wire-errors/tag-at-the-decode-limit",
    ),
    "bigint-plus-accepted": ("curated/wire-errors.json", "wire-errors/bigint-plus-sign"),
    "bound-decoded-as-copy": (
        "curated/memo.json",
        "memo/recorded-then-mutated-next-round-is-stale",
    ),
    "memo-ignored": ("curated/memo.json", "memo/declared-then-mutated-record-is-stale"),
    "memo-without-tool": ("curated/memo.json", "memo/memo-is-per-tool"),
    "restore-clears-memo": ("curated/memo.json", "memo/restore-keeps-memo"),
    "engine-dispatch-perturbed": (
        "curated/engine-scenarios.json",
        "engine-scenarios/i-01-repeating-distinct-argument-fan-out",
    ),
    # ENG-139: each breaks one relation of the partial order of a concurrent batch
    "engine-pre-before-checkpoint": (
        "curated/engine-scenarios.json",
        "engine-scenarios/i-01-repeating-distinct-argument-fan-out",
    ),
    "engine-checkpoints-swapped": (
        "curated/engine-scenarios.json",
        "engine-scenarios/i-01-repeating-distinct-argument-fan-out",
    ),
    "engine-post-after-next-dispatch": (
        "curated/engine-scenarios.json",
        "engine-scenarios/i-01-repeating-distinct-argument-fan-out",
    ),
}

BROKEN_RELATION = {
    "engine-pre-before-checkpoint": "per-call order broken (ENG-139)",
    "engine-checkpoints-swapped": "checkpoint order broken (ENG-139)",
    "engine-post-after-next-dispatch": "batch boundary broken (ENG-139)",
}

COMMITTED = support.committed_vectors()
needs_vectors = pytest.mark.skipif(COMMITTED is None, reason="vectors/ not committed yet")


def test_table_covers_every_mutant() -> None:
    assert set(KILLERS) == set(mutants.MUTANTS)
    assert len(KILLERS) >= 12


@needs_vectors
@pytest.mark.parametrize("name", sorted(KILLERS))
def test_mutant_fails_its_killing_vector(name: str, tmp_path: Path) -> None:
    assert COMMITTED is not None
    file, vector = KILLERS[name]
    status, lines = support.run(
        [str(COMMITTED / file), "-k", support.exactly(vector), "--port", support.mutant(name)],
        tmp_path / "report.jsonl",
    )
    assert status == 1
    assert [line["id"] for line in support.by_status(lines, "failed")] == [vector]
    assert lines[-1]["totals"]["errored"] == 0  # a wrong answer, not a broken harness


@needs_vectors
def test_killing_vectors_pass_on_the_reference(tmp_path: Path) -> None:
    assert COMMITTED is not None
    killers = sorted(set(KILLERS.values()))
    files = sorted({str(COMMITTED / file) for file, _ in killers})
    patterns = [arg for _, vector in killers for arg in ("-k", support.exactly(vector))]
    status, lines = support.run(
        [*files, *patterns, "--port", support.REFERENCE], tmp_path / "report.jsonl"
    )
    assert status == 0
    assert lines[-1]["totals"]["passed"] == len({vector for _, vector in killers})


@needs_vectors
@pytest.mark.parametrize("name", sorted(BROKEN_RELATION))
def test_a_broken_relation_is_named(name: str, tmp_path: Path) -> None:
    """ENG-139: a harness breaking the partial order fails with the relation named."""
    assert COMMITTED is not None
    file, vector = KILLERS[name]
    status, lines = support.run(
        [str(COMMITTED / file), "-k", support.exactly(vector), "--port", support.mutant(name)],
        tmp_path / "report.jsonl",
    )
    assert status == 1
    (failed,) = support.by_status(lines, "failed")
    assert BROKEN_RELATION[name] in failed["failure"]["reason"]


@needs_vectors
def test_an_interleaving_threads_could_give_passes(tmp_path: Path) -> None:
    """ENG-138, ENG-139: every engine vector passes with each concurrent batch's events
    and executions rearranged as threads could (seeded per scenario)."""
    status, lines = support.run(
        ["--family", "engine-*", "--port", support.mutant("engine-interleaved")],
        tmp_path / "report.jsonl",
    )
    assert status == 0, [line for line in lines if line.get("status") == "failed"][:1]
    assert len(support.by_status(lines, "passed")) > 400


@needs_vectors
def test_engine_mutant_is_reported_at_its_dispatch(tmp_path: Path) -> None:
    """The first difference of a transcript is named by run, dispatch and JSON Pointer."""
    assert COMMITTED is not None
    file, vector = KILLERS["engine-dispatch-perturbed"]
    junit = tmp_path / "junit.xml"
    status, lines = support.run(
        [
            str(COMMITTED / file),
            "-k",
            support.exactly(vector),
            "--junit-xml",
            str(junit),
            "--port",
            support.mutant("engine-dispatch-perturbed"),
        ],
        tmp_path / "report.jsonl",
    )
    assert status == 1
    shown = "step 0 (runScenario) differs at run 0, dispatch 1, /request/model"
    assert shown in junit.read_text(encoding="utf-8")
    (failed,) = support.by_status(lines, "failed")
    failure = failed["failure"]
    assert failure["op"] == "runScenario" and failure["step"] == 0
    assert failure["path"] == "run 0, dispatch 1, /request/model"
    assert failure["actual"] == "mutant-model" and failure["expected"] != "mutant-model"
    assert failure["differences"] == 1
