"""MkDocs event handlers: put the sources of truth into the site at build time.

- ``spec/*.md`` become pages (``spec/...``) read in place, and each statement
  id (``<a id="MON-07"></a>**MON-07**``) becomes a permalink to itself;
- ``spec/schema/**/*.json`` are published as they are and rendered as
  reference pages (``schemas/...``);
- ``vectors/`` becomes the vector catalog (``vectors/...``);
- the runner's JSON-lines reports become the conformance matrix (``matrix.md``);
- the index of statement ids (``statement-ids.md``) is generated from the spec;
- the search index gets one entry per statement id and per generated vector, so
  that typing ``MON-07`` or a vector id finds it;
- a page's ``<!-- doomloop:engine-example ID -->`` becomes a brief scenario and
  the reference engine's transcript of it (:mod:`.engine`);
- the navigation is built from all of the above (:mod:`.nav`).

Paths: the repository root is the folder of mkdocs.yml. ``DOOMLOOP_DOCS_REPORTS``
names the reports folder (default ``.artifacts/reports``) and
``DOOMLOOP_DOCS_VECTORS`` the vectors folder (default ``vectors``), each relative
to the root unless absolute.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from . import engine, matrix, nav, schemas, spec, vectors
from .util import relative_url

log = get_plugin_logger("doomloop")

REPORTS_ENV = "DOOMLOOP_DOCS_REPORTS"
VECTORS_ENV = "DOOMLOOP_DOCS_VECTORS"
DEFAULT_REPORTS = ".artifacts/reports"

STATEMENT_IDS_PAGE = "statement-ids.md"
MATRIX_PAGE = "matrix.md"
VERSIONS_MARKER = "<!-- doomloop:versions -->"
_PLACEHOLDER = re.compile(r"<p>DLVECTORBODY(\d+|ALL)</p>")
_MD_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@dataclass
class BuildState:
    root: Path
    spec_index: spec.SpecIndex = field(default_factory=spec.SpecIndex)
    catalog: vectors.Catalog = field(default_factory=vectors.Catalog)
    schema_files: list[schemas.SchemaFile] = field(default_factory=list)
    vector_pages: dict[str, vectors.VectorFile] = field(default_factory=dict)
    spec_urls: dict[str, str] = field(default_factory=dict)
    """src_uri -> site URL of each spec page."""


STATE: BuildState | None = None


def _env_path(root: Path, name: str, default: str) -> Path:
    value = os.environ.get(name) or default
    path = Path(value)
    return path if path.is_absolute() else root / path


def _display_path(root: Path, path: Path) -> str:
    """A folder as the page may show it: relative to the repository, or its env var.

    Never an absolute path, so that the page does not depend on the machine."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return f"${REPORTS_ENV}"


def _state() -> BuildState:
    if STATE is None:  # pragma: no cover - MkDocs always calls on_config first
        raise RuntimeError("the doomloop hook was not configured")
    return STATE


# -- config ---------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global STATE
    root = Path(config.config_file_path).resolve().parent
    STATE = BuildState(root=root)
    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(root)]
    return config


# -- files ----------------------------------------------------------------------------


def _repo_file(state: BuildState, src_uri: str, config: MkDocsConfig) -> File:
    return File(
        src_uri,
        src_dir=str(state.root),
        dest_dir=config.site_dir,
        use_directory_urls=config.use_directory_urls,
    )


def _add(files: Files, file: File) -> None:
    existing = files.get_file_from_path(file.src_uri)
    if existing is not None:
        log.warning(f"{file.src_uri} exists twice (docs/ and the generated pages)")
        files.remove(existing)
    files.append(file)


def _linked_repo_files(state: BuildState) -> set[str]:
    """Non-Markdown repository files that spec pages link to outside spec/."""
    found: set[str] = set()
    for src_uri in state.spec_index.pages:
        text = (state.root / src_uri).read_text(encoding="utf-8")
        for target in _MD_LINK.findall(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
                continue
            path = target.split("#", 1)[0]
            if not path or path.endswith(".md"):
                continue
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path))
            if joined.startswith("../") or joined.startswith("spec/schema/"):
                continue
            if (state.root / joined).is_file():
                found.add(joined)
    return found


