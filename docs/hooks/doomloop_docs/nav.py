"""The site navigation, built from the files present at build time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mkdocs.structure.files import Files

if TYPE_CHECKING:
    from .site import BuildState

NavItem = Any

DOCS_PAGES = {
    "home": "index.md",
    "harness": "guide/write-a-harness.md",
    "replay": "guide/replay.md",
    "calibration": "guide/calibration.md",
    "ci": "guide/ci.md",
    "versioning": "versioning.md",
    "changelog": "changelog.md",
    "benchmarks": "benchmarks.md",
    "mutation": "mutation.md",
    "engine": "engine/index.md",
}

ENGINE_PREFIX = "spec/15-engine-"
"""The pages of the engine level (spec §15): one navigation group, after their landing page."""


def _present(files: Files, src_uri: str) -> bool:
    return files.get_file_from_path(src_uri) is not None


def spec_group(files: Files, pages: list[str]) -> list[NavItem]:
    """The specification pages in reading order, the engine level (ENG-14) as a group
    of its own where its first page stands, opened by the landing page when there is one."""
    out: list[NavItem] = []
    engine: list[NavItem] = []
    for src_uri in pages:
        if not src_uri.startswith(ENGINE_PREFIX):
            out.append(src_uri)
            continue
        if not engine:
            if _present(files, DOCS_PAGES["engine"]):
                engine.append(DOCS_PAGES["engine"])
            out.append({"Engine level": engine})
        engine.append(src_uri)
    return out


def build(files: Files, state: BuildState) -> list[NavItem]:
    from .site import MATRIX_PAGE, STATEMENT_IDS_PAGE

    spec_pages = spec_group(files, state.spec_index.pages)
    spec_pages.append({"Index of statement ids": STATEMENT_IDS_PAGE})

    schema_pages: list[NavItem] = ["schemas/index.md"]
    folders: dict[str, list[NavItem]] = {}
    for f in state.schema_files:
        folder, _, name = f.rel.rpartition("/")
        if folder:
            folders.setdefault(folder, []).append({name: f.page_uri})
        else:
            schema_pages.append({name: f.page_uri})
    schema_pages += [{f"{folder}/": pages} for folder, pages in sorted(folders.items())]

    vector_pages: list[NavItem] = ["vectors/index.md"]
    for kind in ("curated", "generated"):
        family_pages = [{f.family: f.page_uri} for f in state.catalog.files if f.kind == kind]
        if family_pages:
            vector_pages.append({kind.capitalize(): family_pages})

    conformance: list[NavItem] = [{"Conformance matrix": MATRIX_PAGE}]
    conformance += [
        {title: DOCS_PAGES[key]}
        for key, title in (
            ("harness", "Write a harness"),
            ("replay", "Replay an agent log"),
            ("calibration", "Calibrate a ladder on real runs"),
            ("ci", "Run it in your CI"),
            ("mutation", "Mutation score of the vectors"),
            ("benchmarks", "Benchmarks"),
        )
        if _present(files, DOCS_PAGES[key])
    ]

    project: list[NavItem] = [
        {title: DOCS_PAGES[key]}
        for key, title in (("versioning", "Versioning policy"), ("changelog", "Changelog"))
        if _present(files, DOCS_PAGES[key])
    ]

    out: list[NavItem] = []
    if _present(files, DOCS_PAGES["home"]):
        out.append({"Home": DOCS_PAGES["home"]})
    out += [
        {"Specification": spec_pages},
        {"Schemas": schema_pages},
        {"Vector catalog": vector_pages},
        {"Conformance": conformance},
    ]
    if project:
        out.append({"Project": project})
    return out
