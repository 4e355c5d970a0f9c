"""The release command (tools/doomloop_release): its checks, and a release of a clone.

The rules are checked on records built by hand (an independent statement of
each rule), then the command runs on temporary clones of this checkout: bad
input stops it with a message naming the offending id and nothing in dist/; a
good release writes every artefact into dist/VERSION/ and its record.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from checkout_copy import ROOT, clone, commit_all, git, tools_env

sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from doomloop_docs import spec
from doomloop_release import changelog, declared, ledger, record

VERSION = "0.1.0"


def _record(
    release: str, statements: dict[str, str], vectors: dict[str, str], gen: str = "1"
) -> record.Record:
    return record.Record(
        release=release,
        specification="1.0.0",
        protocol=1,
        vector_set=record.VectorSetVersion(1, gen),
        manifest_sha256="0" * 64,
        statements=statements,
        vectors=vectors,
    )


# -- the rules --------------------------------------------------------------------------


def test_changelog_entry_is_a_level_two_heading_with_text() -> None:
    text = "# Changelog\n\n## 1.2.0 — 2027-01-15\n\n- fixed\n\n## 1.1.0\n\n- older\n"
    assert changelog.entry(text, "1.2.0") == "- fixed"
    assert changelog.entry(text, "1.1.0") == "- older"
    assert changelog.entry(text, "1.2") is None  # 1.2 is not 1.2.0
    assert changelog.entry(text, "1.0.0") is None
    assert changelog.entry("## 2.0.0\n\n## 1.0.0\n- x\n", "2.0.0") == ""


def test_a_released_statement_id_cannot_go_or_come_back() -> None:
    before = _record("1.0.0", {"MON-01": "active", "MON-02": "withdrawn", "MON-03": "active"}, {})
    now = _record("1.1.0", {"MON-01": "withdrawn", "MON-02": "active", "MON-04": "active"}, {})
    found = ledger.problems(before, now, ["MON-04"])
    assert len(found) == 3
    assert "MON-04 is defined twice" in found[0]
    assert "MON-02 was withdrawn in release 1.0.0 and is reused" in found[1]
    assert "MON-03 of release 1.0.0 is gone" in found[2]
    # withdrawing a released statement is the allowed change
    assert (
        ledger.problems(
            before, _record("1.1.0", {**before.statements, "MON-01": "withdrawn"}, {}), []
        )
        == []
    )


def test_a_released_vector_changes_only_under_a_new_vector_set_version() -> None:
    before = _record("1.0.0", {}, {"a/one": "1" * 64, "a/two": "2" * 64})
    changed = _record("1.1.0", {}, {"a/one": "9" * 64, "a/three": "3" * 64})
    found = ledger.problems(before, changed, [])
    assert [p.split(" of release")[0] for p in found] == ["vector a/one", "vector a/two"]
    assert "a/one of release 1.0.0 changed" in found[0]
    assert "a/two of release 1.0.0 was removed" in found[1]
    bumped = _record("1.1.0", {}, changed.vectors, gen="2")
    assert ledger.problems(before, bumped, []) == []
    added_only = _record("1.1.0", {}, {**before.vectors, "a/three": "3" * 64})
    assert ledger.problems(before, added_only, []) == []


def test_vector_digest_sees_any_change_and_no_member_order() -> None:
    vector = {"id": "x", "steps": [{"op": "a", "expect": {"n": 1}}]}
    same = {"steps": [{"expect": {"n": 1}, "op": "a"}], "id": "x"}
    other = {"id": "x", "steps": [{"op": "a", "expect": {"n": 1.5}}]}
    assert record.vector_digest(vector) == record.vector_digest(same)
    assert record.vector_digest(vector) != record.vector_digest(other)


def test_previous_release_is_the_highest_version_below(tmp_path: Path) -> None:
    for version, spec_version in (("0.9.0", "a"), ("0.10.0", "b"), ("1.0.0", "c")):
        data = _record(version, {}, {})
        data.specification = spec_version
        (tmp_path / f"{version}.json").write_bytes(data.dumps())
    found = ledger.previous(tmp_path, "1.0.0")
    assert found is not None and found.release == "0.10.0"
    assert ledger.previous(tmp_path, "0.9.0") is None
    written = _record("1.0.0", {"A-01": "withdrawn"}, {"v/1": "1" * 64})
    (tmp_path / "1.0.0.json").write_bytes(written.dumps())
    assert record.load(tmp_path / "1.0.0.json") == written


def test_go_module_tags_name_each_module_folder() -> None:
    assert declared.go_tags("1.2.3") == ["ports/go/v1.2.3", "ports/go/harness/v1.2.3"]


def test_withdrawn_statements_are_read_and_marked(tmp_path: Path) -> None:
    (tmp_path / "01-x.md").write_text(
        "# X\n\n"
        '<a id="X-01"></a>**X-01** *Withdrawn in 2.0.0*; replaced by X-03.\n\n'
        '<a id="X-02"></a>**X-02** *(Withdrawn at the engine level)*.\n\n'
        '<a id="X-03"></a>**X-03** Says nothing Withdrawn about itself.\n',
        encoding="utf-8",
    )
    index = spec.parse(tmp_path)
    assert {sid: s.withdrawn for sid, s in index.statements.items()} == {
        "X-01": True,
        "X-02": True,
        "X-03": False,
    }
    html = spec.add_permalinks((tmp_path / "01-x.md").read_text(encoding="utf-8"))
    assert html.count('data-status="withdrawn"') == 2
    assert '<a id="X-03" class="dl-stmt" href="#X-03" title=' in html
    assert "[X-01](spec/01-x.md#X-01) *(withdrawn)*" in spec.index_page(index, {})


# -- the command on a clone ---------------------------------------------------------------


def _release(repository: Path, version: str = VERSION) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "doomloop_release", version, "--root", str(repository)],
        cwd=repository,
        env=tools_env(repository),
        capture_output=True,
        text=True,
        timeout=600,
    )


def _with_changelog_entry(repository: Path, version: str = VERSION) -> None:
    path = repository / "docs" / "changelog.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("## Unreleased", f"## {version}", 1), encoding="utf-8")
    commit_all(repository, f"changelog entry {version}")


def _record_release(repository: Path, version: str) -> None:
    """Record ``version`` as released, as the release command would have."""
    data, _ = record.of_checkout(repository, version)
    (repository / "releases").mkdir(exist_ok=True)
    (repository / "releases" / f"{version}.json").write_bytes(data.dumps())
    commit_all(repository, f"release record {version}")


def _nothing_built(repository: Path) -> None:
    assert not (repository / "dist" / VERSION).exists()
    assert not (repository / "releases" / f"{VERSION}.json").exists()
    assert list((repository / ".artifacts").glob("release-*")) == []


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    return clone(tmp_path / "kit")


def test_a_missing_changelog_entry_stops_the_release(repository: Path) -> None:
    done = _release(repository)
    assert done.returncode == 1
    assert f"docs/changelog.md has no entry for release {VERSION}" in done.stderr
    assert "nothing was built" in done.stderr
    _nothing_built(repository)


def test_a_version_that_is_not_semantic_is_refused_first(repository: Path) -> None:
    """Issue 23: the version is checked before anything else, as a usage error."""
    done = _release(repository, "not-a-version")
    assert done.returncode == 2
    assert "'not-a-version' is not a semantic version" in done.stderr
    _nothing_built(repository)


def test_make_release_checks_before_it_builds_the_reports() -> None:
    """`make release` runs the cheap checks (the version first) before the reports."""
    done = subprocess.run(
        ["make", "-n", "release", "VERSION=1.2.3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    check = next(i for i, line in enumerate(lines) if "doomloop_release 1.2.3 --check" in line)
    run = next(i for i, line in enumerate(lines) if "conformance run" in line)
    assert check < run


def test_a_changed_vector_under_the_same_vector_set_version_stops_it(repository: Path) -> None:
    _with_changelog_entry(repository)
    _record_release(repository, "0.0.1")
    path = repository / "vectors" / "curated" / "facts.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    vector_id = data["vectors"][3]["id"]
    data["vectors"][3]["description"] += " (edited after the release)"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    commit_all(repository, "edit a released vector")
    done = _release(repository)
    assert done.returncode == 1
    assert f"vector {vector_id} of release 0.0.1 changed under the same vector-set" in done.stderr
    assert "stopped: 1 problem(s)" in done.stderr, done.stderr
    _nothing_built(repository)


def test_a_reused_or_removed_statement_id_stops_it(repository: Path) -> None:
    _with_changelog_entry(repository)
    _record_release(repository, "0.0.1")
    index = spec.parse(repository / "spec")
    withdrawn = next(s for s in index.statements.values() if s.withdrawn)
    active = next(s for s in index.statements.values() if not s.withdrawn)
    for statement, old, new in (
        (withdrawn, f"**{withdrawn.id}** *", f"**{withdrawn.id}** Back in force. *"),
        (active, f'<a id="{active.id}"></a>**{active.id}**', "**Renumbered**"),
    ):
        path = repository / statement.src_uri
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    commit_all(repository, "reuse one id, drop another")
    done = _release(repository)
    assert done.returncode == 1
    assert (
        f"statement id {withdrawn.id} was withdrawn in release 0.0.1 and is reused" in done.stderr
    )
    assert f"statement id {active.id} of release 0.0.1 is gone" in done.stderr
    _nothing_built(repository)


def test_a_failed_build_leaves_dist_as_it_was(repository: Path) -> None:
    _with_changelog_entry(repository)
    package = repository / "ports" / "typescript" / "package.json"
    data = json.loads(package.read_text(encoding="utf-8"))
    data["scripts"]["prepack"] = "exit 3"
    package.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    commit_all(repository, "a package that cannot be packed")
    earlier = repository / "dist" / VERSION
    earlier.mkdir(parents=True)
    (earlier / "from-an-earlier-run.txt").write_text("kept\n", encoding="utf-8")
    done = _release(repository)
    assert done.returncode == 1
    assert "release: npm failed" in done.stderr
    assert "nothing was written to dist/" in done.stderr
    assert [p.name for p in earlier.iterdir()] == ["from-an-earlier-run.txt"]
    assert not (repository / "releases" / f"{VERSION}.json").exists()
    assert list((repository / ".artifacts").glob("release-*")) == []


def test_a_release_of_a_clone_builds_every_artefact(repository: Path) -> None:
    _with_changelog_entry(repository)
    head = git(repository, "rev-parse", "HEAD")
    spec_version = record.spec_version(repository)
    done = _release(repository)
    assert done.returncode == 0, done.stderr[-6000:]
    dist = repository / "dist" / VERSION
    names = sorted(p.name for p in dist.iterdir())
    assert names == sorted(
        [
            "SHA256SUMS",
            "constraints.txt",
            f"doomloop-kit-harness-{VERSION}.tgz",
            f"doomloop_kit-{VERSION}-py3-none-any.whl",
            f"doomloop_kit-{VERSION}.tar.gz",
            "go-module-tags.txt",
            "release.json",
            f"site-{spec_version}.tar.gz",
        ]
    )
    print(done.stdout)  # the artefacts and their sizes, for the record

    with zipfile.ZipFile(dist / f"doomloop_kit-{VERSION}-py3-none-any.whl") as wheel:
        assert "doomloop_kit/vectors/manifest.json" in wheel.namelist()
    with tarfile.open(dist / f"doomloop_kit-{VERSION}.tar.gz") as sdist:
        assert f"doomloop_kit-{VERSION}/constraints.txt" in sdist.getnames()
    pinned = (repository / "constraints.txt").read_bytes()
    assert (dist / "constraints.txt").read_bytes() == pinned  # beside the wheel: pip -c
    with zipfile.ZipFile(dist / f"doomloop_kit-{VERSION}-py3-none-any.whl") as wheel:
        assert wheel.read("doomloop_kit/pins/constraints.txt") == pinned
    with tarfile.open(dist / f"doomloop-kit-harness-{VERSION}.tgz") as npm:
        package = npm.extractfile("package/package.json")
        assert package is not None
        assert json.load(package)["name"] == "doomloop-kit-harness"
        assert "package/dist/harness.js" in npm.getnames()
    tags = (dist / "go-module-tags.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in tags if not line.startswith("#")] == [
        f"ports/go/v{VERSION} {head}",
        f"ports/go/harness/v{VERSION} {head}",
    ]
    with tarfile.open(dist / f"site-{spec_version}.tar.gz") as site:
        members = {m.name: m for m in site.getmembers()}
        assert members["latest"].issym() and members["latest"].linkname == spec_version
        versions_file = site.extractfile("versions.json")
        assert versions_file is not None
        versions = json.load(versions_file)
        assert versions == [{"version": spec_version, "title": spec_version, "aliases": ["latest"]}]
        page = site.extractfile(f"{spec_version}/spec/09-monitor.html")
        assert page is not None and b'<a id="MON-07" class="dl-stmt"' in page.read()

    recorded = (repository / "releases" / f"{VERSION}.json").read_bytes()
    assert recorded == (dist / "release.json").read_bytes()
    released = record.load(repository / "releases" / f"{VERSION}.json")
    assert released.specification == spec_version and len(released.vectors) > 2000
    sums = {
        name: digest
        for digest, name in (
            line.split("  ") for line in (dist / "SHA256SUMS").read_text().splitlines()
        )
    }
    assert set(sums) == set(names) - {"SHA256SUMS"}
    for name, digest in sums.items():
        assert hashlib.sha256((dist / name).read_bytes()).hexdigest() == digest, name
    # the checkout's own branches are untouched, nothing is left in the scratch folder
    assert git(repository, "branch", "--list", "gh-pages") == ""
    assert list((repository / ".artifacts").glob("release-*")) == []