def on_files(files: Files, config: MkDocsConfig) -> Files:
    state = _state()
    root = state.root

    # The specification, read in place.
    state.spec_index = spec.parse(root / "spec")
    for duplicate in state.spec_index.duplicates:
        log.warning(f"statement id defined twice: {duplicate}")
    for src_uri in state.spec_index.pages:
        _add(files, _repo_file(state, src_uri, config))
    for src_uri in sorted(_linked_repo_files(state)):
        if files.get_file_from_path(src_uri) is None:
            _add(files, _repo_file(state, src_uri, config))

    # The schemas: raw files, and a reference page each.
    schema_dir = root / "spec" / "schema"
    state.schema_files, problems = schemas.load(schema_dir) if schema_dir.is_dir() else ([], [])
    for problem in problems:
        log.warning(problem)
    for schema_file in state.schema_files:
        _add(files, _repo_file(state, schema_file.json_uri, config))

    def statement_src(sid: str) -> str | None:
        statement = state.spec_index.statements.get(sid)
        return statement.src_uri if statement else None

    for schema_file in state.schema_files:
        renderer = schemas.Renderer(schema_file, state.schema_files, statement_src)
        _add(files, File.generated(config, schema_file.page_uri, content=renderer.page()))
    _add(
        files,
        File.generated(
            config, "schemas/index.md", content=schemas.index_page(state.schema_files, problems)
        ),
    )

    # The vector catalog.
    vectors_dir = _env_path(root, VECTORS_ENV, "vectors")
    state.catalog = vectors.load(vectors_dir)
    for problem in state.catalog.problems:
        log.warning(problem)
    state.vector_pages = {}
    for vector_file in state.catalog.files:
        if vector_file.page_uri in state.vector_pages:
            log.warning(f"two vector files for one family page: {vector_file.path}")
            continue
        state.vector_pages[vector_file.page_uri] = vector_file
        content = vectors.family_page(
            vector_file, lambda i: f"DLVECTORBODY{i if i >= 0 else 'ALL'}"
        )
        _add(files, File.generated(config, vector_file.page_uri, content=content))
    extra = []
    if "spec/vectors.md" in state.spec_index.pages:
        extra += ["The format of the files is specified in [Vector files](../spec/vectors.md).", ""]
    if any(f.rel == "vectors.schema.json" for f in state.schema_files):
        extra += ["Field reference: [vector file schema](../schemas/vectors.md).", ""]
    engine_files = [f for f in state.catalog.files if f.family.startswith("engine-")]
    if engine_files and files.get_file_from_path(nav.DOCS_PAGES["engine"]) is not None:
        families = ", ".join(
            f"[{f.family}]({posixpath.relpath(f.page_uri, 'vectors')})" for f in engine_files
        )
        extra += [
            f"Engine vectors ({families}) each send one scenario with `runScenario` and "
            "expect its transcript: see [the engine level](../engine/index.md).",
            "",
        ]
    _add(
        files,
        File.generated(
            config,
            "vectors/index.md",
            content=vectors.index_page(
                state.catalog, lambda f: posixpath.relpath(f.page_uri, "vectors"), extra
            ),
        ),
    )

    lookup = vectors.lookup_map(state.catalog)
    _add(files, File.generated(config, vectors.LOOKUP_FILE, content=lookup))

    # The index of statement ids and the matrix.
    _add(
        files,
        File.generated(
            config,
            STATEMENT_IDS_PAGE,
            content=spec.index_page(state.spec_index, state.catalog.citations()),
        ),
    )
    reports_dir = _env_path(root, REPORTS_ENV, DEFAULT_REPORTS)
    runs = matrix.load_runs(reports_dir)
    hint = _display_path(root, reports_dir)
    manifest = vectors_dir / "manifest.json"
    _add(
        files,
        File.generated(
            config, MATRIX_PAGE, content=matrix.page(runs, state.catalog, hint, manifest)
        ),
    )

    config["nav"] = nav.build(files, state)
    for src_uri in state.spec_index.pages:
        file = files.get_file_from_path(src_uri)
        if file is not None:
            state.spec_urls[src_uri] = file.url
    return files


