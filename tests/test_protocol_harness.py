"""The in-tree Python harness: small, complete, and never dies on bad input.

Its protocol edges are those of every server: tests/test_protocol_edges.py."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from doomloop_kit.conformance.harnesses import python_reference
from doomloop_kit.conformance.protocol.server import Server
from doomloop_kit.vectorset.vocabulary import FEATURES
from harnesses import support

HARNESS = support.REPO / "conformance" / "harnesses" / "python_reference.py"


def _serve(lines: list[bytes]) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run(
        [sys.executable, "-m", "doomloop_kit.conformance.harnesses.python_reference"],
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        timeout=60,
    )
    responses = [json.loads(line) for line in done.stdout.decode("ascii").splitlines()]
    return done.returncode, responses, done.stderr.decode("utf-8", "replace")


def test_under_150_lines() -> None:
    assert len(HARNESS.read_text(encoding="utf-8").splitlines()) < 150


def test_handshake_declares_every_feature() -> None:
    status, responses, _ = _serve([b'{"id":0,"op":"hello","protocol":1}'])
    assert status == 0
    result = responses[0]["result"]
    expected = [f for f in FEATURES if f != "js-inherited-members"]  # KEY-09, KEY-23
    assert result["protocol"] == 1 and result["features"] == expected
    assert result["implementation"]["language"] == "python"


def test_bad_input_gets_structured_errors_and_the_harness_lives_on() -> None:
    lines = [
        b"\xff\xfe not utf-8",
        b"[" * 100_000 + b"]" * 100_000,
        b"[1, 2]",
        b'{"op": "hello"}',
        b'{"id": true, "op": "hello"}',
        b'{"id": 1, "op": "canonicalize", "value": NaN}',
        b'{"id": 2, "op": 17}',
        b'{"id": 3, "op": "recordToolCall", "toolName": "t", "keyMaterial": 1, "round": 0}',
        b'{"id": 4, "op": "close", "session": "s9"}',
        b'{"id": 5, "op": "detectTextRepetition", "text": "a a", "options": {"minRepeats": "x"}}',
        b'{"id": 6, "op": "canonicalize", "value": {"$js": "ref", "up": 9}}',
        b'{"id": 7, "op": "create", "option": {"$js": "undefined"}}',
        b'{"id": 8, "op": "canonicalize", "value": 123456789012345678901234567890}',
        b"",
        b'{"id": 9, "op": "create", "option": true, "state": {"tools": 5}}',
        b'{"id": 10, "op": "getState", "session": "s1"}',
    ]
    status, responses, stderr = _serve(lines)
    assert status == 0, stderr
    summary = [(r["id"], r["error"]["code"] if "error" in r else r["result"]) for r in responses]
    assert summary == [
        (None, "bad-request"),
        (None, "bad-request"),
        (None, "bad-request"),
        (None, "bad-request"),
        (None, "bad-request"),
        (None, "bad-request"),
        (2, "bad-request"),
        (3, "bad-request"),
        (4, "unknown-session"),
        (5, None),  # "x" is NaN under js-coercion (TXT-22): no result
        (6, "bad-request"),
        (7, "bad-request"),
        (8, "1.2345678901234568e+29"),
        (9, {"session": "s1"}),
        (10, {"tools": {}}),
    ]


def test_respond_is_usable_in_process() -> None:
    server = Server(python_reference.ReferencePort())
    line = server.respond(b'{"id":3,"op":"canEscalate","session":"x"}')
    assert json.loads(line) == {
        "id": 3,
        "error": {"code": "unknown-session", "message": "no open session 'x'"},
    }
