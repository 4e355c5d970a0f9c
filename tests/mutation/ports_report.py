"""Reports of the ports' mutation jobs (issue 14 item 4, issue 26), with their triage.

    .venv/bin/python tests/mutation/ports_report.py [--target 0.97]

Reads the three jobs' raw results, which the jobs themselves write:

- ``tests/mutation/typescript/stryker-report.json``: Stryker's JSON report of
  ``npx stryker run`` in ``ports/typescript`` (config ``stryker.config.json``);
- ``tests/mutation/go/results.json``: ``go run .`` in ``tests/mutation/gomutate``;
- ``tests/mutation/go-engine/results.json``: ``go run . -package engine`` there
  (the Go port's engine, judged by the engine vectors alone);

matches every surviving mutant against ``tests/mutation/port-survivors.toml``
and writes the ``REPORT.md`` beside each. The score is killed / (mutants - not
viable - equivalent): a survivor triaged "unpinned" (a behaviour no vector
pins) counts as not killed. Exit status: 0 when both ports meet ``--target``,
the Go engine meets the engine target (95%, as the reference engine's) and
every survivor is triaged, else 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TRIAGE = HERE / "port-survivors.toml"
ENGINE_TARGET = 0.95
"""The target of an engine job (docs/mutation.md), lower than a monitor's: the engine
vectors pin a run's observable behaviour, not every branch of the loop."""


@dataclass
class Mutant:
    """One mutant of either port, in a common form."""

    file: str  # relative to the repository
    line: int
    col: int
    operator: str
    code: str  # the original line, stripped
    mutated: str  # the replacement text
    status: str  # killed | timeout | survived | not-viable
    detail: str
    triage: str = ""  # equivalent | unpinned | "" (untriaged)
    why: str = ""
    rejudged: bool = False  # survived an earlier pass, judged again after vectors were added


def _typescript(report: dict[str, Any]) -> tuple[list[Mutant], dict[str, Any]]:
    statuses = {
        "Killed": "killed",
        "Timeout": "timeout",
        "Survived": "survived",
        "NoCoverage": "survived",
        "CompileError": "not-viable",
        "RuntimeError": "not-viable",
        "Ignored": "not-viable",
    }
    mutants: list[Mutant] = []
    for path, entry in sorted(report["files"].items()):
        lines = entry["source"].splitlines()
        for m in entry["mutants"]:
            start = m["location"]["start"]
            mutants.append(
                Mutant(
                    f"ports/typescript/{path}",
                    start["line"],
                    start["column"],
                    m["mutatorName"],
                    lines[start["line"] - 1].strip(),
                    m.get("replacement", ""),
                    statuses[m["status"]],
                    m.get("statusReason", "") or "",
                )
            )
    performance = report.get("performance", {})
    meta = {
        "tool": "Stryker (@stryker-mutator/core"
        + (f" {report['framework']['version']}" if "framework" in report else "")
        + "), command test runner, concurrency 1",
        "command": "cd ports/typescript && npx stryker run",
        "judge": "ports/typescript/mutation/replay-vectors.mjs: the replay of "
        "src/test/vectors.test.ts (every vector, every part of each result), stopping at "
        "the first failing vector",
        "wallSeconds": sum(performance.values()) / 1000 if performance else _stryker_wall(),
        "sample": None,
    }
    return mutants, meta


def _stryker_wall() -> float | None:
    """Stryker's JSON report has no run time; typescript/run.json records the one its
    log gave ("Done in N minutes and S seconds")."""
    path = HERE / "typescript" / "run.json"
    if not path.exists():
        return None
    seconds: float = json.loads(path.read_text(encoding="utf-8"))["wallSeconds"]
    return seconds


