"""The files of a fleet, ``DIR|GLOB|FILE...``: each file once, every problem named.

A folder contributes its log files (``.jsonl``, ``.json``, ``.traj``), found
recursively; a glob its matching files (``**`` any number of folders, ``*``
and ``?`` within one name, a name starting with ``.`` only when the pattern
part does); a file itself. Links to folders are followed, each folder once:
a link leading back to a folder it lies in (``ln -s . runs/loop``) is a
*loop of links*, and a link to itself is one too. A file reached twice (two
links, two hard links, a folder given twice) is replayed once. A folder that
cannot be read, a loop of links, a link to nothing: each is a problem of the
listing, named with its path, never a silent gap. Time and memory are linear
in the number of entries walked, whatever the links.
"""

from __future__ import annotations

import errno
import fnmatch
import glob
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

Wanted = Callable[[tuple[str, ...]], bool]
"""Whether a file (its names below the folder walked) belongs to the corpus."""

LOG_SUFFIXES: Final = (".jsonl", ".json", ".traj")
"""Files a folder contributes to a corpus (``.traj.json`` ends in ``.json``)."""

_LOOP: Final = "a loop of links"


@dataclass(frozen=True)
class Unlisted:
    """A path the listing could not take in: why, in a few words."""

    path: str
    message: str


@dataclass
class Listing:
    """The files of a corpus, in a stable order, and what could not be listed."""

    files: list[Path] = field(default_factory=list)
    problems: list[Unlisted] = field(default_factory=list)
    seen: set[object] = field(default_factory=set)
    walked: set[tuple[int, int]] = field(default_factory=set)

    def add(self, path: Path, info: os.stat_result | None) -> None:
        """A file, unless it was listed before under any name."""
        identity: object = str(path) if info is None else (info.st_dev, info.st_ino)
        if identity not in self.seen:
            self.seen.add(identity)
            self.files.append(path)

    def problem(self, path: Path | str, message: str) -> None:
        self.problems.append(Unlisted(str(path), message))


def list_corpus(inputs: Iterable[str]) -> Listing:
    """The files of ``DIR|GLOB|FILE...`` (module docstring), each group sorted."""
    listing = Listing()
    for text in inputs:
        path = Path(text)
        if glob.has_magic(text):
            _glob(listing, text)
            continue
        try:
            info: os.stat_result | None = os.stat(path)
        except OSError as error:
            if error.errno == errno.ELOOP:
                listing.problem(path, _LOOP)
                continue
            info = None  # missing: the replay of the file names it
        if info is not None and stat.S_ISDIR(info.st_mode):
            _walk(listing, path, info, _log_file, None)
        else:
            listing.add(path, info)
    return listing


def _log_file(relative: tuple[str, ...]) -> bool:
    return relative[-1].endswith(LOG_SUFFIXES)


def _walk(
    listing: Listing,
    top: Path,
    info: os.stat_result,
    wanted: Wanted,
    depth: int | None,
) -> None:
    """Every file under ``top`` that ``wanted`` takes (by its path relative to ``top``),
    at most ``depth`` names deep; folders in name order, each walked once."""
    pending: list[tuple[Path, tuple[str, ...], tuple[tuple[int, int], ...]]] = [
        (top, (), ((info.st_dev, info.st_ino),))
    ]
    listing.walked.add((info.st_dev, info.st_ino))
    while pending:
        folder, relative, ancestors = pending.pop()
        try:
            with os.scandir(folder) as scan:
                names = sorted(entry.name for entry in scan)
        except OSError as error:
            listing.problem(folder, f"cannot read the folder: {error.strerror or error}")
            continue
        below = []
        for name in names:
            path, parts = folder / name, (*relative, name)
            try:
                found = os.stat(path)
            except OSError as error:
                if error.errno == errno.ELOOP:
                    listing.problem(path, _LOOP)
                elif os.path.islink(path) and wanted(parts):
                    listing.problem(path, "a link to nothing")
                continue
            if stat.S_ISDIR(found.st_mode):
                key = (found.st_dev, found.st_ino)
                if key in ancestors:
                    listing.problem(path, f"{_LOOP}: it leads back to a folder it is in")
                elif key not in listing.walked and (depth is None or len(parts) < depth):
                    listing.walked.add(key)
                    below.append((path, parts, (*ancestors, key)))
            elif wanted(parts):
                listing.add(path, found)
        pending.extend(reversed(below))  # depth first, in name order


def _glob(listing: Listing, pattern: str) -> None:
    """The files a glob matches, walked from its longest folder without wildcards."""
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) - 1 and not glob.has_magic(parts[fixed]):
        fixed += 1
    top = Path(*parts[:fixed]) if fixed else Path(".")
    rest = parts[fixed:]
    try:
        info = os.stat(top)
    except OSError as error:
        if error.errno == errno.ELOOP:
            listing.problem(top, _LOOP)
        return
    if not stat.S_ISDIR(info.st_mode):
        return
    depth = None if "**" in rest else len(rest)
    _walk(listing, top, info, lambda relative: _matches(relative, rest), depth)


def _matches(names: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """``names`` (a relative path) matched by ``pattern`` (its parts), as glob matches:
    ``**`` any number of names, a hidden name only by a part that starts with ``.``."""
    if not pattern:
        return not names
    head, rest = pattern[0], pattern[1:]
    if head == "**":  # any number of names, none of them hidden
        for skip in range(len(names) + 1):
            if _matches(names[skip:], rest):
                return True
            if skip < len(names) and names[skip].startswith("."):
                return False
        return False
    if not names or (names[0].startswith(".") and not head.startswith(".")):
        return False
    return fnmatch.fnmatchcase(names[0], head) and _matches(names[1:], rest)