# -- pages ----------------------------------------------------------------------------


def _versions_table(state: BuildState) -> str:
    readme = state.root / "spec" / "README.md"
    spec_version = "?"
    if readme.is_file():
        match = re.search(r"^Version:\s*\**([^*\s]+)", readme.read_text(encoding="utf-8"), re.M)
        if match:
            spec_version = match.group(1)
    manifest = state.catalog.manifest or {}
    try:
        from doomloop_kit.conformance import protocol as protocol_module

        protocol_version: Any = getattr(protocol_module, "PROTOCOL_VERSION", "?")
    except Exception:
        protocol_version = "?"
    rows = [
        ("Specification", f"`{spec_version}`", "`Version:` line of `spec/README.md`"),
        (
            "Vector file format",
            f"`{manifest.get('format', '?')}`",
            "`format` of `vectors/manifest.json`",
        ),
        (
            "Generator version",
            f"`{manifest.get('generatorVersion', '?')}`",
            "`generatorVersion` of `vectors/manifest.json`",
        ),
        ("Harness protocol", f"`{protocol_version}`", "`PROTOCOL_VERSION` of the runner"),
    ]
    out = ["| What | Current | Read from |", "| --- | --- | --- |"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(out)


def _schema_folder_links(state: BuildState, src_uri: str, markdown: str) -> str:
    """A link to a folder of schemas (``schema/protocol/``) goes to the schema reference."""

    def replace(match: re.Match[str]) -> str:
        target = match.group(1)
        path, _, _ = target.partition("#")
        if not path.endswith("/") or re.match(r"^[a-z][a-z0-9+.-]*:", path):
            return match.group(0)
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path))
        in_schemas = joined == "spec/schema" or joined.startswith("spec/schema/")
        if in_schemas and (state.root / joined).is_dir():
            index = posixpath.relpath("schemas/index.md", posixpath.dirname(src_uri))
            return match.group(0).replace(target, index, 1)
        return match.group(0)

    return _MD_LINK.sub(replace, markdown)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    state = _state()
    if page.file.src_uri in state.spec_index.pages:
        return spec.add_permalinks(_schema_folder_links(state, page.file.src_uri, markdown))
    if VERSIONS_MARKER in markdown:
        markdown = markdown.replace(VERSIONS_MARKER, _versions_table(state))
    if engine.MARKER.search(markdown):
        markdown = _engine_examples(state, page.file.src_uri, markdown)
    return markdown


def _engine_examples(state: BuildState, src_uri: str, markdown: str) -> str:
    def statement_src(sid: str) -> str | None:
        found = state.spec_index.statements.get(sid)
        return found.src_uri if found else None

    vectors_by_scenario = {
        str(v["scenario"].get("id")): (str(v.get("id")), f.page_uri)
        for f in state.catalog.files
        for v in f.vectors
        if vectors.is_engine(v) and isinstance(v["scenario"], dict)
    }

    try:
        return engine.fill(markdown, src_uri, statement_src, vectors_by_scenario.get)
    except engine.ExampleError as error:
        log.warning(f"{src_uri}: {error}")
        note = f'!!! failure "Example not generated"\n    {error}'
        return engine.MARKER.sub(lambda _: note, markdown)


