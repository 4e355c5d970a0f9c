"""Protocol v1 harness for the Python reference (spec/protocol.md).

Run: ``python -m doomloop_kit.conformance.harnesses.python_reference``. Reads
one JSON request per line on stdin, writes one JSON response per line on
stdout, in request order; exits 0 when stdin closes. Every operation goes
through :mod:`doomloop_kit.vectorset.oracle`, so the harness cannot disagree
with the vectors' expectations by construction. It never dies on bad input:
each problem becomes a structured error response.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from importlib import metadata
from typing import Any, BinaryIO, TextIO

from doomloop_kit.jsvalue import jsjson
from doomloop_kit.jsvalue.values import MAX_SAFE_INTEGER, is_number
from doomloop_kit.reference import DoomLoopMonitor
from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.vocabulary import FEATURES, OpError

PROTOCOL = 1


def _version() -> str:
    try:
        return metadata.version("doomloop-kit")
    except metadata.PackageNotFoundError:  # pragma: no cover - source checkout without install
        return "0+unknown"


class Harness:
    """The protocol state: the open sessions, each one reference monitor."""

    def __init__(self) -> None:
        self.sessions: dict[str, DoomLoopMonitor] = {}
        self.created = 0

    def hello(self, request: Mapping[str, Any]) -> object:
        if request.get("protocol") != PROTOCOL:
            raise OpError(
                "unsupported-protocol",
                f"this harness speaks protocol {PROTOCOL}, not {request.get('protocol')!r}",
            )
        implementation = {"name": "doomloop-kit-python-reference", "language": "python"}
        return {
            "protocol": PROTOCOL,
            "implementation": {**implementation, "version": _version()},
            "features": [f for f in FEATURES if f != "js-inherited-members"],  # KEY-09
        }

    def create(self, request: Mapping[str, Any]) -> object:
        monitor = oracle.create_monitor(request)
        self.created += 1
        name = f"s{self.created}"
        self.sessions[name] = monitor
        return {"session": name}

    def session(self, request: Mapping[str, Any]) -> str:
        name = request.get("session")
        if not isinstance(name, str):
            raise OpError("bad-request", "member 'session' must be a string")
        if name not in self.sessions:
            raise OpError("unknown-session", f"no open session {name!r}")
        return name

    def handle(self, request: Mapping[str, Any]) -> object:
        op = request.get("op")
        if op == "hello":
            return self.hello(request)
        if op == "create":
            return self.create(request)
        if op == "close":
            del self.sessions[self.session(request)]
            return None
        if op in oracle.MONITOR_OPS:
            monitor = self.sessions[self.session(request)]
            return oracle.MONITOR_OPS[op](monitor, request)
        if op in oracle.FUNCTION_OPS:
            return oracle.FUNCTION_OPS[op](request)
        if not isinstance(op, str):
            raise OpError("bad-request", "member 'op' must be a string")
        raise OpError("unknown-op", f"unknown op {op!r}")


def _parse(line: bytes) -> tuple[object, Mapping[str, Any] | None, dict[str, Any] | None]:
    """(id, request, error): the request, or the error to answer instead (PROT-44: a
    line that is not UTF-8 is not JSON; numbers are read as JS reads them)."""
    try:
        request = jsjson.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        return None, None, {"code": "bad-request", "message": f"not a JSON line: {error}"}
    if not isinstance(request, dict):
        return None, None, {"code": "bad-request", "message": "a request is a JSON object"}
    ident = request.get("id")  # a safe integer; 1.0 is 1 (PROT-24)
    if not isinstance(ident, int | float) or not is_number(ident):
        return None, None, {"code": "bad-request", "message": "member 'id' must be an integer"}
    if abs(ident) >= MAX_SAFE_INTEGER or ident != int(ident):
        return None, None, {"code": "bad-request", "message": "member 'id' must be an integer"}
    return int(ident), request, None


def respond(harness: Harness, line: bytes) -> str:
    """The response line (without newline) to one request line."""
    ident, request, error = _parse(line)
    response: dict[str, Any] = {"id": ident}
    if request is not None:
        try:
            response["result"] = harness.handle(request)
        except OpError as failure:
            error = {"code": failure.code, "message": str(failure)}
        except Exception as failure:  # never die: the runner reports it as `internal`
            error = {"code": "internal", "message": f"{type(failure).__name__}: {failure}"}
    if error is not None:
        response = {"id": ident, "error": error}
    try:
        return jsjson.dumps(response)  # numbers as JS writes them (PROT-44)
    except (TypeError, ValueError, RecursionError) as failure:
        message = f"unencodable result: {type(failure).__name__}: {failure}"
        return json.dumps({"id": ident, "error": {"code": "internal", "message": message}})


def serve(stdin: BinaryIO, stdout: TextIO) -> int:
    harness = Harness()
    for line in stdin:
        if line.strip(jsjson.JSON_WHITESPACE):  # a blank line gets no answer (PROT-44)
            stdout.write(respond(harness, line) + "\n")
            stdout.flush()
    return 0


def main() -> int:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    return serve(sys.stdin.buffer, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
