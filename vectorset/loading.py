"""Opening a vector set: integrity first, then only the files a selection needs.

:func:`open_vector_set` reads a vector root (its ``manifest.json`` and every
file the manifest lists) or an explicit list of vector files, and checks:

* the manifest's format version is the one this code reads (always fatal);
* each file is valid against the schema -- once per content hash
  (:mod:`.cache`), whatever the manifest says -- and follows the rules a
  schema cannot say. The only files not checked are those of the set a wheel
  installed whose bytes are still the ones its ``RECORD`` lists
  (:func:`~.resources.installed_vector_digests`): validated before release,
  and never entered in the cache, which holds validated files only;
* integrity (spec/vectors.md#manifest): each file's sha256, kind, family and
  vector count are the manifest's, the total is the sum, no file is empty
  and no id appears twice across files.

An integrity problem raises :class:`IntegrityError` unless ``verify`` is
False; then the problems are kept in :attr:`VectorSet.problems` (and the
runner records them in its report header). :meth:`VectorSet.select` parses
only the files that can hold a selected vector.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Final

from doomloop_kit.jsvalue import jsjson

from . import cache, files, reading, resources
from .files import (
    FORMAT_VERSION,
    MANIFEST_NAME,
    Vector,
    VectorFile,
    VectorFormatError,
    load_manifest_data,
    parse_json_bytes,
    schema_sha256,
)

_GLOB_CHARS: Final = frozenset("*?[")


class VectorSetError(Exception):
    """A vector set that cannot be used: unreadable, malformed, another format."""


class IntegrityError(VectorSetError):
    """The files are not the ones the manifest describes (``--no-verify`` tolerates it)."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__(
            "the vector set fails its integrity check:\n  "
            + "\n  ".join(problems)
            + "\n(regenerate it, or pass --no-verify to run it anyway)"
        )
        self.problems = tuple(problems)


@dataclass(frozen=True)
class Selection:
    """Which vectors to run: every criterion given must hold (each is an any-of list)."""

    families: tuple[str, ...] = ()
    """Family names, or globs over them (``engine-*``: every engine family)."""
    tags: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    """Over vector ids, case-sensitive: a substring (``fanout``), or a glob of the whole id
    when it holds ``*``, ``?`` or ``[`` (``facts/fanout-*``)."""

    def _family(self, family: str) -> bool:
        return any(fnmatch.fnmatchcase(family, wanted) for wanted in self.families)

    def wants(self, vector: Vector) -> bool:
        if self.families and not self._family(vector.family):
            return False
        if self.tags and not any(tag in vector.tags for tag in self.tags):
            return False
        return not self.patterns or any(_id_matches(vector.id, p) for p in self.patterns)

    def may_hold(self, index: cache.FileIndex) -> bool:
        """False when no vector of a file with this index can be selected."""
        if self.families and not self._family(index.family):
            return False
        if self.tags and not index.tags.intersection(self.tags):
            return False
        return not self.patterns or any(
            _id_matches(vector_id, pattern)
            for pattern in self.patterns
            for vector_id in index.ids  # the index holds the ids: the file stays unparsed
        )

    def to_json(self) -> dict[str, list[str]]:
        return {
            "families": list(self.families),
            "tags": list(self.tags),
            "patterns": list(self.patterns),
        }


def _id_matches(vector_id: str, pattern: str) -> bool:
    """``-k``: a glob matches the whole id, anything else is a substring of it."""
    if _GLOB_CHARS.intersection(pattern):
        return fnmatch.fnmatchcase(vector_id, pattern)
    return pattern in vector_id


@dataclass(frozen=True)
class SourceFile:
    """One vector file of the set: its label (manifest path), bytes and index."""

    label: str
    path: Path
    raw: bytes
    sha256: str
    index: cache.FileIndex

    def load(self) -> VectorFile:
        # valid (checked now or cached), so the plain decoder is enough: no duplicate
        # members, nothing deeper than jsjson.MAX_DEPTH, no NaN, no integer too long
        jsjson.deep_enough()
        return VectorFile.from_json(json.loads(self.raw), self.path)


