"""``doomloop-kit list [families|tags|features|ids]``: what the vector set holds.

The same selection options as ``conformance run`` (``--family``, ``--tag``,
``-k``, ``--vectors``) narrow what is listed, so a selection can be tried
before a run: ``list ids -k fanout`` prints the ids a run with ``-k fanout``
would run. ``families`` (the default) gives each family's kind, vector count
and the features its vectors need; ``tags`` and ``features`` count the
vectors carrying each; ``--json`` prints the same as JSON. Exit 0, or 2 when
the vector set cannot be used or nothing matches (the known families are
named, as ``conformance run`` names them).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from doomloop_kit.vectorset.files import Vector

from .run_arguments import UsageError, add_selection_arguments, no_match, open_vectors, selection_of

WHATS = ("families", "tags", "features", "ids")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "what", nargs="?", choices=WHATS, default="families", help="what to list (default families)"
    )
    add_selection_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.epilog = (
        "examples:\n"
        "  doomloop-kit list                      every family: kind, vectors, features needed\n"
        "  doomloop-kit list tags --family resume the tags of one family, with their counts\n"
        "  doomloop-kit list ids -k fanout        the ids a run with -k fanout would run"
    )


def run(args: argparse.Namespace) -> int:
    args.files, args.no_verify = [], False  # open_vectors reads what `conformance run` gives
    selection = selection_of(args)
    try:
        vector_set = open_vectors(args)
    except UsageError as error:
        print(f"doomloop-kit list: {error}", file=sys.stderr)
        return 2
    selected = vector_set.select(selection)
    if not selected:
        print(f"doomloop-kit list: {no_match(selection, vector_set)}", file=sys.stderr)
        return 2
    kinds: dict[str, str] = {}
    for source in vector_set.files:  # a family may have a curated and a generated file
        known = kinds.get(source.index.family)
        kind = source.index.kind
        kinds[source.index.family] = kind if known in (None, kind) else f"{known}+{kind}"
    vectors = [vector for _, vector in selected]
    rows = _ROWS[args.what](vectors, kinds)
    if args.json:
        print(json.dumps(rows, indent=1))
    elif args.what == "ids":
        print("\n".join(row["id"] for row in rows))
    else:
        _table(rows)
        families = len({vector.family for vector in vectors})
        print(f"{len(vectors)} vectors in {families} famil{'y' if families == 1 else 'ies'}")
    return 0


def _families(vectors: list[Vector], kinds: dict[str, str]) -> list[dict[str, Any]]:
    counts = Counter(vector.family for vector in vectors)
    needs: dict[str, set[str]] = {}
    for vector in vectors:
        needs.setdefault(vector.family, set()).update(vector.features)
    return [
        {
            "family": family,
            "kind": kinds.get(family, "?"),
            "vectors": count,
            "features": ", ".join(sorted(needs[family])),
        }
        for family, count in counts.items()
    ]


def _counted(name: str, values: list[str]) -> list[dict[str, Any]]:
    counts = Counter(values)
    return [
        {name: value, "vectors": count}
        for value, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def _tags(vectors: list[Vector], kinds: dict[str, str]) -> list[dict[str, Any]]:
    return _counted("tag", [tag for vector in vectors for tag in vector.tags])


def _features(vectors: list[Vector], kinds: dict[str, str]) -> list[dict[str, Any]]:
    return _counted("feature", [feature for vector in vectors for feature in vector.features])


def _ids(vectors: list[Vector], kinds: dict[str, str]) -> list[dict[str, Any]]:
    return [{"id": vector.id, "family": vector.family} for vector in vectors]


_ROWS = {"families": _families, "tags": _tags, "features": _features, "ids": _ids}


def _table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    widths = {c: max(len(c), *(len(str(row[c])) for row in rows)) for c in columns}
    numeric = {c for c in columns if all(isinstance(row[c], int) for row in rows)}

    def line(values: dict[str, Any]) -> str:
        cells = [
            str(values[c]).rjust(widths[c]) if c in numeric else str(values[c]).ljust(widths[c])
            for c in columns
        ]
        return "  ".join(cells).rstrip()

    print(line({c: c for c in columns}))
    for row in rows:
        print(line(row))
