"""The protocol's edges, one table run against every server the kit ships.

Request ids (PROT-24: a safe integer; ``1.0`` is ``1``, ``-0`` is ``0``; any
other id is answered ``"id": null``, PROT-09), lines that are not requests,
undecodable tags and deep plain JSON (PROT-26, PROT-27), the handshake's
version (PROT-13), operations and sessions (PROT-16, PROT-20). The servers
are those of :mod:`harnesses.servers`: the Python server core (every Python
harness), the TypeScript harness and the Go harness.
"""

from __future__ import annotations

from typing import Any

import pytest
from harnesses.servers import SERVERS, Table, answers, departures

BAD = (None, "bad-request")
"""No id could be read: ``id`` null, ``bad-request`` (PROT-09)."""

ONE = '"1"'
"""The result of canonicalizing 1."""


def _canonicalize(ident: str) -> bytes:
    return f'{{"id":{ident},"op":"canonicalize","value":1}}'.encode()


DEEP = b'{"id":30,"op":"canonicalize","value":' + b"[" * 5000 + b"0" + b"]" * 5000 + b"}"

EDGES: Table = [
    # PROT-24: the id is a safe integer, echoed as the integer it is
    (_canonicalize("0"), (0, "result", ONE)),
    (_canonicalize("-0"), (0, "result", ONE)),
    (_canonicalize("-0.0"), (0, "result", ONE)),
    (_canonicalize("1.0"), (1, "result", ONE)),
    (_canonicalize("2e0"), (2, "result", ONE)),
    (_canonicalize("9007199254740991"), (9007199254740991, "result", ONE)),
    (_canonicalize("-9007199254740991"), (-9007199254740991, "result", ONE)),
    (_canonicalize("9007199254740992"), BAD),
    (_canonicalize("9007199254740993"), BAD),
    (_canonicalize("2.5"), BAD),
    (_canonicalize("1e400"), BAD),
    (_canonicalize('"3"'), BAD),
    (_canonicalize("true"), BAD),
    (_canonicalize("null"), BAD),
    (b'{"op":"canonicalize","value":1}', BAD),
    # PROT-09: a line that is no request
    (b"not json", BAD),
    (b"[1, 2]", BAD),
    # PROT-26, PROT-27: an undecodable tag; plain JSON deeper than any decode limit
    (b'{"id":4,"op":"canonicalize","value":{"$js":"bigint","value":"+1"}}', (4, "bad-request")),
    (DEEP, (30, "canonicalization")),
    # PROT-13: another protocol version
    (b'{"id":5,"op":"hello","protocol":2}', (5, "unsupported-protocol")),
    # PROT-20: operations
    (b'{"id":6,"op":"noSuchOp"}', (6, "unknown-op")),
    (b'{"id":7,"op":17}', (7, "bad-request")),
    # PROT-16, PROT-17: sessions
    (b'{"id":8,"op":"getState"}', (8, "bad-request")),
    (b'{"id":9,"op":"getState","session":"s99"}', (9, "unknown-session")),
    (b'{"id":10,"op":"close","session":"s99"}', (10, "unknown-session")),
    (b'{"id":11,"op":"close","session":3}', (11, "bad-request")),
    (b'{"id":12,"op":"canonicalize","value":1,"session":"s99"}', (12, "result", ONE)),
    (b'{"id":13,"op":"create","option":{"$js":"undefined"}}', (13, "bad-request")),
    (b'{"id":14,"op":"create","option":true}', (14, "result", '"session":')),
    (b'{"id":15,"op":"recordToolCall","toolName":"t","keyMaterial":1}', (15, "bad-request")),
]


@pytest.fixture(scope="module")
def answered() -> dict[str, list[list[Any]]]:
    return {name: answers(command, EDGES) for name, command in SERVERS.items()}


@pytest.mark.parametrize("name", list(SERVERS))
def test_each_server_answers_the_protocol_edges(
    answered: dict[str, list[list[Any]]], name: str
) -> None:
    wrong = departures(EDGES, answered[name])
    assert not wrong, f"{name}:\n" + "\n".join(wrong)