@dataclass(frozen=True)
class VectorSet:
    files: tuple[SourceFile, ...]
    description: dict[str, Any]
    """Where the vectors came from, for the report header."""
    problems: tuple[str, ...] = ()
    """Integrity problems tolerated because verification was turned off."""

    @property
    def ids(self) -> list[str]:
        return [vector_id for source in self.files for vector_id in source.index.ids]

    def select(self, selection: Selection) -> list[tuple[str, Vector]]:
        """(file label, vector) of every selected vector, in file then vector order."""
        chosen: list[tuple[str, Vector]] = []
        with _collector_paused():
            for source in self.files:
                if selection.may_hold(source.index):
                    chosen.extend(
                        (source.label, vector)
                        for vector in source.load().vectors
                        if selection.wants(vector)
                    )
        return chosen


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection meanwhile: parsing vector files builds hundreds of
    thousands of containers and no reference cycle, which the collector would walk
    again and again for nothing (a tenth of the CPU time of a full run)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read(path: Path) -> bytes:
    """A vector file's or manifest's bytes: a regular file (a FIFO would hang the run, a
    device never end), at most :data:`~.reading.MAX_INPUT_BYTES`."""
    try:
        return reading.read_bytes(path, regular=True)
    except reading.InputError as error:
        raise VectorSetError(str(error)) from error


def _source(label: str, path: Path, vouched: str | None = None) -> SourceFile:
    """Read one file and make sure it is valid (from the cache when it was seen before).

    ``vouched`` is the sha256 the installed wheel's ``RECORD`` gives this file:
    bytes with that digest are the released ones, schema-checked before the
    release, so they need only be parsed -- and they are not entered in the
    cache, so a copy of them elsewhere is checked like any other file.
    """
    raw = _read(path)
    digest = hashlib.sha256(raw).hexdigest()
    schema = schema_sha256()
    index = cache.lookup(digest, schema)
    if index is None:
        try:
            data = parse_json_bytes(path, raw)
            if digest != vouched:
                files.validate_vector_file_data(data, path)
        except VectorFormatError as error:
            raise VectorSetError(str(error)) from error
        index = cache.FileIndex(
            data["kind"],
            data["family"],
            tuple(vector["id"] for vector in data["vectors"]),
            frozenset(tag for vector in data["vectors"] for tag in vector["tags"]),
        )
        if digest != vouched:
            cache.remember(digest, schema, index)
    return SourceFile(label, path, raw, digest, index)


def _duplicates(files: Sequence[SourceFile]) -> list[str]:
    owners: dict[str, str] = {}
    problems = []
    for source in files:
        for vector_id in source.index.ids:
            if vector_id in owners:
                problems.append(
                    f"vector id {vector_id!r} is in {owners[vector_id]} and {source.label}"
                )
            else:
                owners[vector_id] = source.label
    return problems


def _read_manifest(root: Path) -> tuple[dict[str, Any], bytes]:
    path = root / MANIFEST_NAME
    try:
        path.stat()
    except OSError as error:  # a loop of links, say, is not a missing manifest
        if not isinstance(error, FileNotFoundError | NotADirectoryError):
            raise VectorSetError(f"{path}: cannot read: {error.strerror or error}") from error
    if not path.is_file():
        raise VectorSetError(
            f"{root} is not a vector set: it has no {MANIFEST_NAME} "
            f"(this runner reads vector sets of format {FORMAT_VERSION})"
        )
    raw = _read(path)
    try:
        data = parse_json_bytes(path, raw)
    except VectorFormatError as error:
        raise VectorSetError(str(error)) from error
    found = data.get("format") if isinstance(data, dict) else None
    if found != FORMAT_VERSION:
        newer = isinstance(found, int) and not isinstance(found, bool) and found > FORMAT_VERSION
        raise VectorSetError(
            f"{path}: the vector set is format {json.dumps(found)}; this runner reads format "
            f"{FORMAT_VERSION} only"
            + (" (the set is newer than the runner: upgrade doomloop-kit)" if newer else "")
        )
    digest, schema = hashlib.sha256(raw).hexdigest(), schema_sha256()
    if cache.lookup(digest, schema) is not None:
        return data, raw
    try:
        manifest = load_manifest_data(path, raw)
    except VectorFormatError as error:
        raise VectorSetError(str(error)) from error
    cache.remember(digest, schema, cache.FileIndex("manifest", "", (), frozenset()))
    return manifest, raw


