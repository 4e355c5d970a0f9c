"""The versions the checkout declares for its packages, and the Go module tags.

A release version is written in three places that must agree with it: the
Python package (``pyproject.toml``), the TypeScript harness package
(``ports/typescript/package.json``) and, as git tags, the two Go modules
(``ports/go`` and ``ports/go/harness``: a module in a subfolder is tagged
``<folder>/v<version>``).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

PYPROJECT = "pyproject.toml"
PACKAGE_JSON = "ports/typescript/package.json"
GO_MODULES = ("ports/go", "ports/go/harness")


def declared(root: Path) -> dict[str, str]:
    """File -> the version it declares."""
    with (root / PYPROJECT).open("rb") as handle:
        python = str(tomllib.load(handle)["project"]["version"])
    typescript = str(json.loads((root / PACKAGE_JSON).read_text(encoding="utf-8"))["version"])
    return {PYPROJECT: python, PACKAGE_JSON: typescript}


_SEMVER = re.compile(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?")


def is_semantic_version(version: str) -> bool:
    return _SEMVER.fullmatch(version) is not None


def problems(root: Path, version: str) -> list[str]:
    found = [
        f"{path} declares version {declared_version}, not {version}"
        for path, declared_version in declared(root).items()
        if declared_version != version
    ]
    if not _SEMVER.fullmatch(version):
        found.append(f"release {version} is not a semantic version, which Go module tags need")
    return found


def go_tags(version: str) -> list[str]:
    """The tag of each Go module for ``version`` (``<folder>/v<version>``)."""
    return [f"{module}/v{version}" for module in GO_MODULES]
