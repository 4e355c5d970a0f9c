"""The data the installed kit ships, found through the import system.

The wheel and the sdist carry the committed vector set (``doomloop_kit.vectors``:
the manifest and every vector file) and the spec with its JSON Schemas
(``doomloop_kit.spec``: spec/). They are located through
``importlib`` -- in a wheel under site-packages, in an editable install in the
checkout -- never by climbing folders from a source file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Final

VECTORS_PACKAGE: Final = "doomloop_kit.vectors"
SPEC_PACKAGE: Final = "doomloop_kit.spec"


class MissingResource(LookupError):
    """The installed kit lacks data it should ship (a broken installation)."""


def data_dir(package: str, marker: str) -> Path:
    """The folder of a data package, identified by a file it must hold."""
    spec = importlib.util.find_spec(package)
    locations = [] if spec is None else list(spec.submodule_search_locations or [])
    for location in locations:
        folder = Path(location)
        if (folder / marker).is_file():
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


def spec_version() -> str:
    """The version on the first page of the specification (``Version: **x**``)."""
    for line in (spec_dir() / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("Version:"):
            return line.removeprefix("Version:").strip().strip("*")
    raise MissingResource("the specification's README.md states no version")
