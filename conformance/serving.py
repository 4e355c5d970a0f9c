"""Serve a Python port over protocol v1: ``doomloop_kit.conformance.serve(port)``.

A Python port of the monitor becomes a harness in a few lines: give
:func:`serve` an object with the :class:`Port` shape and it speaks the
protocol of spec/protocol.md on stdin/stdout -- framing, the handshake
(PROT-11, PROT-12), sessions (PROT-16, PROT-17), errors (PROT-20, PROT-21) and
never dying on bad input. The port only maps an operation onto its own API.
Inputs arrive, and results leave, as tagged JSON (PROT-05): decode them with
:func:`doomloop_kit.jsvalue.wire.decode` and encode with
:func:`doomloop_kit.jsvalue.wire.encode`, or the port's own equivalents.
``conformance/harnesses/reference_port.py`` is the example: the Python
reference served this way.

The engine level (protocol revision 1.2, PROT-31): a port whose engine
runs scenarios lists the feature ``engine`` and answers ``runScenario`` in
:meth:`Port.call` (no session: ``monitor`` is None) with the transcript, plain
JSON, raising ``PortError("bad-scenario", ...)`` for a malformed scenario
(PROT-32). A port without it never receives the operation: the runner skips
engine vectors for a harness that does not declare ``engine``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO, Protocol, TextIO

from doomloop_kit.jsvalue import jsjson

PROTOCOL = 1


class PortError(Exception):
    """An error response: ``code`` from PROT-20 (``canonicalization``, ``bad-scenario``,
    ``bad-request``...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Port(Protocol):
    """What :func:`serve` needs from a port."""

    @property
    def name(self) -> str: ...

    @property
    def language(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def features(self) -> Sequence[str]:
        """The feature tags the port implements completely (spec/features.md)."""
        ...

    def create(self, request: Mapping[str, Any]) -> object:
        """A new monitor for a ``create`` request (``option``, optional ``state``)."""
        ...

    def call(self, monitor: object | None, request: Mapping[str, Any]) -> object:
        """Run ``request["op"]``: on ``monitor`` for a monitor operation, else a function
        or ``runScenario`` (the engine level, PROT-31).

        Return the result as tagged JSON; raise :class:`PortError` for an error
        response (``unknown-op`` for an operation the port does not know).
        """
        ...


class _Sessions:
    def __init__(self, port: Port) -> None:
        self.port = port
        self.open: dict[str, object] = {}
        self.created = 0

    def handle(self, request: Mapping[str, Any]) -> object:
        op = request.get("op")
        if not isinstance(op, str):
            raise PortError("bad-request", "member 'op' must be a string")
        if op == "hello":
            return self._hello(request)
        if op == "create":
            monitor = self.port.create(request)
            self.created += 1
            name = f"s{self.created}"
            self.open[name] = monitor
            return {"session": name}
        if "session" not in request:
            return self.port.call(None, request)
        name = request["session"]
        if not isinstance(name, str):
            raise PortError("bad-request", "member 'session' must be a string")
        if name not in self.open:
            raise PortError("unknown-session", f"no open session {name!r}")
        if op == "close":
            del self.open[name]
            return None
        return self.port.call(self.open[name], request)

    def _hello(self, request: Mapping[str, Any]) -> object:
        if request.get("protocol") != PROTOCOL:
            raise PortError(
                "unsupported-protocol",
                f"this harness speaks protocol {PROTOCOL}, not {request.get('protocol')!r}",
            )
        port = self.port
        return {
            "protocol": PROTOCOL,
            "implementation": {
                "name": port.name,
                "language": port.language,
                "version": port.version,
            },
            "features": list(port.features),
        }


def respond(sessions: _Sessions, line: bytes) -> str:
    """The response line (without its line feed) to one request line."""
    ident: object = None
    try:
        request = jsjson.loads(line.decode("utf-8"))  # as JS reads it (PROT-44)
        if not isinstance(request, dict):
            raise PortError("bad-request", "a request is a JSON object")
        ident = request.get("id")
        if not isinstance(ident, int) or isinstance(ident, bool):
            ident = None
            raise PortError("bad-request", "member 'id' must be an integer")
        response: dict[str, Any] = {"id": ident, "result": sessions.handle(request)}
    except PortError as failure:
        response = {"id": ident, "error": {"code": failure.code, "message": str(failure)}}
    except (UnicodeDecodeError, ValueError, RecursionError) as failure:
        if ident is None:
            response = {"id": None, "error": {"code": "bad-request", "message": f"{failure}"}}
        else:
            message = f"{type(failure).__name__}: {failure}"
            response = {"id": ident, "error": {"code": "internal", "message": message}}
    except Exception as failure:  # never die (PROT-21): the runner reports it as `internal`
        message = f"{type(failure).__name__}: {failure}"
        response = {"id": ident, "error": {"code": "internal", "message": message}}
    try:
        return jsjson.dumps(response)  # numbers as JS writes them (PROT-44)
    except (TypeError, ValueError, RecursionError) as failure:
        message = f"unencodable result: {type(failure).__name__}: {failure}"
        return json.dumps({"id": ident, "error": {"code": "internal", "message": message}})


def serve(port: Port, stdin: BinaryIO | None = None, stdout: TextIO | None = None) -> int:
    """Answer requests from ``stdin`` until it closes, one line each, in order; return 0."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))  # deep-nesting vectors
    sessions = _Sessions(port)
    for line in stdin:
        if line.strip(jsjson.JSON_WHITESPACE):  # a blank line gets no answer (PROT-44)
            stdout.write(respond(sessions, line) + "\n")
            stdout.flush()
    return 0
