"""The conformance matrix, generated from the runner's JSON-lines reports.

``doomloop-kit conformance run --report-json FILE`` writes a ``header`` line
(with the harness's ``implementation`` and declared ``features``), one
``vector`` line per vector (``id``, ``file``, ``status``) and a ``footer`` line
(totals). Every ``*.jsonl`` file of the reports directory is one column of the
matrix, so that it stays narrow however many families there are; rows are
the vector families and the optional features, and a cell counts the passed
vectors over the vectors of that row in the run, e.g. ``212/212``. The
summary says, per run, whether the engine level (ENG-14) passes, fails or is
not claimed: engine vectors are those of an ``engine-…``
family or needing the feature ``engine``. The page carries no timestamps or
paths, so the same reports give the same page.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .util import md_cell
from .vectors import Catalog

PASSED = "passed"
BAD = ("failed", "errored", "xpassed")
ENGINE_FEATURE = "engine"
ENGINE_FAMILY_PREFIX = "engine-"
_FILE_LABEL = re.compile(r"(?:^|/)(curated|generated)/([a-z0-9][a-z0-9-]*)\.json$")


@dataclass
class Run:
    source: str
    """The report's file name (not its path: the page must not depend on where it lives)."""
    implementation: dict[str, Any] = field(default_factory=dict)
    declared: list[str] = field(default_factory=list)
    protocol: Any = None
    manifest_sha256: str | None = None
    vectors: list[dict[str, Any]] = field(default_factory=list)
    footer: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        impl = self.implementation
        name = str(impl.get("name") or Path(self.source).stem)
        extra = ", ".join(str(impl[k]) for k in ("language", "version") if impl.get(k))
        return f"{name} ({extra})" if extra else name

    def sort_key(self) -> tuple[str, str, str]:
        impl = self.implementation
        return (str(impl.get("name", "")), str(impl.get("language", "")), self.source)


def read_report(path: Path) -> Run:
    run = Run(source=path.name)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        run.problems.append(f"unreadable: {error}")
        return run
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            run.problems.append(f"line {number} is not JSON")
            continue
        if not isinstance(item, dict):
            run.problems.append(f"line {number} is not an object")
            continue
        kind = item.get("type")
        where = f"line {number}"
        if kind == "header":
            harness = _object(item.get("harness"), f"{where}: harness", run.problems)
            implementation = harness.get("implementation")
            run.implementation = _object(implementation, f"{where}: implementation", run.problems)
            features = harness.get("features")
            run.declared = sorted(str(f) for f in features) if isinstance(features, list) else []
            run.protocol = harness.get("protocol", item.get("protocol"))
            vector_set = _object(item.get("vectorSet"), f"{where}: vectorSet", run.problems)
            sha256 = vector_set.get("sha256")
            run.manifest_sha256 = sha256 if isinstance(sha256, str) else None
        elif kind == "vector":
            run.vectors.append(item)
        elif kind == "footer":
            run.footer = item
    if run.footer is None:
        run.problems.append("no footer: the run did not finish (truncated report)")
    return run


def _object(value: Any, what: str, problems: list[str]) -> dict[str, Any]:
    """A member that should be an object (absent or null: empty); anything else is a
    problem of the report, shown on the page, never a crash of the build."""
    if isinstance(value, dict):
        return value
    if value is not None:
        problems.append(f"{what} is not an object")
    return {}


def run_state(footer: dict[str, Any] | None) -> str:
    """How the run ended, as the matrix shows it: only a complete run is plain."""
    if footer is None:
        return "**truncated**"
    status = str(footer.get("status", "?"))
    if status == "complete":
        return "complete"
    reason = footer.get("reason") or footer.get("aborted") or footer.get("stopped")
    return f"**{md_cell(status)}**" + (f": {md_cell(str(reason))}" if reason else "")


def load_runs(reports_dir: Path) -> list[Run]:
    if not reports_dir.is_dir():
        return []
    # the folder and its subfolders: `make` writes the in-tree ports' reports
    # into their own subfolder, beside the reports port authors put there
    runs = [read_report(p) for p in sorted(reports_dir.rglob("*.jsonl"))]
    return sorted(runs, key=Run.sort_key)


