"""Schema validation once per content hash: a cache of files already found valid.

Checking a vector file against ``vectors.schema.json`` is by far the slowest
part of loading it (spec/vectors.md#versioning names the schema as the
format's definition). A file whose bytes were once found valid stays valid
for the same schema, so the cache remembers, per sha256 of the file and of
the schema, that the file passed and what it holds (its ids and tags, which
the integrity check and the selection need without parsing the file again).

The cache lives in ``$DOOMLOOP_KIT_CACHE`` or else
``$XDG_CACHE_HOME/doomloop-kit`` (``~/.cache/doomloop-kit``). It is an
optimisation only: an unreadable, unwritable or corrupt cache means the file
is validated again, never that an unchecked file is trusted.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from . import writing

CACHE_ENV: Final = "DOOMLOOP_KIT_CACHE"


@dataclass(frozen=True)
class FileIndex:
    """What a valid vector file holds, as far as selection and integrity need."""

    kind: str
    family: str
    ids: tuple[str, ...]
    tags: frozenset[str]

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "family": self.family,
            "ids": list(self.ids),
            "tags": sorted(self.tags),
        }


def cache_dir() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "doomloop-kit"


def _entry(file_sha256: str, schema_sha256: str) -> Path:
    return cache_dir() / "validated" / f"{schema_sha256[:16]}-{file_sha256}.json"


def lookup(file_sha256: str, schema_sha256: str) -> FileIndex | None:
    """The index of a file validated before with this schema, or None."""
    try:
        data = json.loads(_entry(file_sha256, schema_sha256).read_text(encoding="utf-8"))
        kind, family, ids, tags = data["kind"], data["family"], data["ids"], data["tags"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (isinstance(ids, list) and isinstance(tags, list)):
        return None
    if not all(isinstance(item, str) for item in [kind, family, *ids, *tags]):
        return None
    return FileIndex(kind, family, tuple(ids), frozenset(tags))


def remember(file_sha256: str, schema_sha256: str, index: FileIndex) -> None:
    """Record a file found valid (best effort: a cache that cannot be written is skipped).
    Written by the kit's one writer (:mod:`.writing`): whole or not at all."""
    with contextlib.suppress(OSError):
        data = json.dumps(index.to_json()).encode("utf-8")
        writing.write_file(_entry(file_sha256, schema_sha256), data)