def _go(results: dict[str, Any]) -> tuple[list[Mutant], dict[str, Any]]:
    mutants = [
        Mutant(
            f"ports/go/{o['file']}",
            o["line"],
            o["col"],
            o["operator"],
            o["code"],
            f"{o['original']} → {o['mutated'] or '(deleted)'}",
            o["status"],
            o.get("detail", ""),
            rejudged=o.get("rejudged", False),
        )
        for o in results["outcomes"]
    ]
    passes = results.get("rejudged") or []
    again = "".join(
        f"; then `go run . -rejudge{' -changed-vectors' if p.get('changed_vectors') else ''}` "
        f"judged {p['judged']} of {p['survivors'] + p.get('again', 0)} mutants again "
        f"({p['survivors']} survivors"
        + (f", {p['again']} killed ones named by -again" if p.get("again") else "")
        + ") against the "
        f"{p['clean_passed']} vectors the clean port then passed"
        + (
            " (the vectors were redrawn, not only added: the mutants killed before were "
            "killed by the earlier vectors and were not judged again)"
            if p.get("changed_vectors")
            else ""
        )
        + f" and killed {p['killed']}"
        for p in passes
    )
    first = passes[0]["before"] if passes else results["clean_passed"]
    alone = (
        f", its engine vectors alone (-run '{results['run']}', partial order of ENG-139)"
        if results.get("package") == "engine"
        else " alone"
    )
    meta = {
        "tool": f"{results['tool']}, {results['go']}, 1 worker",
        "command": results["command"],
        "judge": f"TestVectors of ports/go/cmd/doomloop-harness (vectors_test.go){alone}, "
        f"through a build overlay; the {first} vectors the clean port passes judge, the "
        f"{len(results['clean_failed'] or [])} it fails judge nothing{again}",
        "wallSeconds": results["wall_seconds"],
        "sample": None
        if results.get("complete", True)
        else f"{len(results['outcomes'])} of the {results['mutants']} mutants (the job was "
        "stopped; it runs them in a fixed pseudo-random order, so these are a uniform "
        "sample; `go run . -resume` judges the rest)",
    }
    return mutants, meta


def load_triage(path: Path) -> list[dict[str, Any]]:
    """``[[survivor]]`` tables: port, file, code, operators, (replacement), (column), kind, why."""
    if not path.exists():
        return []
    with path.open("rb") as handle:
        entries: list[dict[str, Any]] = tomllib.load(handle).get("survivor", [])
    for index, entry in enumerate(entries):
        for name in ("port", "file", "code", "operators", "kind", "why"):
            if name not in entry:
                raise SystemExit(f"{path}: survivor[{index}] lacks {name!r}")
        if entry["kind"] not in ("equivalent", "unpinned"):
            raise SystemExit(f"{path}: survivor[{index}]: kind must be equivalent or unpinned")
    return entries


def triage(
    port: str, mutants: list[Mutant], entries: list[dict[str, Any]], complete: bool = True
) -> list[str]:
    """Attach each survivor's triage; return the entries of this port that match nothing."""
    used: set[int] = set()
    # an entry naming the column or the replacement is more specific: it is tried first
    ordered = sorted(
        enumerate(entries), key=lambda item: ("column" not in item[1], "replacement" not in item[1])
    )
    for m in mutants:
        if m.status != "survived":
            continue
        for index, entry in ordered:
            if (
                entry["port"] == port
                and entry["file"] == m.file
                and entry["code"] == m.code
                and m.operator in entry["operators"]
                and entry.get("replacement", m.mutated) == m.mutated
                and entry.get("column", m.col) == m.col
            ):
                m.triage, m.why = entry["kind"], entry["why"]
                used.add(index)
                break
    # an entry whose line was not judged at all (a partial job) is not stale yet
    judged = {(m.file, m.code) for m in mutants}
    return [
        f"{e['file']}: {e['code']}"
        for i, e in enumerate(entries)
        if e["port"] == port and i not in used and (complete or (e["file"], e["code"]) in judged)
    ]


def score(mutants: list[Mutant]) -> tuple[int, int, float]:
    killed = sum(m.status in ("killed", "timeout") for m in mutants)
    judged = sum(m.status != "not-viable" and m.triage != "equivalent" for m in mutants)
    return killed, judged, killed / judged if judged else 1.0


def _wilson(k: int, n: int, z: float = 1.96) -> str:
    """The Wilson score interval of k successes in n draws."""
    if n == 0:
        return "n/a"
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{centre - half:.1%} to {centre + half:.1%}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("`", "'")