@dataclass
class Cell:
    passed: int = 0
    total: int = 0
    bad: int = 0
    skipped: int = 0

    def add(self, status: str) -> None:
        self.total += 1
        if status == PASSED:
            self.passed += 1
        elif status in BAD:
            self.bad += 1
        elif status == "skipped":
            self.skipped += 1

    def text(self) -> str:
        if self.total == 0:
            return "-"
        out = f"{self.passed}/{self.total}"
        notes = []
        if self.bad:
            notes.append(f"{self.bad} failing")
        if self.skipped:
            notes.append(f"{self.skipped} skipped")
        if notes:
            out += " (" + ", ".join(notes) + ")"
        if self.bad:
            out = f"**{out}**"
        return out


def column_of(item: dict[str, Any], catalog_files: dict[str, tuple[str, str]]) -> tuple[str, str]:
    match = _FILE_LABEL.search(str(item.get("file", "")))
    if match:
        return match.group(1), match.group(2)
    vid = str(item.get("id", ""))
    if vid in catalog_files:
        return catalog_files[vid]
    return "other", vid.split("/", 1)[0]


def is_engine_vector(family: str, features: list[str]) -> bool:
    """Engine vectors: an ``engine-`` family, or the feature ``engine`` (ENG-14)."""
    return family.startswith(ENGINE_FAMILY_PREFIX) or ENGINE_FEATURE in features


def engine_level(run: Run, engine: Cell) -> str:
    """The engine level of a run: passes, fails or not claimed (feature not declared)."""
    if ENGINE_FEATURE not in run.declared:
        return f"not claimed (no `{ENGINE_FEATURE}` feature)"
    if engine.bad:
        return f"**fails** ({engine.bad} of {engine.total} failing)"
    if engine.passed == 0:
        return "claimed, no engine vector run"
    if engine.passed < engine.total:
        return f"passes ({engine.passed}/{engine.total}, {engine.total - engine.passed} not run)"
    return f"passes ({engine.passed}/{engine.total})"