def open_vector_set(root: Path, *, verify: bool = True, shipped: bool = False) -> VectorSet:
    """The vector set under ``root`` (with its manifest), verified unless ``verify`` is False.

    ``shipped``: ``root`` is the set the kit ships; in a wheel install, its files
    still matching the wheel's record need no schema check (never the
    manifest's digests: a manifest can be re-sealed after an edit).
    """
    manifest, manifest_raw = _read_manifest(root)
    vouched = resources.installed_vector_digests(root) if shipped else {}
    files = tuple(
        _source(entry["path"], root / entry["path"], vouched.get(entry["path"]))
        for entry in manifest["files"]
    )
    problems: list[str] = []
    for entry, source in zip(manifest["files"], files, strict=True):
        label, index = source.label, source.index
        if source.sha256 != entry["sha256"]:
            problems.append(f"{label}: sha256 {source.sha256}, the manifest says {entry['sha256']}")
        if (index.kind, index.family) != (entry["kind"], entry["family"]):
            problems.append(
                f"{label}: holds {index.kind} family {index.family!r}, the manifest says "
                f"{entry['kind']} family {entry['family']!r}"
            )
        if len(index.ids) != entry["vectors"]:
            problems.append(
                f"{label}: {len(index.ids)} vectors, the manifest says {entry['vectors']}"
            )
        if not index.ids:
            problems.append(f"{label}: holds no vector")
    total = sum(len(source.index.ids) for source in files)
    if total != manifest["vectors"]:
        problems.append(
            f"{MANIFEST_NAME}: {total} vectors in the files, it says {manifest['vectors']}"
        )
    problems.extend(_duplicates(files))
    if problems and verify:
        raise IntegrityError(problems)
    digests = {source.label: source.sha256 for source in files}
    reference: dict[str, str] | None
    if shipped and vouched:  # a wheel's set: its record says what was released
        reference = {  # its vector files (not the manifest, nor the README)
            path: digest
            for path, digest in vouched.items()
            if path.endswith(".json") and path != MANIFEST_NAME
        }
    elif shipped:  # the checkout's own set: it is the source of what ships
        reference = digests
    else:
        reference = _shipped_digests(root)
    differs = _differing(digests, reference)
    description = {
        "manifest": str(root / MANIFEST_NAME),
        "format": manifest["format"],
        "generatorVersion": manifest["generatorVersion"],
        "vectors": manifest["vectors"],
        "sha256": hashlib.sha256(manifest_raw).hexdigest(),
        "verified": verify,
        "shipped": not differs,
        "differsFromShipped": differs,
    }
    if problems:
        description["integrityProblems"] = problems
    return VectorSet(files, description, tuple(problems))


def _shipped_digests(root: Path | None) -> dict[str, str] | None:
    """The sha256 of each file of the set the kit ships, by path (None when the kit
    ships none it can read). ``root`` itself being that set: its own digests."""
    try:
        shipped = resources.vectors_root()
        if root is not None and os.path.samefile(root, shipped):
            return None
        raw = _read(shipped / MANIFEST_NAME)
        manifest = parse_json_bytes(shipped / MANIFEST_NAME, raw)
        return {str(entry["path"]): str(entry["sha256"]) for entry in manifest["files"]}
    except (
        OSError,
        VectorSetError,
        VectorFormatError,
        resources.MissingResource,
        KeyError,
        TypeError,
    ):
        return None


def _differing(digests: dict[str, str], shipped: dict[str, str] | None) -> list[str]:
    """The files in which a set differs from the shipped one (changed, added, missing):
    a re-sealed, edited copy passes its integrity check, and says so here."""
    if shipped is None:
        return []
    return sorted(
        path for path in digests.keys() | shipped.keys() if digests.get(path) != shipped.get(path)
    )


def open_vector_files(paths: Sequence[Path], *, verify: bool = True) -> VectorSet:
    """Loose vector files (no manifest): each valid, no id twice."""
    files = tuple(_source(str(path), path) for path in paths)
    problems = _duplicates(files)
    if problems and verify:
        raise IntegrityError(problems)
    shipped = set((_shipped_digests(None) or {}).values())
    differs = [source.label for source in files if source.sha256 not in shipped]
    description: dict[str, Any] = {
        "manifest": None,
        "files": [{"path": source.label, "sha256": source.sha256} for source in files],
        "verified": verify,
        "shipped": not differs,
        "differsFromShipped": differs,
    }
    if problems:
        description["integrityProblems"] = problems
    return VectorSet(files, description, tuple(problems))


def listed_paths(root: Path) -> set[str]:
    """The files the manifest under ``root`` lists, by path relative to ``root``: what a
    regeneration of the set may replace or remove, and nothing else. Read leniently
    (any format version: only ``files[].path``); :class:`VectorSetError` when there is
    no manifest, or it lists anything but plain relative paths inside the set."""
    path = root / MANIFEST_NAME
    try:
        data = parse_json_bytes(path, _read(path))
    except VectorFormatError as error:
        raise VectorSetError(str(error)) from error
    entries = data.get("files") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise VectorSetError(f"{path}: not a vector set's manifest (it lists no files)")
    listed = set()
    for entry in entries:
        relative = entry.get("path") if isinstance(entry, dict) else None
        parts = PurePosixPath(relative).parts if isinstance(relative, str) else ()
        if not parts or parts[0] == "/" or ".." in parts or "\\" in str(relative):
            raise VectorSetError(f"{path}: lists {relative!r}, not a path inside the set")
        listed.add(PurePosixPath(*parts).as_posix())
    return listed
