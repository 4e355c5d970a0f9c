"""Stable citations on the versioned site: two versions built with mike, and the old one kept.

On a temporary clone of this checkout the current specification is deployed to
the clone's local gh-pages branch (``python -m doomloop_release.site``, what
``make docs-deploy`` runs); then a fabricated next version, with one statement
withdrawn, is deployed beside it. The old version's folder must be byte for
byte what it was, every statement id and vector id must resolve in both
versions, the links of the old version's index of statement ids must still
reach their anchors, and the withdrawn statement must be marked, not removed.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from checkout_copy import ROOT, clone, commit_all, git, tools_env

sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from doomloop_docs import spec

_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'\bhref="([^"]+)"')


def _deploy(repository: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "doomloop_release.site", "--root", str(repository)],
        cwd=repository,
        env=tools_env(repository),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def _spec_version(repository: Path) -> str:
    text = (repository / "spec" / "README.md").read_text(encoding="utf-8")
    found = re.search(r"^Version: \*\*([^*]+)\*\*", text, re.M)
    assert found is not None
    return found.group(1)


def _page(folder: Path, src_uri: str) -> Path:
    """The HTML file of a Markdown page (spec/09-monitor.md -> .../spec/09-monitor.html)."""
    return folder / (src_uri.removesuffix(".md") + ".html")


@functools.cache
def _ids(path: Path) -> set[str]:
    return set(_ID.findall(path.read_text(encoding="utf-8")))


def _vector_ids(repository: Path) -> set[str]:
    return {
        str(vector["id"])
        for path in (repository / "vectors").glob("*/*.json")
        for vector in json.loads(path.read_bytes())["vectors"]
    }


@dataclass
class Versions:
    repository: Path
    pages: Path
    """The gh-pages branch, extracted."""
    old: str
    new: str
    old_index: spec.SpecIndex
    old_tree: str
    """The git tree of the old version's folder before the new version was deployed."""
    withdrawn: str
    vector_ids: set[str]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Versions:
    repository = clone(tmp_path_factory.mktemp("versions") / "kit")
    old_version = _spec_version(repository)
    old_index = spec.parse(repository / "spec")
    _deploy(repository)
    old_tree = git(repository, "rev-parse", f"gh-pages:{old_version}")

    # The next version: a new version line, and one statement withdrawn in place.
    new_version = f"{int(old_version.split('.')[0]) + 1}.0.0-draft"
    withdrawn = next(
        s
        for s in old_index.statements.values()
        if s.src_uri == "spec/09-monitor.md" and not s.withdrawn
    )
    readme = repository / "spec" / "README.md"
    readme.write_text(
        readme.read_text(encoding="utf-8").replace(
            f"Version: **{old_version}**", f"Version: **{new_version}**", 1
        ),
        encoding="utf-8",
    )
    page = repository / withdrawn.src_uri
    marker = f"**{withdrawn.id}** "
    text = page.read_text(encoding="utf-8")
    assert marker in text
    page.write_text(
        text.replace(marker, f"{marker}*Withdrawn in {new_version} (a test)*; ", 1),
        encoding="utf-8",
    )
    commit_all(repository, f"specification {new_version}: {withdrawn.id} withdrawn")
    _deploy(repository)

    pages = repository.parent / "pages"
    pages.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(repository), "archive", "--format=tar", "gh-pages"],
        capture_output=True,
        check=True,
    ).stdout
    archive_path = repository.parent / "pages.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(pages, filter="tar")
    return Versions(
        repository=repository,
        pages=pages,
        old=old_version,
        new=new_version,
        old_index=old_index,
        old_tree=old_tree,
        withdrawn=withdrawn.id,
        vector_ids=_vector_ids(repository),
    )


def test_both_versions_are_listed_and_latest_is_the_new_one(sites: Versions) -> None:
    pages = sites.pages
    versions = json.loads((pages / "versions.json").read_text(encoding="utf-8"))
    assert [(v["version"], v["aliases"]) for v in versions] == [
        (sites.new, ["latest"]),
        (sites.old, []),
    ]
    assert (pages / "latest").is_symlink()
    assert (pages / "latest").resolve() == (pages / sites.new).resolve()
    assert "latest/" in (pages / "index.html").read_text(encoding="utf-8")
    for version in (sites.old, sites.new):  # the version selector of mkdocs-material
        page = (pages / version / "index.html").read_text(encoding="utf-8")
        assert '"version": {"alias": true, "default": "latest", "provider": "mike"}' in page


def test_the_old_version_is_unchanged_by_the_new_one(sites: Versions) -> None:
    repository = sites.repository
    assert git(repository, "rev-parse", f"gh-pages:{sites.old}") == sites.old_tree


def test_every_statement_id_resolves_in_both_versions(sites: Versions) -> None:
    pages = sites.pages
    index = sites.old_index
    assert len(index.statements) > 100
    for version in (sites.old, sites.new, "latest"):
        for sid, statement in index.statements.items():
            assert sid in _ids(_page(pages / version, statement.src_uri)), (version, sid)


def test_every_vector_id_resolves_in_both_versions(sites: Versions) -> None:
    pages = sites.pages
    wanted = sites.vector_ids
    assert len(wanted) > 2000
    for version in (sites.old, sites.new):
        anchors = set().union(*(_ids(p) for p in (pages / version / "vectors").rglob("*.html")))
        assert wanted - anchors == set(), version


def test_the_withdrawn_statement_is_marked_not_removed(sites: Versions) -> None:
    pages = sites.pages
    sid = sites.withdrawn
    anchor = f'<a id="{sid}" class="dl-stmt" href="#{sid}"'
    new_page = (pages / sites.new / "spec" / "09-monitor.html").read_text()
    old_page = (pages / sites.old / "spec" / "09-monitor.html").read_text()
    assert f'{anchor} data-status="withdrawn"' in new_page
    assert f"Withdrawn in {sites.new}" in new_page
    assert anchor + " title=" in old_page  # the old version says what it said
    index_page = (pages / sites.new / "statement-ids.html").read_text()
    assert re.search(rf"#{sid}\">{sid}</a> <em>\(withdrawn\)</em>", index_page)


def test_the_old_versions_citation_links_still_resolve(sites: Versions) -> None:
    """Each link of the old index of statement ids reaches a page holding its anchor."""
    pages = sites.pages
    folder = pages / sites.old
    checked = 0
    for href in _HREF.findall((folder / "statement-ids.html").read_text(encoding="utf-8")):
        path, _, fragment = href.partition("#")
        if not fragment or not path or re.match(r"^[a-z]+:", path):
            continue
        target = (folder / posixpath.normpath(path)).resolve()
        target = target / "index.html" if target.is_dir() else target
        assert target.is_file(), href
        assert pages.resolve() / sites.old in target.parents, href
        assert fragment in _ids(target), href
        checked += 1
    assert checked >= len(sites.old_index.statements)