def page(runs: list[Run], catalog: Catalog, reports_hint: str, manifest: Path | None) -> str:
    out = [
        "---",
        "hide:",
        "  - navigation",
        "  - toc",
        "---",
        "",
        "# Conformance matrix {#conformance-matrix}",
        "",
        "Results of the in-tree ports against the vectors, generated when the site is "
        "built from the conformance runner's JSON-lines reports "
        f"(`doomloop-kit conformance run --report-json`; read from `{reports_hint}`, "
        "set `DOOMLOOP_DOCS_REPORTS` to read another folder). A cell counts the passed "
        "vectors over the vectors of that row in the run: `212/212` is all passed. "
        "Failing cells are bold; *skipped* vectors need a feature the harness does not "
        "declare. The *Engine level* row reads the engine vectors (families "
        "`engine-…`, or needing the feature `engine`): a port claims the level by "
        "declaring `engine` (see [the engine level](engine/index.md)).",
        "",
    ]
    if not runs:
        out += [
            '!!! info "No conformance reports yet"',
            f"    No report files (`*.jsonl`) were found in `{reports_hint}`, so there are "
            "no results to show. Run `make docs` (it runs every in-tree port with "
            "`--report-json` and then builds the site), or write the reports yourself "
            "and rebuild.",
            "",
        ]
        return "\n".join(out) + "\n"

    current_sha = None
    if manifest is not None and manifest.is_file():
        current_sha = hashlib.sha256(manifest.read_bytes()).hexdigest()
    catalog_files = {v["id"]: (f.kind, f.family) for f in catalog.files for v in f.vectors}
    features_by_id = catalog.features_by_id()

    columns: list[tuple[str, str]] = [(f.kind, f.family) for f in catalog.files]
    for run in runs:
        for item in run.vectors:
            col = column_of(item, catalog_files)
            if col not in columns:
                columns.append(col)
    feature_names = sorted(
        {name for names in features_by_id.values() for name in names}
        | {name for run in runs for name in run.declared}
    )

    labels = [run.label for run in runs]
    head = "| {} | " + " | ".join(md_cell(label) for label in labels) + " |"
    rule = "| --- | " + " | ".join("---:" for _ in runs) + " |"
    facts: dict[str, list[str]] = {
        name: []
        for name in (
            "Protocol",
            "Declared features",
            "Passed",
            "Failing",
            "Skipped",
            "Engine level",
            "Run",
        )
    }
    family_cells: list[dict[tuple[str, str], Cell]] = []
    feature_cells: list[dict[str, Cell]] = []
    for run in runs:
        statuses = Counter(str(v.get("status")) for v in run.vectors)
        state = run_state(run.footer)
        if current_sha and run.manifest_sha256 and run.manifest_sha256 != current_sha:
            state += " (**stale**: another vector set)"
        if run.problems and run.footer is not None:
            state += " (" + md_cell("; ".join(run.problems)) + ")"
        if not run.declared:
            declared = "none"
        elif set(run.declared) >= set(feature_names):
            declared = f"all {len(run.declared)}"
        else:
            declared = ", ".join(f"`{f}`" for f in run.declared)
        cells = {col: Cell() for col in columns}
        features = {name: Cell() for name in feature_names}
        engine = Cell()
        for item in run.vectors:
            status = str(item.get("status"))
            column = column_of(item, catalog_files)
            needed = features_by_id.get(str(item.get("id")), [])
            cells[column].add(status)
            for name in needed:
                features[name].add(status)
            if is_engine_vector(column[1], needed):
                engine.add(status)
        for name, value in (
            ("Protocol", str(run.protocol) if run.protocol is not None else "?"),
            ("Declared features", declared),
            ("Passed", f"{statuses[PASSED]}/{len(run.vectors)}"),
            ("Failing", str(sum(statuses[s] for s in BAD))),
            ("Skipped", str(statuses["skipped"])),
            ("Engine level", engine_level(run, engine)),
            ("Run", state),
        ):
            facts[name].append(value)
        family_cells.append(cells)
        feature_cells.append(features)

    out += [
        "## Implementations {#implementations}",
        "",
        head.format(""),
        rule,
        *(f"| {name} | " + " | ".join(values) + " |" for name, values in facts.items()),
        "",
    ]

    known = {(f.kind, f.family) for f in catalog.files}

    def header(col: tuple[str, str]) -> str:
        kind, family = col
        if col in known:
            return f"[{family}](vectors/{kind}/{family}.md)"
        return family

    out += ["## By family {#by-family}", ""]
    kinds = list(dict.fromkeys(kind for kind, _ in columns))
    for kind in kinds:
        group = [c for c in columns if c[0] == kind]
        subtotals = []
        for cells in family_cells:
            subtotal = Cell()
            for c in group:
                subtotal.passed += cells[c].passed
                subtotal.total += cells[c].total
                subtotal.bad += cells[c].bad
                subtotal.skipped += cells[c].skipped
            subtotals.append(subtotal.text())
        out += [
            f"### {kind.capitalize()} families {{#by-family-{kind}}}",
            "",
            head.format("Family"),
            rule,
            f"| **All {kind}** | " + " | ".join(subtotals) + " |",
            *(
                f"| {header(c)} | " + " | ".join(cells[c].text() for cells in family_cells) + " |"
                for c in group
            ),
            "",
        ]
    if feature_names:
        out += [
            "## By feature {#by-feature}",
            "",
            "A cell counts the vectors that need the feature; ✓ marks a feature the "
            "harness declares.",
            "",
            head.format("Feature"),
            rule,
            *(
                f"| `{name}` | "
                + " | ".join(
                    cells[name].text() + (" ✓" if name in run.declared else "")
                    for run, cells in zip(runs, feature_cells, strict=True)
                )
                + " |"
                for name in feature_names
            ),
            "",
        ]
    out += [
        "## Reports {#reports}",
        "",
        "| Report file | Implementation |",
        "| --- | --- |",
        *(f"| `{md_cell(run.source)}` | {md_cell(run.label)} |" for run in runs),
        "",
    ]
    return "\n".join(out) + "\n"
