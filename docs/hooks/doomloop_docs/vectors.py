"""The vector catalog, generated from vectors/ (format 1, spec/vectors.md).

One page per vector file (``vectors/<kind>/<family>.md`` in the site), each
vector anchored by its id (the element id *is* the vector id, so
``.../vectors/curated/fanout.html#fanout/declared-repeat-three`` finds it), with
its description, linked spec ids, tags, features, option, initial state and a
table of steps (step number, operation, inputs as compact JSON, expected
result). An engine vector (a ``scenario`` and its ``facts`` in place of
``steps``, ENG-15) shows a summary of its scenario (tools, runs, scripted
responses and expected dispatches per run), its facts, the scenario itself and
the expected transcript or error. Curated vectors get a heading each; the
vectors of a generated family (hundreds or thousands) sit in collapsed
``<details>`` blocks.

The bodies are HTML built here and put into the page after the Markdown is
rendered (see :mod:`.site`): Markdown never parses thousands of tables.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .util import esc, md_cell, md_text, short_json

LONG_VALUE = 1200
"""Values longer than this (characters of compact JSON) are shown folded: a call
record with its verdict message stays in sight, a big state blob or text folds."""

KINDS = ("curated", "generated")


@dataclass
class VectorFile:
    path: str
    """Path under vectors/, e.g. ``curated/fanout.json``."""
    kind: str
    family: str
    description: str
    generator: dict[str, Any] | None
    vectors: list[dict[str, Any]]

    @property
    def page_uri(self) -> str:
        return f"vectors/{self.kind}/{self.family}.md"


@dataclass
class Catalog:
    files: list[VectorFile] = field(default_factory=list)
    manifest: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(len(f.vectors) for f in self.files)

    def citations(self) -> dict[str, list[str]]:
        cited: dict[str, list[str]] = {}
        for f in self.files:
            for v in f.vectors:
                for sid in v.get("spec", []):
                    cited.setdefault(sid, []).append(v["id"])
        return cited

    def features_by_id(self) -> dict[str, list[str]]:
        return {v["id"]: list(v.get("features", [])) for f in self.files for v in f.vectors}

    def family_of(self) -> dict[str, VectorFile]:
        return {v["id"]: f for f in self.files for v in f.vectors}


def load(vectors_dir: Path) -> Catalog:
    """Read the vector files (the manifest's list when there is one, else a glob)."""
    catalog = Catalog()
    if not vectors_dir.is_dir():
        return catalog
    manifest_path = vectors_dir / "manifest.json"
    paths: list[str]
    if manifest_path.is_file():
        try:
            catalog.manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            paths = [entry["path"] for entry in catalog.manifest["files"]]
        except (OSError, ValueError, KeyError, TypeError) as error:
            catalog.problems.append(f"vectors/manifest.json is not readable: {error}")
            return catalog
    else:
        paths = sorted(
            p.relative_to(vectors_dir).as_posix()
            for kind in KINDS
            for p in (vectors_dir / kind).glob("*.json")
        )
    for rel in paths:
        try:
            data = json.loads((vectors_dir / rel).read_text(encoding="utf-8"))
            vector_file = VectorFile(
                path=rel,
                kind=data["kind"],
                family=data["family"],
                description=data.get("description", ""),
                generator=data.get("generator"),
                vectors=list(data["vectors"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            catalog.problems.append(f"vectors/{rel} is not a readable vector file: {error}")
            continue
        if vector_file.kind not in KINDS:
            catalog.problems.append(f"vectors/{rel}: unknown kind {vector_file.kind!r}")
            continue
        catalog.files.append(vector_file)
    catalog.files.sort(key=lambda f: (KINDS.index(f.kind), f.family))
    return catalog


# -- rendering ------------------------------------------------------------------------


def value_html(value: Any) -> str:
    text = short_json(value)
    if len(text) <= LONG_VALUE:
        return f"<code>{esc(text)}</code>"
    head = text[:160]
    return (
        f'<details class="dl-long"><summary><code>{esc(head)}…</code> '
        f"({len(text)} characters)</summary><code>{esc(text)}</code></details>"
    )


def is_engine(vector: dict[str, Any]) -> bool:
    """An engine vector carries a scenario instead of steps (spec §15.1.4)."""
    return "scenario" in vector


def size_of(vector: dict[str, Any]) -> int:
    """Steps of a monitor vector, runs of an engine vector."""
    if is_engine(vector):
        scenario = vector.get("scenario")
        runs = scenario.get("runs", []) if isinstance(scenario, dict) else []
        return len(runs) if isinstance(runs, list) else 0
    return len(vector.get("steps", []))


def steps_of(vector: dict[str, Any]) -> list[dict[str, Any]]:
    """A vector's steps; an engine vector is one ``runScenario`` step (vectors.md)."""
    if is_engine(vector):
        return [
            {"op": "runScenario", "scenario": vector["scenario"], "expect": vector.get("expect")}
        ]
    steps: list[dict[str, Any]] = vector.get("steps", [])
    return steps


def operations_of(vector: dict[str, Any]) -> list[str]:
    """The protocol operations a vector sends, sorted (an engine vector: ``runScenario``)."""
    return sorted({str(step.get("op")) for step in steps_of(vector)})


def step_inputs(step: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in step.items() if k not in ("op", "expect")}


def expected_html(expect: Any) -> str:
    if isinstance(expect, dict) and "error" in expect and "result" not in expect:
        return f'<span class="dl-error">error</span> <code>{esc(str(expect["error"]))}</code>'
    if isinstance(expect, dict) and "result" in expect:
        return value_html(expect["result"])
    return value_html(expect)


@dataclass
class Links:
    """How a page links out: spec ids and features, as URLs relative to the page."""

    statement: Callable[[str], str | None]
    feature: Callable[[str], str | None]
    problems: list[str] = field(default_factory=list)


def vector_body_html(vector: dict[str, Any], links: Links) -> str:
    """Everything about one vector except its title line."""
    spec_parts = []
    for sid in vector.get("spec", []):
        url = links.statement(sid)
        if url is None:
            links.problems.append(f"vector {vector.get('id')} cites unknown statement id {sid}")
            spec_parts.append(f"<code>{esc(sid)}</code>")
        else:
            spec_parts.append(f'<a class="dl-sid" href="{esc(url)}">{esc(sid)}</a>')
    tags = " ".join(f'<code class="dl-tag">{esc(t)}</code>' for t in vector.get("tags", []))
    feature_parts = []
    for name in vector.get("features", []):
        url = links.feature(name)
        label = f'<code class="dl-feature">{esc(name)}</code>'
        feature_parts.append(f'<a href="{esc(url)}">{label}</a>' if url else label)
    out = [
        '<div class="dl-vector-body">',
        '<p class="dl-meta">',
        f"<strong>Spec</strong> {', '.join(spec_parts) or 'none'}",
        f" · <strong>Tags</strong> {tags or 'none'}",
        f" · <strong>Features</strong> {' '.join(feature_parts) or 'none'}",
        "</p>",
    ]
    if is_engine(vector):
        out.append(engine_body_html(vector))
        return "".join(out)
    if "option" in vector:
        out.append(f'<p class="dl-meta"><strong>Option</strong> {value_html(vector["option"])}</p>')
    if "initialState" in vector:
        state = value_html(vector["initialState"])
        out.append(f'<p class="dl-meta"><strong>Initial state</strong> {state}</p>')
    out.append(
        '<table class="dl-steps"><thead><tr><th>#</th><th>Operation</th><th>Inputs</th>'
        "<th>Expected</th></tr></thead><tbody>"
    )
    for number, step in enumerate(steps_of(vector)):
        inputs = step_inputs(step)
        out.append(
            f"<tr><td>{number}</td><td><code>{esc(str(step.get('op')))}</code></td>"
            f"<td>{value_html(inputs) if inputs else '—'}</td>"
            f"<td>{expected_html(step.get('expect'))}</td></tr>"
        )
    out.append("</tbody></table></div>")
    return "".join(out)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _tool_label(tool: Any) -> str:
    if not isinstance(tool, dict):
        return f"<code>{esc(short_json(tool))}</code>"
    notes = [str(tool.get("kind", "executable"))]
    if "loopKey" in tool:
        notes.append(f"loopKey {short_json(tool['loopKey'])}")
    if "fails" in tool:
        notes.append("fails")
    return f"<code>{esc(str(tool.get('name')))}</code> ({esc(', '.join(notes))})"


def _run_label(run: Any) -> str:
    if not isinstance(run, dict):
        return esc(short_json(run))
    if _list(run.get("approve")) or _list(run.get("reject")):
        decisions = []
        for key, word in (("approve", "approves"), ("reject", "rejects")):
            ids = _list(run.get(key))
            if ids:
                decisions.append(f"{word} " + ", ".join(f"<code>{esc(str(i))}</code>" for i in ids))
        return "decision resume: " + "; ".join(decisions)
    return f"fresh turn, input {value_html(run.get('input'))}"


def engine_body_html(vector: dict[str, Any]) -> str:
    """Scenario summary, facts, scenario and expected transcript of an engine vector."""
    scenario = vector.get("scenario")
    scenario = scenario if isinstance(scenario, dict) else {}
    runs = _list(scenario.get("runs"))
    expect = vector.get("expect")
    result = expect.get("result") if isinstance(expect, dict) else None
    expected_runs = _list(result.get("runs")) if isinstance(result, dict) else []
    tools = ", ".join(_tool_label(t) for t in _list(scenario.get("tools"))) or "none"
    dispatches = sum(len(_list(r.get("dispatches"))) for r in expected_runs if isinstance(r, dict))
    out = [
        '<p class="dl-meta dl-scenario">',
        f"<strong>Tools</strong> {tools}",
        f" · <strong>Runs</strong> {len(runs)}",
        f" · <strong>Dispatches</strong> {dispatches if expected_runs else '—'}",
        "</p>",
    ]
    if "doomLoop" in scenario:
        out.append(
            f'<p class="dl-meta"><strong>doomLoop</strong> {value_html(scenario["doomLoop"])}</p>'
        )
    out.append(
        '<table class="dl-runs"><thead><tr><th>Run</th><th>Kind</th>'
        "<th>Scripted responses</th><th>Dispatches</th><th>End</th></tr></thead><tbody>"
    )
    for number, run in enumerate(runs):
        scripted = len(_list(run.get("model"))) if isinstance(run, dict) else 0
        got = expected_runs[number] if number < len(expected_runs) else None
        if isinstance(got, dict):
            sent = str(len(_list(got.get("dispatches"))))
            end = got.get("end")
            end = end if isinstance(end, dict) else {}
            ending = f"<code>{esc(str(end.get('status')))}</code> / {esc(str(end.get('reason')))}"
        else:
            sent, ending = "—", "—"
        out.append(
            f"<tr><td>{number}</td><td>{_run_label(run)}</td><td>{scripted}</td>"
            f"<td>{sent}</td><td>{ending}</td></tr>"
        )
    out.append("</tbody></table>")
    facts = _list(vector.get("facts"))
    if facts:
        out.append(
            '<p class="dl-meta"><strong>Facts</strong> (informative: what the vector pins, '
            'as the brief states it)</p><ul class="dl-facts">'
        )
        out += [f"<li>{value_html(fact)}</li>" for fact in facts]
        out.append("</ul>")
    out.append(f'<p class="dl-meta"><strong>Scenario</strong> {value_html(scenario)}</p>')
    out.append(f'<p class="dl-meta"><strong>Expected</strong> {expected_html(expect)}</p>')
    out.append("</div>")
    return "".join(out)


def generated_vector_html(vector: dict[str, Any], links: Links) -> str:
    vid = str(vector.get("id"))
    return (
        f'<details class="dl-vector" id="{esc(vid)}"><summary><code>{esc(vid)}</code> '
        f'<span class="dl-desc">{esc(str(vector.get("description", "")))}</span>'
        f' <a class="dl-vlink" href="#{esc(vid)}" title="Link to this vector">¶</a></summary>'
        f"{vector_body_html(vector, links)}</details>"
    )


def shape_of(vector_id: str) -> str:
    """``family/shape-0123456789`` -> ``shape`` (the content hash dropped)."""
    name = vector_id.split("/", 1)[-1]
    return re.sub(r"-[0-9a-f]{10}$", "", name)


def family_page(vector_file: VectorFile, placeholder: Callable[[int], str]) -> str:
    """The Markdown of one family page. ``placeholder(i)`` stands for vector i's HTML
    (curated), or ``placeholder(-1)`` for the whole list (generated)."""
    count = len(vector_file.vectors)
    kind = vector_file.kind
    out: list[str] = []
    if kind == "generated":
        # The catalog adds one compact search entry per vector instead.
        out += ["---", "search:", "  exclude: true", "hide:", "  - toc", "---", ""]
    out += [
        f"# {vector_file.family} ({kind}) {{#family-{vector_file.family}}}",
        "",
        md_text(vector_file.description),
        "",
        f"File `vectors/{vector_file.path}`: {count} vector{'s' if count != 1 else ''}.",
    ]
    if vector_file.generator:
        gen = vector_file.generator
        out[-1] += (
            f" Generated by generator version `{gen.get('version')}` with seed "
            f"`{gen.get('seed')}` ({gen.get('examples')} examples); ids carry a hash of the "
            "vector's inputs, so an id never changes meaning."
        )
    out.append("")
    features = Counter(f for v in vector_file.vectors for f in v.get("features", []))
    if features:
        out += [
            "Features needed: "
            + ", ".join(f"`{name}` ({n})" for name, n in sorted(features.items()))
            + ".",
            "",
        ]
    if kind == "curated":
        engine = [is_engine(v) for v in vector_file.vectors]
        size = "Runs" if all(engine) else "Steps / runs" if any(engine) else "Steps"
        out += [f"| Vector | Description | {size} |", "| --- | --- | ---: |"]
        for v in vector_file.vectors:
            out.append(
                f"| [`{v['id']}`](#{v['id']}) | {md_cell(md_text(str(v.get('description', ''))))} "
                f"| {size_of(v)} |"
            )
        out.append("")
        for number, v in enumerate(vector_file.vectors):
            out += [
                f"## `{v['id']}` {{#{v['id']}}}",
                "",
                md_text(str(v.get("description", ""))),
                "",
                placeholder(number),
                "",
            ]
    else:
        shapes = Counter(shape_of(str(v.get("id"))) for v in vector_file.vectors)
        out += [
            "## Shapes {#shapes}",
            "",
            "| Shape | Vectors |",
            "| --- | ---: |",
            *(f"| `{s}` | {n} |" for s, n in sorted(shapes.items())),
            "",
            "## Vectors {#vectors}",
            "",
            "Each vector is folded; open it to see its steps, or follow a link to "
            "`#<vector id>` (it opens by itself). The browser's find-in-page searches "
            "the ids.",
            "",
            placeholder(-1),
            "",
        ]
    return "\n".join(out) + "\n"


LOOKUP_FILE = "vectors/ids.json"
"""Site path of the id -> page map used by the lookup box of the catalog index."""

LOOKUP_FORM = """<form id="dl-vector-lookup" class="dl-lookup" data-ids="ids.json">
<label for="dl-vector-id"><strong>Find a vector by id</strong></label>
<input id="dl-vector-id" name="id" type="text" size="48" autocomplete="off"
 spellcheck="false" placeholder="e.g. facts/fanout-repeat-three">
<button type="submit" class="md-button">Go</button>
<span id="dl-lookup-result" class="dl-lookup-result"></span>
</form>"""


def lookup_map(catalog: Catalog) -> str:
    """JSON: vector id -> its anchor, as a site-root-relative URL (``vectors/...#id``)."""
    ids: dict[str, str] = {}
    for f in catalog.files:
        page = f"vectors/{f.kind}/{f.family}.html"  # pages are files (use_directory_urls off)
        for v in f.vectors:
            ids.setdefault(str(v.get("id")), f"{page}#{v.get('id')}")
    return json.dumps(ids, sort_keys=True, separators=(",", ":")) + "\n"


def index_page(catalog: Catalog, links_page: Callable[[VectorFile], str], extra: list[str]) -> str:
    out = [
        "# Vector catalog {#vector-catalog}",
        "",
        "Every test vector of `vectors/`, generated from the vector files when the site is "
        "built: one page per family file. A vector's id is its anchor on its family's "
        "page, so a failing id from a conformance report can be looked up directly "
        "(or typed into the search).",
        "",
        *extra,
    ]
    if not catalog.files:
        out += [
            '!!! warning "No vector files"',
            "    `vectors/` holds no vector files yet; regenerate them with "
            "`doomloop-kit vectors regenerate`.",
            "",
        ]
        return "\n".join(out) + "\n"
    out += [
        LOOKUP_FORM,
        "",
        "The box takes an exact id (from a conformance report) or the start of one; "
        "`vectors/index.html?id=<vector id>` jumps straight to the vector.",
        "",
    ]
    out.append(f"{catalog.total} vectors in {len(catalog.files)} files.")
    if catalog.manifest and "generatorVersion" in catalog.manifest:
        out[-1] += (
            f" Vector format {catalog.manifest.get('format')}, generator version "
            f"`{catalog.manifest.get('generatorVersion')}`."
        )
    out.append("")
    for kind in KINDS:
        files = [f for f in catalog.files if f.kind == kind]
        if not files:
            continue
        out += [
            f"## {kind.capitalize()} {{#{kind}}}",
            "",
            "| Family | Vectors | Description |",
            "| --- | ---: | --- |",
        ]
        for f in files:
            out.append(
                f"| [{f.family}]({links_page(f)}) | {len(f.vectors)} | "
                f"{md_cell(md_text(f.description))} |"
            )
        out.append("")
    features = Counter(
        name for f in catalog.files for v in f.vectors for name in v.get("features", [])
    )
    if features:
        out += ["## Features {#features}", "", "| Feature | Vectors needing it |", "| --- | ---: |"]
        out += [f"| `{name}` | {n} |" for name, n in sorted(features.items())]
        out.append("")
    return "\n".join(out) + "\n"
