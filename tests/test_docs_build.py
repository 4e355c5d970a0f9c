"""The spec site builds strictly, and every generated page follows its source.

One strict build (``mkdocs build --strict``: no broken link or anchor) into a
temporary folder, with fixture conformance reports, then checks of the output
against spec/, spec/schema/, vectors/ and the harness files; plus unit checks
of the page generators in docs/hooks/doomloop_docs/.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from doomloop_docs import matrix, schemas, spec, vectors  # noqa: E402

BUILD_TIMEOUT = 600  # a guard against a hung build, not a speed target (benchmarks/docs_build.py)
STATEMENT = re.compile(r'<a id="([A-Z][A-Z0-9]*-[0-9]{2,3})"></a>\*\*\1\*\*')
HARNESS_FILES = [
    "conformance/harnesses/python_reference.py",
    "conformance/protocol/server.py",
    "ports/typescript/src/harness.ts",
    "ports/go/cmd/doomloop-harness/main.go",
]


def build_site(
    site_dir: Path, reports_dir: Path, vectors_dir: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the repository's site into ``site_dir``."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DOOMLOOP_DOCS_REPORTS": str(reports_dir)}
    env.pop("DOOMLOOP_DOCS_VECTORS", None)
    if vectors_dir is not None:
        env["DOOMLOOP_DOCS_VECTORS"] = str(vectors_dir)
    command = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "--config-file",
        str(ROOT / "mkdocs.yml"),
        "--site-dir",
        str(site_dir),
    ]
    done = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    if check and done.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed ({done.returncode}):\n{done.stderr[-6000:]}")
    return done


def _vector_files() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    manifest = json.loads((ROOT / "vectors" / "manifest.json").read_text(encoding="utf-8"))
    return [
        (entry, json.loads((ROOT / "vectors" / entry["path"]).read_text(encoding="utf-8")))
        for entry in manifest["files"]
    ]


def write_fixture_reports(reports_dir: Path) -> dict[str, int]:
    """Two runner reports in the real format: one all passed, one partial.

    ``fixture-complete`` passes every vector; ``fixture-partial`` declares no
    features (so those vectors are skipped) and fails the first vector of every
    generated family. Returns the expected counts.
    """
    manifest_bytes = (ROOT / "vectors" / "manifest.json").read_bytes()
    vector_set = {
        "manifest": "vectors/manifest.json",
        "format": 1,
        "sha256": hashlib.sha256(manifest_bytes).hexdigest(),
    }
    files = _vector_files()
    every_feature = sorted({f for _, d in files for v in d["vectors"] for f in v["features"]})
    counts = {"total": 0, "partial_passed": 0}
    for name, declared in (("fixture-complete", every_feature), ("fixture-partial", [])):
        lines: list[dict[str, Any]] = [
            {
                "type": "header",
                "protocol": 1,
                "vectorSet": vector_set,
                "harness": {
                    "command": "fixture",
                    "protocol": 1,
                    "features": declared,
                    "implementation": {"name": name, "language": "fixture", "version": "0"},
                },
            }
        ]
        totals = {"passed": 0, "failed": 0, "skipped": 0}
        for entry, data in files:
            for number, vector in enumerate(data["vectors"]):
                status = "passed"
                if name == "fixture-partial":
                    if set(vector["features"]) - set(declared):
                        status = "skipped"
                    elif entry["kind"] == "generated" and number == 0:
                        status = "failed"
                totals[status] += 1
                lines.append(
                    {
                        "type": "vector",
                        "id": vector["id"],
                        "file": entry["path"],
                        "status": status,
                        "description": vector["description"],
                    }
                )
        lines.append(
            {
                "type": "footer",
                "totals": totals,
                "aborted": None,
                "problems": [],
                "exitStatus": 0 if name == "fixture-complete" else 1,
            }
        )
        (reports_dir / f"{name}.jsonl").write_text(
            "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
        )
        counts["total"] = sum(totals.values())
        if name == "fixture-partial":
            counts["partial_passed"] = totals["passed"]
    return counts


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    reports = tmp_path_factory.mktemp("reports")
    counts = write_fixture_reports(reports)
    site = tmp_path_factory.mktemp("site")
    build_site(site, reports)
    return {"site": site, "counts": counts}


def page_html(site: Path, url: str) -> str:
    """The page of ``url`` (``spec/09-monitor/``): a file of its own (``spec/09-monitor.html``,
    use_directory_urls is off so that the site works from file://) or a folder's index."""
    path = site / url.lstrip("/")
    if url.endswith("/") or not path.suffix:
        folder = path / "index.html"
        path = folder if folder.is_file() else path.with_name(path.name + ".html")
    return path.read_text(encoding="utf-8")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def spec_statements() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "spec").glob("*.md")):
        found[path.name] = STATEMENT.findall(path.read_text(encoding="utf-8"))
    return found


