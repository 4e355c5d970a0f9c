"""The changelog entry of a release: a ``## <version>`` section of docs/changelog.md.

The heading may carry more after the version (``## 1.2.0 — 2027-01-15``); the
entry must say something (at least one non-blank line before the next
level-2 heading).
"""

from __future__ import annotations

import re
from pathlib import Path

CHANGELOG = "docs/changelog.md"
_HEADING = re.compile(r"^## (?P<title>.*?)\s*$")


def entry(text: str, version: str) -> str | None:
    """The body of the entry for ``version`` (None: no such heading)."""
    body: list[str] | None = None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            if body is not None:
                break
            title = heading.group("title")
            if title == version or re.match(rf"{re.escape(version)}\b(?![.-])", title):
                body = []
            continue
        if body is not None:
            body.append(line)
    return None if body is None else "\n".join(body).strip()


def problems(root: Path, version: str) -> list[str]:
    path = root / CHANGELOG
    found = entry(path.read_text(encoding="utf-8"), version) if path.is_file() else None
    if found is None:
        return [f"{CHANGELOG} has no entry for release {version} (a `## {version}` section)"]
    if not found:
        return [f"the entry for release {version} in {CHANGELOG} is empty"]
    return []