def _links_for(state: BuildState, page: Page, files: Files) -> vectors.Links:
    page_url = page.url

    def statement(sid: str) -> str | None:
        found = state.spec_index.statements.get(sid)
        if found is None:
            return None
        return relative_url(f"{state.spec_urls[found.src_uri]}#{sid}", page_url)

    feature_anchors = state.spec_index.anchors.get("spec/features.md", set())
    features_raw = state.root / "spec" / "features.md"
    if features_raw.is_file():
        text = features_raw.read_text(encoding="utf-8")
        feature_anchors = feature_anchors | set(re.findall(r'id="([^"]+)"', text))
        feature_anchors |= set(re.findall(r"\{#([^}\s]+)\}", text))

    def feature(name: str) -> str | None:
        url = state.spec_urls.get("spec/features.md")
        if url is None:
            return None
        for anchor in (name, f"feature-{name}", f"f-{name}"):
            if anchor in feature_anchors:
                return relative_url(f"{url}#{anchor}", page_url)
        return relative_url(url, page_url)

    return vectors.Links(statement=statement, feature=feature)


_TABLE_CELL = re.compile(r"<t([dh])([^>]*)>(.*?)</t\1>", re.DOTALL)
_CODE_SPAN = re.compile(r"<code>(.*?)</code>", re.DOTALL)


def unescape_table_pipes(html: str) -> str:
    """A pipe in a code span of a table cell is written ``\\|`` in the Markdown (GitHub
    needs it to keep the cell whole); Python-Markdown keeps the backslash inside the
    code span, so the page showed ``\\|``: the pipe alone is shown."""

    def cell(match: re.Match[str]) -> str:
        body = _CODE_SPAN.sub(lambda code: code.group(0).replace("\\|", "|"), match.group(3))
        return f"<t{match.group(1)}{match.group(2)}>{body}</t{match.group(1)}>"

    return _TABLE_CELL.sub(cell, html) if "\\|" in html else html


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    html = unescape_table_pipes(html)
    state = _state()
    vector_file = state.vector_pages.get(page.file.src_uri)
    if vector_file is None:
        return html
    links = _links_for(state, page, files)

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ALL":
            return "\n".join(vectors.generated_vector_html(v, links) for v in vector_file.vectors)
        return vectors.vector_body_html(vector_file.vectors[int(key)], links)

    html = _PLACEHOLDER.sub(fill, html)
    for problem in sorted(set(links.problems)):
        log.warning(problem)
    return html


def _search_plugin(config: MkDocsConfig) -> Any:
    for plugin in config.plugins.values():
        if hasattr(plugin, "search_index") and hasattr(plugin.search_index, "entries"):
            return plugin
    return None


def on_page_context(
    context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Any
) -> dict[str, Any]:
    """Add direct search entries: one per statement id, one per generated vector."""
    state = _state()
    plugin = _search_plugin(config)
    if plugin is None or not getattr(plugin.config, "enabled", True):
        return context
    entries = plugin.search_index.entries
    src_uri = page.file.src_uri
    if src_uri in state.spec_index.pages:
        for statement in state.spec_index.statements.values():
            if statement.src_uri == src_uri:
                entries.append(
                    {
                        "location": f"{page.url}#{statement.id}",
                        "title": f"{statement.id} ({statement.section_title})",
                        "text": statement.text,
                        "boost": 2,
                    }
                )
    vector_file = state.vector_pages.get(src_uri)
    if vector_file is not None and vector_file.kind == "generated":
        # The page itself is excluded from the index (it is large), but the search
        # groups "page#anchor" entries under the entry whose location is "page": without
        # it the first vector entry stands in for the page and its link is /undefined.
        entries.append({"location": page.url, "title": page.title or page.url, "text": ""})
        for vector in vector_file.vectors:
            entries.append(
                {
                    "location": f"{page.url}#{vector.get('id')}",
                    "title": str(vector.get("id")),
                    "text": str(vector.get("description", ""))
                    + " spec "
                    + " ".join(vector.get("spec", []))
                    + " steps "
                    + " ".join(vectors.operations_of(vector)),
                }
            )
    return context


__all__ = [
    "on_config",
    "on_files",
    "on_page_content",
    "on_page_context",
    "on_page_markdown",
]