def spec_url(name: str) -> str:
    """The page of a spec file: a file of its own (use_directory_urls is off)."""
    return "spec/index.html" if name == "README.md" else f"spec/{name[:-3]}.html"


def plain_text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


# -- the build --------------------------------------------------------------------------


def test_strict_build_is_complete(built: dict[str, Any]) -> None:
    site: Path = built["site"]
    pages = [page for page in site.rglob("*.html") if page.name != "404.html"]  # one file a page
    assert (site / "search" / "search_index.json").is_file()
    assert (site / "sitemap.xml").is_file()
    expected = len(spec_statements()) + len(_vector_files()) + 5
    assert len(pages) >= expected


def test_every_spec_file_is_a_page_with_its_heading_anchors(built: dict[str, Any]) -> None:
    for path in sorted((ROOT / "spec").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        rendered = page_html(built["site"], spec_url(path.name))
        for anchor in re.findall(r"^#{1,6} .*\{#([^}\s]+)\}\s*$", text, re.M):
            assert f'id="{anchor}"' in rendered, f"{path.name}: anchor {anchor} missing"


def test_every_statement_id_is_a_permalink(built: dict[str, Any]) -> None:
    total = 0
    for name, ids in spec_statements().items():
        rendered = page_html(built["site"], spec_url(name))
        for sid in ids:
            total += 1
            assert f'<a id="{sid}" class="dl-stmt" href="#{sid}"' in rendered, sid
    assert total > 100


def test_index_of_statement_ids_links_every_id(built: dict[str, Any]) -> None:
    rendered = page_html(built["site"], "statement-ids/")
    for name, ids in spec_statements().items():
        for sid in ids:
            assert f'href="{spec_url(name)}#{sid}"' in rendered, sid


def test_search_index_has_an_entry_per_statement_id(built: dict[str, Any]) -> None:
    index = json.loads((built["site"] / "search" / "search_index.json").read_text(encoding="utf-8"))
    entries = {doc["location"]: doc for doc in index["docs"]}
    for name, ids in spec_statements().items():
        for sid in ids:
            entry = entries.get(f"{spec_url(name)}#{sid}")
            assert entry is not None, sid
            assert entry["title"].startswith(sid)


def test_schema_pages_list_every_field_and_definition(built: dict[str, Any]) -> None:
    schema_dir = ROOT / "spec" / "schema"
    paths = sorted(schema_dir.rglob("*.json"))
    assert paths
    for path in paths:
        rel = path.relative_to(schema_dir).as_posix()
        data = json.loads(path.read_text(encoding="utf-8"))
        url = schemas.page_uri_for(rel)[: -len(".md")] + ".html"
        rendered = page_html(built["site"], url)
        text = plain_text(rendered)
        for name in data.get("properties", {}):
            assert name in text, f"{rel}: field {name}"
        for name in data.get("$defs", {}):
            assert f'id="def-{re.sub(r"[^A-Za-z0-9_-]", "-", name)}"' in rendered, f"{rel}: {name}"
        # The raw file is published beside the spec, as the spec links it.
        assert (built["site"] / "spec" / "schema" / rel).read_bytes() == path.read_bytes()


def _resolve(page_url: str, href: str) -> tuple[str, str]:
    path, _, anchor = href.partition("#")
    return posixpath.normpath(posixpath.join(posixpath.dirname(page_url), path)), anchor


def test_vector_catalog_anchors_every_vector_and_links_real_statements(
    built: dict[str, Any],
) -> None:
    site: Path = built["site"]
    cache: dict[str, str] = {}
    checked = 0
    for entry, data in _vector_files():
        url = f"vectors/{entry['kind']}/{entry['family']}.html"
        rendered = page_html(site, url)
        for vector in data["vectors"]:
            assert f'id="{html.escape(vector["id"])}"' in rendered, vector["id"]
        for href in sorted(set(re.findall(r'class="dl-sid" href="([^"]+)"', rendered))):
            target, anchor = _resolve(url, href)
            if target not in cache:
                cache[target] = page_html(site, target)
            assert f'id="{anchor}"' in cache[target], f"{url}: {href}"
            checked += 1
        cited = {sid for v in data["vectors"] for sid in v["spec"]}
        shown = set(re.findall(r'class="dl-sid" href="[^"]+">([A-Z0-9-]+)<', rendered))
        assert cited == shown, entry["path"]
    assert checked > 0


def test_generated_vectors_have_direct_search_entries(built: dict[str, Any]) -> None:
    index = json.loads((built["site"] / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = {doc["location"] for doc in index["docs"]}
    for entry, data in _vector_files():
        if entry["kind"] == "generated":
            for vector in data["vectors"]:
                url = f"vectors/generated/{entry['family']}.html#{vector['id']}"
                assert url in locations


def test_replay_guide_shows_the_example_replays(built: dict[str, Any]) -> None:
    text = plain_text(page_html(built["site"], "guide/replay/"))
    examples = ROOT / "docs" / "guide" / "replay-examples"
    for path in sorted(examples.glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert line in text, f"{path.name}: {line!r} not on the replay page"
    for path in sorted(examples.glob("*.html")):  # published as they are, linked from the page
        published = built["site"] / "guide" / "replay-examples" / path.name
        assert published.read_bytes() == path.read_bytes()
    home = page_html(built["site"], "/")
    assert "Replay an agent log" in plain_text(home)


def test_every_search_entry_with_an_anchor_has_its_page_entry(built: dict[str, Any]) -> None:
    """The search groups ``page#anchor`` entries under the entry located at ``page``;
    one without it is shown as its own page and links to ``/undefined``."""
    index = json.loads((built["site"] / "search" / "search_index.json").read_text(encoding="utf-8"))
    pages: set[str] = set()
    orphans = []
    for doc in index["docs"]:
        page, _, anchor = doc["location"].partition("#")
        if not anchor:
            pages.add(page)
        elif page not in pages:
            orphans.append(doc["location"])
    assert orphans == []


_EXTERNAL_LOAD = re.compile(
    r"<(?:link|script|img|iframe)\b[^>]*\b(?:href|src)=[\"']?(?:https?:)?//|@import\s+url\(\s*[\"']?(?:https?:)?//",
    re.I,
)


def test_pages_load_nothing_from_outside_the_site(built: dict[str, Any]) -> None:
    """No web fonts, scripts or styles from other hosts (links to them are fine)."""
    site: Path = built["site"]
    loading = [
        f"{path.relative_to(site)}: {match.group(0)}"
        for path in sorted(site.rglob("*"))
        if path.suffix in (".html", ".css")
        for match in _EXTERNAL_LOAD.finditer(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert loading == []


def test_make_docs_keeps_a_port_authors_reports(tmp_path: Path) -> None:
    """``make docs`` rebuilds the in-tree reports in their own folder and deletes nothing else."""
    plan = subprocess.run(
        ["make", "-n", "-B", "docs", "REPORTS=" + str(tmp_path / "reports")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    removals = [line for line in plan.splitlines() if re.search(r"\brm\b", line)]
    assert removals, plan  # the in-tree folder is rebuilt from scratch
    for line in removals:
        targets = [w for w in line.split("&&")[0].split()[1:] if not w.startswith("-")]
        assert targets == [str(tmp_path / "reports" / "in-tree")], line


def test_harness_guide_includes_the_real_harness_files(built: dict[str, Any]) -> None:
    text = plain_text(page_html(built["site"], "guide/write-a-harness/"))
    for rel in HARNESS_FILES:
        source = (ROOT / rel).read_text(encoding="utf-8")
        lines = [line.strip() for line in source.splitlines() if len(line.strip()) > 20]
        assert lines, rel
        for line in (lines[0], lines[len(lines) // 2], lines[-1]):
            assert line in text, f"{rel}: {line!r} not in the guide"


def test_matrix_counts_come_from_the_reports(built: dict[str, Any]) -> None:
    rendered = page_html(built["site"], "matrix/")
    text = plain_text(rendered)
    total = built["counts"]["total"]
    assert "fixture-complete (fixture, 0)" in text
    assert f"{total}/{total}" in text
    assert f"{built['counts']['partial_passed']}/{total}" in text
    assert "No conformance reports" not in text
    engine = sum(
        1
        for entry, data in _vector_files()
        for vector in data["vectors"]
        if entry["family"].startswith("engine-") or "engine" in vector["features"]
    )
    summary = plain_text(
        rendered[rendered.index('id="implementations"') : rendered.index('id="by-family"')]
    )
    if engine:  # fixture-complete declares every feature, fixture-partial none
        assert f"passes ({engine}/{engine})" in summary
        assert "not claimed (no engine feature)" in summary
    else:
        assert "claimed, no engine vector run" in summary
    article = rendered[rendered.index("<article") : rendered.index("</article>")]
    assert not re.search(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2}", plain_text(article))


def test_versioning_page_reads_the_current_versions(built: dict[str, Any]) -> None:
    text = plain_text(page_html(built["site"], "versioning/"))
    readme = (ROOT / "spec" / "README.md").read_text(encoding="utf-8")
    version = re.search(r"^Version:\s*\**([^*\s]+)", readme, re.M)
    assert version is not None
    assert version.group(1) in text
    assert "doomloop:versions" not in text
    assert "Changelog" in plain_text(page_html(built["site"], "changelog/"))


def write_curated_file(
    tmp_path: Path, family: str, description: str, vector_list: list[dict[str, Any]]
) -> Path:
    """A vectors folder holding one curated family file (no manifest); returns the folder."""
    vectors_dir = tmp_path / "vectors"
    (vectors_dir / "curated").mkdir(parents=True)
    data = {"format": 1, "kind": "curated", "family": family, "description": description}
    (vectors_dir / "curated" / f"{family}.json").write_text(
        json.dumps({**data, "vectors": vector_list}), encoding="utf-8"
    )
    return vectors_dir


def test_an_unknown_statement_id_in_a_vector_fails_the_strict_build(tmp_path: Path) -> None:
    bad = {
        "id": "bad/cites-nothing",
        "description": "cites an id the spec lacks",
        "spec": ["MON-999"],
        "tags": [],
        "features": [],
        "steps": [{"op": "canonicalize", "value": 1, "expect": {"result": "1"}}],
    }
    vectors_dir = write_curated_file(tmp_path, "bad", "a bad citation", [bad])
    done = build_site(tmp_path / "site", tmp_path / "no-reports", vectors_dir, check=False)
    assert done.returncode != 0
    assert "MON-999" in done.stderr


# -- the generators, unit by unit -------------------------------------------------------


def test_matrix_page_is_reproducible_and_says_when_there_are_no_reports(tmp_path: Path) -> None:
    catalog = vectors.load(ROOT / "vectors")
    empty = matrix.page([], catalog, ".artifacts/reports", None)
    assert "No conformance reports yet" in empty
    write_fixture_reports(tmp_path)
    first = matrix.page(matrix.load_runs(tmp_path), catalog, "reports", None)
    again = matrix.page(matrix.load_runs(tmp_path), catalog, "reports", None)
    assert first == again
    assert first.index("fixture-complete") < first.index("fixture-partial")


def test_matrix_marks_a_truncated_report(tmp_path: Path) -> None:
    (tmp_path / "cut.jsonl").write_text(
        json.dumps({"type": "header", "harness": {"implementation": {"name": "cut"}}})
        + "\n"
        + json.dumps({"type": "vector", "id": "x/y", "file": "curated/x.json", "status": "passed"})
        + "\n",
        encoding="utf-8",
    )
    page = matrix.page(matrix.load_runs(tmp_path), vectors.Catalog(), "r", None)
    assert "**truncated**" in page
    assert "1/1" in page


def test_matrix_survives_reports_of_the_wrong_shape_and_names_how_runs_ended(
    tmp_path: Path,
) -> None:
    """Issue 23: a report of the wrong shape was an AttributeError that stopped
    `make docs`; a run that did not complete must never read "complete"."""
    lines = [
        {"type": "header", "harness": ["not", "an", "object"], "vectorSet": "a string"},
        {"type": "vector", "id": "x/y", "file": "curated/x.json", "status": "passed"},
        {"type": "footer", "status": "interrupted", "reason": "interrupted by SIGINT"},
    ]
    (tmp_path / "odd.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    stopped = [
        {"type": "header", "harness": {"implementation": "a string", "features": 7}},
        {"type": "footer", "status": "unfinished", "reason": None, "aborted": None},
    ]
    (tmp_path / "cut.jsonl").write_text("".join(json.dumps(x) + "\n" for x in stopped))
    page = matrix.page(matrix.load_runs(tmp_path), vectors.Catalog(), "r", None)
    assert "**interrupted**: interrupted by SIGINT" in page
    assert "harness is not an object" in page and "vectorSet is not an object" in page
    assert "**unfinished**" in page and "implementation is not an object" in page
    assert "| complete |" not in page


def test_schema_renderer_describes_types_rules_and_links() -> None:
    data = {
        "title": "Example",
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": {"type": "string", "pattern": "^[a-z]+$", "description": "see MON-07"},
            "b": {"$ref": "#/$defs/thing"},
            "c": {"type": "object", "properties": {"d": {"enum": [1, 2]}}, "required": ["d"]},
        },
        "additionalProperties": False,
        "if": {"properties": {"a": {"const": "x"}}, "required": ["a"]},
        "then": {"required": ["b"]},
        "$defs": {"thing": {"type": "integer", "minimum": 1}},
    }
    schema_file = schemas.SchemaFile(
        rel="example.schema.json", data=data, page_uri="schemas/example.md"
    )
    renderer = schemas.Renderer(
        schema_file, [schema_file], lambda sid: "spec/09-monitor.md" if sid == "MON-07" else None
    )
    page = renderer.page()
    link = "[MON-07](../spec/09-monitor.md#MON-07)"
    assert f"| `a` | string, matching `^[a-z]+$` | yes | see {link} |" in page
    assert "| `b` | [thing](#def-thing) | no |" in page
    assert "| `c.d` | one of `1`, `2` | yes |" in page
    assert '- If `a` is `"x"`: `b` required.' in page
    assert "### thing {#def-thing}" in page
    assert "**Type:** integer, ≥ `1`" in page


def test_statement_parser_reads_ids_sections_and_text(tmp_path: Path) -> None:
    (tmp_path / "01-x.md").write_text(
        "# 1. X {#x}\n\n## 1.1 Part {#x-part}\n\n"
        '<a id="X-01"></a>**X-01** First [rule](#x) here,\ncontinued.\n\n'
        '- <a id="X-02"></a>**X-02** A list item.\n'
        '- <a id="X-03"></a>**X-03** Another.\n\n'
        '```\n<a id="X-09"></a>**X-09** inside a fence\n```\n',
        encoding="utf-8",
    )
    index = spec.parse(tmp_path)
    assert list(index.statements) == ["X-01", "X-02", "X-03"]
    first = index.statements["X-01"]
    assert (first.section_title, first.section_anchor) == ("1.1 Part", "x-part")
    assert first.text == "First rule here, continued."
    assert index.statements["X-02"].text == "A list item."
    linked = spec.add_permalinks('<a id="X-01"></a>**X-01** text')
    assert linked.startswith('<a id="X-01" class="dl-stmt" href="#X-01"')


def test_vector_rendering_links_ids_folds_long_values_and_reports_unknown_ids() -> None:
    links = vectors.Links(
        statement=lambda sid: "../../spec/09-monitor/#MON-07" if sid == "MON-07" else None,
        feature=lambda name: None,
    )
    vector = {
        "id": "demo/long-<value>",
        "description": "a <demo>",
        "spec": ["MON-07", "NOPE-01"],
        "tags": ["demo"],
        "features": ["bigint"],
        "option": True,
        "steps": [
            {"op": "recordAssistantText", "text": "x" * 2000, "expect": {"result": None}},
            {"op": "canonicalize", "value": {"a": 1}, "expect": {"error": "canonicalization"}},
            {"op": "resume", "expect": {"result": {"tools": {}}}},
        ],
    }
    rendered = vectors.generated_vector_html(vector, links)
    assert rendered.startswith('<details class="dl-vector" id="demo/long-&lt;value&gt;">')
    assert '<a class="dl-sid" href="../../spec/09-monitor/#MON-07">MON-07</a>' in rendered
    assert links.problems == ["vector demo/long-<value> cites unknown statement id NOPE-01"]
    assert '<details class="dl-long">' in rendered and "(2011 characters)" in rendered
    assert '<span class="dl-error">error</span> <code>canonicalization</code>' in rendered
    assert "<td>2</td><td><code>resume</code></td><td>—</td>" in rendered
    assert "a &lt;demo&gt;" in rendered
    assert vectors.shape_of("repeat/repeat-w2-579d3196c0") == "repeat-w2"


# -- the engine level (issue 15) ---------------------------------------------------------

ENGINE_VECTOR: dict[str, Any] = {
    "id": "engine-fixture/observe-then-block",
    "description": "three identical empty calls: observed, then blocked",
    "spec": ["ENG-38", "ENG-79"],
    "tags": ["brief"],
    "features": ["engine"],
    "scenario": {
        "id": "fixture",
        "doomLoop": True,
        "tools": [
            {"name": "list_tasks"},
            {"name": "deploy", "kind": "approval", "loopKey": ["target"]},
        ],
        "runs": [
            {
                "input": "go",
                "model": [
                    {
                        "output": [
                            {
                                "type": "function_call",
                                "name": "list_tasks",
                                "arguments": "{}",
                                "callId": f"call_{i}",
                            }
                        ]
                    }
                    for i in (1, 2, 3)
                ],
            },
            {"approve": ["call_9"], "reject": ["call_8"], "model": []},
        ],
    },
    "facts": [{"kind": "detections", "run": 0, "equals": [["observe", 2], ["block", 3]]}],
    "expect": {
        "result": {
            "scenario": "fixture",
            "runs": [
                {
                    "index": 0,
                    "dispatches": [{"index": i} for i in range(4)],
                    "end": {"status": "complete", "reason": "complete"},
                },
                {
                    "index": 1,
                    "dispatches": [{"index": 0}],
                    "end": {"status": "in_progress", "reason": "error"},
                },
            ],
        }
    },
}
BAD_ENGINE_VECTOR: dict[str, Any] = {
    "id": "engine-fixture/unknown-member",
    "description": "a scenario member the format does not define",
    "spec": ["ENG-23"],
    "tags": [],
    "features": ["engine"],
    "scenario": {"id": "bad", "runs": [], "colour": "blue"},
    "facts": [],
    "expect": {"error": "bad-scenario"},
}


def _links() -> vectors.Links:
    return vectors.Links(
        statement=lambda sid: f"../../spec/x/#{sid}" if sid.startswith("ENG-") else None,
        feature=lambda name: None,
    )


def test_engine_vector_shows_scenario_summary_facts_and_linked_statements() -> None:
    links = _links()
    rendered = vectors.vector_body_html(ENGINE_VECTOR, links)
    text = plain_text(rendered)
    assert links.problems == []
    for sid in ("ENG-38", "ENG-79"):
        assert f'<a class="dl-sid" href="../../spec/x/#{sid}">{sid}</a>' in rendered
    assert "list_tasks (executable)" in text
    assert 'deploy (approval, loopKey ["target"])' in text
    assert "Runs 2" in text and "Dispatches 5" in text  # 4 + 1, from the expected transcript
    rows = re.findall(r"<tr><td>(\d)</td><td>(.*?)</td><td>(\d+)</td><td>(.*?)</td>", rendered)
    assert [(n, scripted, sent) for n, _, scripted, sent in rows] == [
        ("0", "3", "4"),
        ("1", "0", "1"),
    ]
    assert "fresh turn" in rows[0][1]
    assert plain_text(rows[1][1]) == "decision resume: approves call_9; rejects call_8"
    assert '"equals":[["observe",2],["block",3]]' in text  # the fact, in compact JSON
    assert "steps" not in text.lower()  # an engine vector has no step table
    bad = vectors.vector_body_html(BAD_ENGINE_VECTOR, links)
    assert '<span class="dl-error">error</span> <code>bad-scenario</code>' in bad
    assert "Dispatches —" in plain_text(bad)


def test_engine_family_page_counts_runs_and_search_names_the_operation() -> None:
    engine_file = vectors.VectorFile(
        path="curated/engine-fixture.json",
        kind="curated",
        family="engine-fixture",
        description="fixture",
        generator=None,
        vectors=[ENGINE_VECTOR, BAD_ENGINE_VECTOR],
    )
    page = vectors.family_page(engine_file, lambda i: f"BODY{i}")
    assert "| Vector | Description | Runs |" in page
    assert "| [`engine-fixture/observe-then-block`](#engine-fixture/observe-then-block) " in page
    assert page.count(" | 2 |") == 1 and " | 0 |" in page
    assert vectors.operations_of(ENGINE_VECTOR) == ["runScenario"]
    monitor = {"steps": [{"op": "create"}, {"op": "getState"}, {"op": "create"}]}
    assert vectors.operations_of(monitor) == ["create", "getState"]


def _report(path: Path, name: str, declared: list[str], statuses: dict[str, str]) -> None:
    lines: list[dict[str, Any]] = [
        {
            "type": "header",
            "harness": {"protocol": 1, "features": declared, "implementation": {"name": name}},
        }
    ]
    for vid, status in statuses.items():
        family = vid.split("/", 1)[0]
        lines.append(
            {"type": "vector", "id": vid, "file": f"curated/{family}.json", "status": status}
        )
    lines.append({"type": "footer", "totals": {}, "aborted": None})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_matrix_engine_column_passes_fails_or_not_claimed(tmp_path: Path) -> None:
    monitor_vector = {"id": "plain/a", "spec": [], "features": [], "steps": []}
    featured = {"id": "plain/engine-by-feature", "spec": [], "features": ["engine"], "scenario": {}}
    catalog = vectors.Catalog(
        files=[
            vectors.VectorFile(
                "curated/plain.json", "curated", "plain", "", None, [monitor_vector, featured]
            ),
            vectors.VectorFile(
                "curated/engine-fixture.json",
                "curated",
                "engine-fixture",
                "",
                None,
                [ENGINE_VECTOR, BAD_ENGINE_VECTOR],
            ),
        ]
    )
    engine_ids = [ENGINE_VECTOR["id"], BAD_ENGINE_VECTOR["id"], "plain/engine-by-feature"]
    _report(
        tmp_path / "a.jsonl",
        "engine-passes",
        ["engine"],
        {"plain/a": "passed", **{v: "passed" for v in engine_ids}},
    )
    # a monitor failure does not make the engine column fail; an engine failure does
    _report(
        tmp_path / "b.jsonl",
        "engine-fails",
        ["engine"],
        {
            "plain/a": "failed",
            engine_ids[0]: "passed",
            engine_ids[1]: "failed",
            engine_ids[2]: "passed",
        },
    )
    _report(
        tmp_path / "c.jsonl",
        "monitor-only",
        [],
        {"plain/a": "passed", **{v: "skipped" for v in engine_ids}},
    )
    page = matrix.page(matrix.load_runs(tmp_path), catalog, "r", None)
    summary = page[page.index("## Implementations") : page.index("## By family")]
    lines = [line for line in summary.splitlines() if line.startswith("| ")]
    # the implementations are the columns (issue 33): the header names them, a row per fact
    names = [cell.split(" (")[0] for cell in _cells(lines[0])[1:]]
    engine_row = next(line for line in lines if line.startswith("| Engine level |"))
    rows = dict(zip(names, _cells(engine_row)[1:], strict=True))
    assert rows["engine-passes"] == "passes (3/3)"
    assert rows["engine-fails"] == "**fails** (1 of 3 failing)"
    assert rows["monitor-only"] == "not claimed (no `engine` feature)"
    assert "| Engine level |" in page


def test_engine_level_is_a_navigation_group_with_its_landing_page(built: dict[str, Any]) -> None:
    site: Path = built["site"]
    landing = page_html(site, "engine/")
    nav = landing[landing.index('class="md-nav md-nav--primary"') :]
    group = nav[nav.index("Engine level") :]
    pages = sorted(p.name[:-3] for p in (ROOT / "spec").glob("15-engine-*.md"))
    assert len(pages) == 8
    positions = [group.index(f"spec/{name}.html") for name in pages]
    assert positions == sorted(positions)
    # the group sits inside the specification, after §14 and before the other documents
    assert (
        nav.index("spec/14-open-questions.html")
        < nav.index("Engine level")
        < nav.index("spec/features.html")
    )


def test_engine_landing_page_renders_the_brief_example_from_the_reference(
    built: dict[str, Any],
) -> None:
    from doomloop_kit.engine import Scenario, run_scenario
    from doomloop_kit.generators.curated.engine.brief import SCENARIOS

    rendered = page_html(built["site"], "engine/")
    text = re.sub(r"\s+", " ", plain_text(rendered))
    assert "doomloop:engine-example" not in rendered
    entries: list[dict[str, Any]] = json.loads(json.dumps(SCENARIOS))
    entry = next(e for e in entries if e["scenario"]["id"] == "I-08")
    transcript: dict[str, Any] = json.loads(
        json.dumps(run_scenario(Scenario.from_json(entry["scenario"])).to_json())
    )
    (run,) = transcript["runs"]
    # the brief's facts for I-08: four dispatches, the last one carries the block message
    assert [d["responseId"] for d in run["dispatches"]] == ["resp_1", "resp_2", "resp_3", "resp_4"]
    assert "Doom loop suspected" in json.dumps(run["dispatches"][3]["request"]["input"][-1])
    for dispatch in run["dispatches"]:
        assert f"{dispatch['index']} {dispatch['kind']} {dispatch['responseId']}" in text
    assert [e["appliedAction"] for e in run["events"] if "appliedAction" in e] == [
        "observe",
        "block",
    ]
    # the whole transcript, as JSON, is on the page
    block = json.dumps(transcript, indent=2, ensure_ascii=False)
    assert all(re.sub(r"\s+", " ", line.strip()) in text for line in block.splitlines())
    # the catalog's vector of the same scenario, when the vector set has one, is linked
    for file_entry, data in _vector_files():
        for vector in data["vectors"]:
            if vector.get("scenario", {}).get("id") == "I-08":
                page = f"../vectors/{file_entry['kind']}/{file_entry['family']}.html"
                assert f'href="{page}#{html.escape(vector["id"])}"' in rendered
    statements = spec.parse(ROOT / "spec").statements
    for sid in entry["spec"]:
        page = posixpath.basename(statements[sid].src_uri)[: -len(".md")]
        assert f'href="../spec/{page}.html#{sid}"' in rendered, sid


def test_engine_vectors_in_a_strict_build(tmp_path: Path) -> None:
    """An engine vector file builds strictly: anchored, statements linked, matrix column."""
    vectors_dir = write_curated_file(
        tmp_path, "engine-fixture", "engine fixture", [ENGINE_VECTOR, BAD_ENGINE_VECTOR]
    )
    reports = tmp_path / "reports"
    reports.mkdir()
    _report(
        reports / "r.jsonl",
        "fixture-engine",
        ["engine"],
        {ENGINE_VECTOR["id"]: "passed", BAD_ENGINE_VECTOR["id"]: "passed"},
    )
    site = tmp_path / "site"
    build_site(site, reports, vectors_dir)
    url = "vectors/curated/engine-fixture.html"
    rendered = page_html(site, url)
    for vector in (ENGINE_VECTOR, BAD_ENGINE_VECTOR):
        assert f'id="{vector["id"]}"' in rendered
    for href in sorted(set(re.findall(r'class="dl-sid" href="([^"]+)"', rendered))):
        target, anchor = _resolve(url, href)
        assert f'id="{anchor}"' in page_html(site, target), href
    shown = set(re.findall(r'class="dl-sid" href="[^"]+">([A-Z0-9-]+)<', rendered))
    assert shown == {"ENG-38", "ENG-79", "ENG-23"}
    assert "passes (2/2)" in plain_text(page_html(site, "matrix/"))
    index = page_html(site, "vectors/")
    assert 'Engine vectors (<a href="curated/engine-fixture.html">engine-fixture</a>)' in index


def test_the_guides_runscenario_request_is_a_valid_request_and_scenario() -> None:
    from doomloop_kit.engine import Scenario, run_scenario

    guide = (ROOT / "docs" / "guide" / "write-a-harness.md").read_text(encoding="utf-8")
    lines = [line.strip() for line in guide.splitlines() if '"op": "runScenario"' in line]
    assert lines
    for line in lines:
        request = json.loads(line)
        transcript = run_scenario(Scenario.from_json(request["scenario"])).to_json()
        assert transcript["scenario"] == request["scenario"]["id"]


def test_the_engine_pages_python_example_prints_the_transcript_it_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    page = (ROOT / "docs" / "engine" / "index.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", page, re.S)
    exec(compile(code, "docs/engine/index.md", "exec"), {})
    printed = json.loads(capsys.readouterr().out)
    assert printed["scenario"] == "I-08"
    assert "<!-- doomloop:engine-example I-08 -->" in page  # the scenario the page renders
    assert [len(run["dispatches"]) for run in printed["runs"]] == [4]  # brief I-08: 4 dispatches
