"""Every protocol server the kit ships, and a table of request lines run against each.

The Python reference harness is the server core of
``doomloop_kit.conformance.serve`` with the reference as its port, so that
one entry stands for every Python harness; the TypeScript and Go harnesses
are the other two servers. A table is a list of ``(line, expected)``:
``None`` for no answer, ``(id, error code)``, or ``(id, "result", text)``
where ``text`` must appear in the result's JSON, numbers as written.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Sequence
from typing import Any

from doomloop_kit.jsvalue import jsjson

from .support import REFERENCE, REPO

GO_HARNESS = REPO / "ports" / "go" / "bin" / "doomloop-harness"
TS_HARNESS = REPO / "ports" / "typescript" / "dist" / "harness.js"

SERVERS = {
    "python": REFERENCE,
    "typescript": f"node {shlex.quote(str(TS_HARNESS))}",
    "go": shlex.quote(str(GO_HARNESS)),
}

MARKER = b'{"id":999999,"op":"canonicalize","value":0}'
"""Sent after each line of a table, so that the answers to one line are told apart even
when a server gives none (a blank line) or two (a line split at a carriage return)."""

Table = Sequence[tuple[bytes, Any]]


def normal(line: bytes) -> Any:
    """An answer as compared: the id and error code, or the id and the result's JSON
    text with every number as written (``"#1e+21"``) and members sorted."""
    as_written = {"parse_int": lambda s: "#" + s, "parse_float": lambda s: "#" + s}
    jsjson.deep_enough()  # answers may echo values 10,000 levels deep (PROT-46)
    answer = json.loads(line, **as_written)  # type: ignore[arg-type]
    ident = answer.get("id")
    ident = int(ident[1:]) if isinstance(ident, str) else ident
    if "error" in answer:
        return (ident, answer["error"]["code"])
    return (ident, "result", json.dumps(answer["result"], sort_keys=True, separators=(",", ":")))


def answers(command: str, table: Table) -> list[list[Any]]:
    """The answers to each line of ``table`` (a list per line), hello left out."""
    assert GO_HARNESS.is_file(), "build the Go harness first (make ports)"
    assert TS_HARNESS.is_file(), "build the TypeScript harness first (make ports)"
    hello = b'{"id":0,"op":"hello","protocol":1}\n'
    lines = hello + b"".join(line + b"\n" + MARKER + b"\n" for line, _ in table)
    done = subprocess.run(
        command, shell=True, input=lines, capture_output=True, timeout=120, cwd=REPO
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    groups: list[list[Any]] = [[]]
    for raw in done.stdout.split(b"\n")[1:-1]:  # a line feed ends a line; nothing else
        if raw.startswith(b'{"id":999999') or b'"id":999999}' in raw:
            groups.append([])
        else:
            groups[-1].append(normal(raw))
    return groups[:-1]


def departures(table: Table, got: list[list[Any]]) -> list[str]:
    """Where a server's answers depart from the table (empty: it answers every line right)."""
    assert len(got) == len(table), f"{len(got)} groups for {len(table)} lines"
    wrong = []
    for (line, expected), given in zip(table, got, strict=True):
        if expected is None:
            ok = given == []
        elif len(expected) == 2:
            ok = given == [expected]
        else:
            ok = len(given) == 1 and given[0][:2] == expected[:2] and expected[2] in given[0][2]
        if not ok:
            wrong.append(f"{line[:60]!r}: expected {expected}, got {given}")
    return wrong