def render(name: str, mutants: list[Mutant], meta: dict[str, Any], stale: list[str]) -> str:
    counts = Counter(m.status for m in mutants)
    survivors = [m for m in mutants if m.status == "survived"]
    kinds = Counter(m.triage or "untriaged" for m in survivors)
    killed, judged, value = score(mutants)
    wall = meta["wallSeconds"]
    lines = [
        f"# Mutation testing of the {name} against the committed vectors",
        "",
        "Generated by `.venv/bin/python tests/mutation/ports_report.py` from the job's raw "
        f"results (do not edit by hand). Job: `{meta['command']}`.",
        "",
        f"Tool: {meta['tool']}. Judge: {meta['judge']}. The port's unit tests are not used.",
        "",
        *([f"**Partial run**: {meta['sample']}.", ""] if meta.get("sample") else []),
        "| figure | value |",
        "| --- | --- |",
        f"| mutants | {len(mutants)} |",
        f"| killed by a failing vector | {counts['killed']} |",
        f"| killed by timeout | {counts['timeout']} |",
        f"| not viable (does not compile; out of the score) | {counts['not-viable']} |",
        f"| equivalent (triaged below) | {kinds['equivalent']} |",
        f"| survived, behaviour no vector pins (triaged below; counted as not killed) | "
        f"{kinds['unpinned']} |",
        f"| survived, not triaged | {kinds['untriaged']} |",
        f"| **score** = killed / (viable - equivalent) | **{killed} / {judged} = {value:.2%}** |",
        *(
            [f"| 95% interval of the whole job's score (Wilson) | {_wilson(killed, judged)} |"]
            if meta.get("sample")
            else []
        ),
        f"| wall time of the job | {wall / 60:.1f} min |" if wall else "| wall time | n/a |",
        "",
        "### Per file",
        "",
        "| file | mutants | killed | not viable | equivalent | not killed | score |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for file in sorted({m.file for m in mutants}):
        own = [m for m in mutants if m.file == file]
        k, j, v = score(own)
        lines.append(
            f"| `{file}` | {len(own)} | {k} | {sum(m.status == 'not-viable' for m in own)} | "
            f"{sum(m.triage == 'equivalent' for m in own)} | {j - k} | {v:.1%} |"
        )
    lines += ["", "### Surviving mutants", ""]
    if not survivors:
        lines.append("None.")
    else:
        lines += [
            "*Equivalent*: no input a vector can carry changes any result the replay "
            "compares (the argument is given). *Unpinned*: a behaviour no committed "
            "vector pins yet; counted as not killed, listed for new vectors. Triage "
            "lives in `tests/mutation/port-survivors.toml`.",
            "",
            "| where | operator | original line | mutated to | triage |",
            "| --- | --- | --- | --- | --- |",
        ]
        for m in survivors:
            verdict = f"{m.triage}: {m.why}" if m.triage else "**UNTRIAGED**"
            lines.append(
                f"| `{m.file}:{m.line}` | {m.operator} | `{_cell(m.code)}` | "
                f"`{_cell(m.mutated)}` | {_cell(verdict)} |"
            )
    rejudged = [m for m in mutants if m.rejudged and m.status in ("killed", "timeout")]
    if rejudged:
        lines += [
            "",
            "### Survivors killed by vectors added later",
            "",
            "Judged again by `-rejudge` after new vectors were committed.",
            "",
            "| where | operator | original line | mutated to | killed by |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{m.file}:{m.line}` | {m.operator} | `{_cell(m.code)}` | `{_cell(m.mutated)}` | "
            f"{_cell(m.detail.split(': ')[0] if m.status == 'killed' else 'timeout')} |"
            for m in rejudged
        ]
    if stale:
        lines += ["", "Stale triage entries (match no survivor):", ""]
        lines += [f"- `{_cell(s)}`" for s in stale]
    lines.append("")
    return "\n".join(lines)


def _write_atomic(path: Path, text: str) -> None:
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(name, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", type=float, default=0.97)
    args = parser.parse_args()
    entries = load_triage(TRIAGE)
    ok = True
    jobs = [
        ("typescript", "TypeScript port", HERE / "typescript" / "stryker-report.json", _typescript),
        ("go", "Go port", HERE / "go" / "results.json", _go),
        ("go-engine", "Go port's engine", HERE / "go-engine" / "results.json", _go),
    ]
    for port, name, raw, read in jobs:
        target = ENGINE_TARGET if port == "go-engine" else args.target
        if not raw.exists():
            print(f"{port}: no {raw.relative_to(REPO)}; run the job first", file=sys.stderr)
            ok = False
            continue
        mutants, meta = read(json.loads(raw.read_text(encoding="utf-8")))
        stale = triage(port, mutants, entries, complete=not meta.get("sample"))
        _write_atomic(raw.parent / "REPORT.md", render(name, mutants, meta, stale))
        killed, judged, value = score(mutants)
        untriaged = sum(m.status == "survived" and not m.triage for m in mutants)
        print(f"{port}: {killed}/{judged} = {value:.2%}, {untriaged} untriaged, {len(stale)} stale")
        ok = ok and value >= target and untriaged == 0 and not stale
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
