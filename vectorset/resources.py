"""The data the installed kit ships, found through the import system.

The wheel and the sdist carry the committed vector set (``doomloop_kit.vectors``:
the manifest and every vector file) and the spec with its JSON Schemas
(``doomloop_kit.spec``: spec/) and the expected-failures profiles of known
implementations (``conformance/profiles/``, named ``profile:NAME`` on the
command line). They are located through
``importlib`` -- in a wheel under site-packages, in an editable install in the
checkout -- never by climbing folders from a source file.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
from importlib import metadata
from pathlib import Path
from typing import Final

DISTRIBUTION: Final = "doomloop-kit"
VECTORS_PACKAGE: Final = "doomloop_kit.vectors"
SPEC_PACKAGE: Final = "doomloop_kit.spec"
CONFORMANCE_PACKAGE: Final = "doomloop_kit.conformance"
PINS_PACKAGE: Final = "doomloop_kit.pins"
CONSTRAINTS: Final = "constraints.txt"
PROFILES_FOLDER: Final = "profiles"
PROFILE_PREFIX: Final = "profile:"


class MissingResource(LookupError):
    """The installed kit lacks data it should ship (a broken installation)."""


def data_dir(package: str, marker: str) -> Path:
    """The folder of a data package, identified by a file (or folder) it must hold."""
    spec = importlib.util.find_spec(package)
    locations = [] if spec is None else list(spec.submodule_search_locations or [])
    for location in locations:
        folder = Path(location)
        if (folder / marker).exists():
            return folder
    raise MissingResource(
        f"the installed doomloop-kit lacks {package} ({marker}); reinstall it, "
        "or give the location explicitly"
    )


def vectors_root() -> Path:
    """The vector set the kit ships (the folder holding its manifest.json)."""
    return data_dir(VECTORS_PACKAGE, "manifest.json")


def spec_dir() -> Path:
    """The specification the kit ships (spec/ of the source tree)."""
    return data_dir(SPEC_PACKAGE, "README.md")


def schema_dir() -> Path:
    """The JSON Schemas the kit ships (spec/schema/ of the source tree)."""
    return spec_dir() / "schema"


def constraints_file() -> Path:
    """The pip constraints file the kit ships: the exact versions it was tested with
    (constraints.txt at the top of the checkout, ``doomloop_kit/pins/`` in the wheel)."""
    return data_dir(PINS_PACKAGE, CONSTRAINTS) / CONSTRAINTS


def spec_version() -> str:
    """The version on the first page of the specification (``Version: **x**``)."""
    for line in (spec_dir() / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("Version:"):
            return line.removeprefix("Version:").strip().strip("*")
    raise MissingResource("the specification's README.md states no version")


def installed_vector_digests(root: Path) -> dict[str, str]:
    """The sha256 (hex) of each file of the vector set at ``root`` as the installed
    distribution's ``RECORD`` lists it, by path relative to ``root``.

    Empty unless ``root`` is the set a wheel installed: a checkout (an editable
    install lists none of its data files) or any other folder has no record.
    The record is written when the wheel is built, from the files the
    release's tests validated; a file still matching it is that file.
    """
    try:
        resolved = root.resolve()
    except OSError:
        return {}
    return dict(_record(str(resolved)))


@functools.cache
def _record(root: str) -> tuple[tuple[str, str], ...]:
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return ()
    prefix = ("doomloop_kit", "vectors")
    found = []
    for entry in distribution.files or []:
        if entry.parts[:2] != prefix or entry.hash is None or entry.hash.mode != "sha256":
            continue
        try:
            located = Path(str(entry.locate())).resolve()
        except OSError:
            continue
        if located.is_relative_to(root):
            value = entry.hash.value
            digest = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()
            found.append((located.relative_to(root).as_posix(), digest))
    return tuple(found)


def profiles_dir() -> Path:
    """The expected-failures profiles the kit ships (conformance/profiles/ of the source tree)."""
    return data_dir(CONFORMANCE_PACKAGE, PROFILES_FOLDER) / PROFILES_FOLDER


def profile_names() -> list[str]:
    """The names of the shipped profiles (``sdk-0.9.0`` for ``profiles/sdk-0.9.0.txt``)."""
    try:
        folder = profiles_dir()
    except MissingResource:
        return []
    return sorted(path.stem for path in folder.glob("*.txt"))


def profile_path(name: str) -> Path:
    """The file of the shipped profile ``name``; :class:`MissingResource` naming those there are."""
    if name and "/" not in name and name not in (".", ".."):
        path = profiles_dir() / f"{name}.txt"
        if path.is_file():
            return path
    known = ", ".join(profile_names()) or "none"
    raise MissingResource(f"the kit ships no profile {name!r} (shipped profiles: {known})")


def profile_or_path(path: Path) -> Path:
    """The file ``--expected-failures`` names: ``profile:NAME`` is a profile the kit
    ships (:func:`profile_path`, :class:`MissingResource` when there is none), anything
    else the path itself."""
    name = str(path)
    if not name.startswith(PROFILE_PREFIX):
        return path
    return profile_path(name.removeprefix(PROFILE_PREFIX))
