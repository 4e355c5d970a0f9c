"""The kit as a port author uses it: a wheel installed into a fresh virtual environment.

The wheel is built from this checkout, installed (with the pinned versions of
constraints.txt) into a new virtual environment in a temporary folder outside
the checkout, and run from there: ``--version``, a conformance run against
the in-tree Go harness (the installed Python reference harness when the Go
harness is not built), and the errors for a vector root that is not a set.
The sdist is checked to carry the same data.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GO_HARNESS = REPO / "ports" / "go" / "bin" / "doomloop-harness"
TS_PACKAGE = REPO / "ports" / "typescript"
DATA = (
    "vectors/manifest.json",
    "vectors/curated/facts.json",
    "spec/schema/vectors.schema.json",
    "spec/schema/engine/scenario.schema.json",
    "spec/schema/engine/transcript.schema.json",
)


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="doomloop-installed-") as folder:
        path = Path(folder).resolve()
        assert REPO not in path.parents
        yield path


@pytest.fixture(scope="module")
def wheel(outside: Path) -> Path:
    """The wheel, built as the release builds it (``python -m build``); the build warns of
    nothing (issue 33: it printed a deprecation and a warning per data folder)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(outside), "."],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    warnings = [line for line in (done.stdout + done.stderr).splitlines() if "warn" in line.lower()]
    assert warnings == []
    (built,) = outside.glob("doomloop_kit-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(outside: Path, wheel: Path) -> Path:
    """The bin folder of a fresh virtual environment holding only the wheel and its deps."""
    environment = outside / "venv"
    venv.create(environment, with_pip=True)
    subprocess.run(
        [
            str(environment / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-c",
            str(REPO / "constraints.txt"),
            str(wheel),
        ],
        cwd=outside,
        env=_clean_env(outside),
        check=True,
    )
    return environment / "bin"


def _clean_env(outside: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["DOOMLOOP_KIT_CACHE"] = str(outside / "cache")
    return env


def _kit(bin_dir: Path, outside: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "doomloop-kit"), *args],
        cwd=outside,
        env=_clean_env(outside),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_wheel_ships_the_vectors_and_schemas(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for path in DATA:
        assert f"doomloop_kit/{path}" in names, path
    manifest_files = [n for n in names if n.startswith("doomloop_kit/vectors/")]
    assert len(manifest_files) > 20


def test_the_sdist_ships_the_vectors_and_schemas(outside: Path) -> None:
    target = outside / "sdist"
    target.mkdir()
    subprocess.run(  # as the release builds it (an isolated build: setuptools >= 77)
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(target), "."],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    (sdist,) = target.glob("doomloop*kit-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for path in (*DATA, "constraints.txt"):
        assert path in names, path


def test_the_first_run_of_the_home_page_works_from_the_installed_kit(
    installed: Path, outside: Path
) -> None:
    """docs/index.md, "Install and first run", after the install the fixture did (the wheel
    with -c constraints.txt, in a venv outside the checkout)."""
    done = _kit(installed, outside, "list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].endswith(" families")
    port = f"{installed / 'python'} -m doomloop_kit.conformance.harnesses.python_reference"
    run = ["conformance", "run", "--family", "facts", "--report-json", "first-run.jsonl"]
    done = _kit(installed, outside, *run, "--port", port)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    done = _kit(installed, outside, "report", "summary", "first-run.jsonl")
    assert done.returncode == 0 and "- **Run**: complete; exit status 0" in done.stdout
    done = _kit(installed, outside, "--help")
    assert done.returncode == 0 and "examples:" in done.stdout


def test_the_installed_kit_prints_its_pinned_versions(installed: Path, outside: Path) -> None:
    done = _kit(installed, outside, "constraints")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (REPO / "constraints.txt").read_text(encoding="utf-8")
    path = _kit(installed, outside, "constraints", "--path").stdout.strip()
    assert "site-packages/doomloop_kit/pins/constraints.txt" in path


def test_version_names_kit_spec_and_vector_set(installed: Path, outside: Path) -> None:
    done = _kit(installed, outside, "--version")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("doomloop-kit ")
    assert lines[1].startswith("specification ")
    assert "vector set: format 1" in lines[3] and "manifest sha256 " in lines[3]


@pytest.fixture(scope="module")
def ts_harness(outside: Path) -> Path:
    """The TypeScript harness bin, from its ``npm pack`` tarball, outside the checkout."""
    packed = outside / "npm-pack"
    packed.mkdir()
    subprocess.run(
        ["npm", "pack", "--silent", "--ignore-scripts", "--pack-destination", str(packed)],
        cwd=TS_PACKAGE,
        check=True,
        capture_output=True,
    )
    (tarball,) = packed.glob("doomloop-kit-harness-*.tgz")
    project = outside / "ts-port"
    project.mkdir()
    (project / "package.json").write_text('{"name": "my-port", "private": true}\n')
    subprocess.run(
        ["npm", "install", "--silent", "--no-audit", "--no-fund", "--offline", str(tarball)],
        cwd=project,
        check=True,
        capture_output=True,
    )
    return project / "node_modules" / ".bin" / "doomloop-kit-harness"


def _run_conformance(installed: Path, outside: Path, port: str, report: str) -> str:
    done = _kit(
        installed,
        outside,
        "conformance",
        "run",
        "--progress",
        "lines",
        "--port",
        port,
        "--report-json",
        report,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    last = done.stdout.rstrip().splitlines()[-1]
    assert " passed, 0 failed, " in last and not last.startswith("0 "), last
    header = (outside / report).read_text(encoding="utf-8").splitlines()[0]
    assert "site-packages/doomloop_kit/vectors/manifest.json" in header
    return last


def test_conformance_runs_from_the_installed_wheel_against_go(
    installed: Path, outside: Path
) -> None:
    assert GO_HARNESS.is_file(), "build the Go harness first (make ports)"
    _run_conformance(installed, outside, str(GO_HARNESS), "go.jsonl")


def test_conformance_runs_from_the_installed_wheel_against_the_npm_tarball(
    installed: Path, outside: Path, ts_harness: Path
) -> None:
    assert REPO not in ts_harness.resolve().parents
    last = _run_conformance(installed, outside, str(ts_harness), "typescript.jsonl")
    footer = json.loads((outside / "typescript.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    missing = footer["missingFeatures"]
    # json-own-members once: it declares the JS features; and the engine level
    # (feature `engine`) until the TypeScript harness declares it
    assert missing.pop("json-own-members") == 1 and set(missing) <= {"engine"}, last
    assert last.endswith(f" {1 + missing.get('engine', 0)} skipped"), last


def test_bad_vector_roots_name_what_was_found_and_what_is_supported(
    installed: Path, outside: Path
) -> None:
    empty = outside / "not-a-set"
    empty.mkdir(exist_ok=True)
    done = _kit(installed, outside, "conformance", "run", "--port", "true", "--vectors", str(empty))
    assert done.returncode == 2
    assert "has no manifest.json" in done.stdout and "format 1" in done.stdout
    newer = outside / "newer"
    newer.mkdir(exist_ok=True)
    (newer / "manifest.json").write_text('{"format": 2, "files": [], "vectors": 0}')
    done = _kit(installed, outside, "conformance", "run", "--port", "true", "--vectors", str(newer))
    assert done.returncode == 2
    assert "format 2; this runner reads format 1 only" in done.stdout
    assert "newer than the runner" in done.stdout


def test_the_installed_kit_regenerates_its_own_vectors_byte_for_byte(
    installed: Path, outside: Path
) -> None:
    """Installed in site-packages, no module of the kit is "local" to
    Hypothesis: the draws must not depend on that (generators/reproducible.py).

    The installed kit draws a few transcripts of every family into a folder, and this
    process (the checkout, where the modules are local) draws the same counts: the bytes
    are the same. A few draws show a dependence as well as the whole set does, which
    test_generator_regenerate.py regenerates from the checkout (a second whole
    regeneration here took about two minutes of make test)."""
    from doomloop_kit.generators import regenerate

    counts = {family: 4 for family in regenerate.family_counts()}
    root = outside / "regenerated"
    options = [arg for family, n in counts.items() for arg in ("--count", f"{family}={n}")]
    done = _kit(installed, outside, "vectors", "regenerate", "--root", str(root), *options)
    assert done.returncode == 0, done.stdout + done.stderr
    expected = regenerate.build_all(counts)
    written = {
        path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*.json")
    }
    assert written.keys() == expected.keys()
    for name, data in expected.items():
        assert written[name] == data, name


def test_regenerate_refuses_to_rewrite_the_installed_package(
    installed: Path, outside: Path
) -> None:
    """Issue 23: it silently rewrote site-packages (the wheel's RECORD then lied)."""
    manifest = _installed_vectors(installed, outside) / "manifest.json"
    before = manifest.read_bytes()
    done = _kit(installed, outside, "vectors", "regenerate")
    assert done.returncode == 2
    assert "the vector set of the installed doomloop-kit package" in done.stderr
    assert "--root DIR" in done.stderr
    assert manifest.read_bytes() == before


def test_a_shipped_profile_is_named_from_the_installed_kit(installed: Path, outside: Path) -> None:
    assert GO_HARNESS.is_file(), "build the Go harness first (make ports)"
    run = ["conformance", "run", "--port", str(GO_HARNESS), "--family", "facts"]
    done = _kit(installed, outside, *run, "--expected-failures", "profile:sdk-0.9.0")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    done = _kit(installed, outside, *run, "--expected-failures", "profile:nope")
    assert done.returncode == 2
    assert "shipped profiles: sdk-0.9.0" in done.stdout


def _installed_vectors(installed: Path, outside: Path) -> Path:
    probe = "from doomloop_kit.vectorset import resources; print(resources.vectors_root())"
    done = subprocess.run(
        [str(installed / "python"), "-c", probe],
        cwd=outside,
        env=_clean_env(outside),
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(done.stdout.strip())


def test_an_edited_and_resealed_installed_file_is_schema_checked(
    installed: Path, outside: Path
) -> None:
    """Issue 23: the manifest vouched for the installed files, so an edited file whose
    manifest entry was re-sealed was never checked, then cached as valid, and a copy
    of the tree given with --vectors passed too. Only the wheel's RECORD vouches now."""
    assert GO_HARNESS.is_file(), "build the Go harness first (make ports)"
    root = _installed_vectors(installed, outside)
    path, manifest = root / "curated" / "facts.json", root / "manifest.json"
    saved = path.read_bytes(), manifest.read_bytes()
    try:
        data = json.loads(saved[0])
        data["vectors"][0]["id"] = "facts/Not An Id"
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        entries = json.loads(saved[1])
        for entry in entries["files"]:
            if entry["path"] == "curated/facts.json":
                entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        manifest.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
        copy = outside / "resealed-copy"
        shutil.copytree(root, copy, dirs_exist_ok=True)
        run = ["conformance", "run", "--port", str(GO_HARNESS), "--family", "facts"]
        for where in ([], ["--vectors", str(copy)]):
            done = _kit(installed, outside, *run, *where)
            assert done.returncode == 2, done.stdout[-2000:]
            assert "facts.json: $.vectors[0].id" in done.stdout
    finally:
        path.write_bytes(saved[0])
        manifest.write_bytes(saved[1])
