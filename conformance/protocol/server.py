"""The harness side of protocol v1: one server core for every Python harness.

A Python port of the monitor becomes a harness in a few lines: give
:func:`serve` an object with the :class:`Port` shape and it speaks the
protocol of spec/protocol.md on stdin/stdout -- lines read as JS reads them
(PROT-44), the request id (PROT-24), the handshake (PROT-11, PROT-12),
sessions (PROT-16, PROT-17), errors (PROT-20, PROT-21) and never dying on
bad input. The port only maps an operation onto its own API. Inputs arrive,
and results leave, as tagged JSON (PROT-05): decode them with
:func:`doomloop_kit.jsvalue.wire.decode` and encode with
:func:`doomloop_kit.jsvalue.wire.encode`, or the port's own equivalents.
The kit's own Python harness, ``conformance/harnesses/python_reference.py``,
is the example: the Python reference served this way.

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
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, BinaryIO, Protocol, TextIO

from doomloop_kit.jsvalue import jsjson
from doomloop_kit.vectorset.vocabulary import OpError

from .messages import (
    CLOSE,
    CREATE,
    HELLO,
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    Response,
    error_response,
    hello_result,
    request_id,
    result_response,
    takes_session,
)

PortError = OpError
"""An error response a port raises: ``PortError(code, message)``, ``code`` from PROT-20
(``canonicalization``, ``bad-scenario``, ``unknown-op``...). The oracle raises the same."""


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
        """Run ``request["op"]``: on ``monitor`` for an operation on a monitor, else a
        function or ``runScenario`` (the engine level, PROT-31; ``monitor`` is None).

        Return the result as tagged JSON; raise :class:`PortError` for an error
        response (``unknown-op`` for an operation the port does not know).
        """
        ...


class Server:
    """The protocol state of one harness: its port and the sessions it has open."""

    def __init__(self, port: Port) -> None:
        self.port = port
        self.sessions: dict[str, object] = {}
        self.created = 0

    def respond(self, line: bytes) -> str:
        """The response line (without its line feed) to one request line."""
        try:
            request = jsjson.loads(line.decode("utf-8"))  # as JS reads it (PROT-44)
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            return _line(error_response(None, "bad-request", f"not a JSON line: {error}"))
        if not isinstance(request, dict):
            return _line(error_response(None, "bad-request", "a request is a JSON object"))
        ident = request_id(request.get("id"))
        if ident is None:
            return _line(error_response(None, "bad-request", "member 'id' must be an integer"))
        try:
            response: Response = result_response(ident, self.handle(request))
        except OpError as failure:
            response = error_response(ident, failure.code, str(failure))
        except Exception as failure:  # never die (PROT-21): the runner reports `internal`
            response = error_response(ident, "internal", f"{type(failure).__name__}: {failure}")
        return _line(response)

    def handle(self, request: Mapping[str, Any]) -> object:
        """The result of one request; raises :class:`PortError` for an error response."""
        op = request.get("op")
        if not isinstance(op, str):
            raise OpError("bad-request", "member 'op' must be a string")
        if op == HELLO:
            return self._hello(request)
        if op == CREATE:
            monitor = self.port.create(request)
            self.created += 1
            name = f"s{self.created}"
            self.sessions[name] = monitor
            return {"session": name}
        if not takes_session(op):
            return self.port.call(None, request)
        session = request.get("session")
        if not isinstance(session, str):
            raise OpError("bad-request", "member 'session' must be a string")
        if session not in self.sessions:
            raise OpError("unknown-session", f"no open session {session!r}")
        if op == CLOSE:
            del self.sessions[session]
            return None
        return self.port.call(self.sessions[session], request)

    def _hello(self, request: Mapping[str, Any]) -> object:
        if request.get("protocol") != PROTOCOL_VERSION:
            raise OpError(
                "unsupported-protocol",
                f"this harness speaks protocol {PROTOCOL_VERSION}, not {request.get('protocol')!r}",
            )
        port = self.port
        return hello_result(port.name, port.language, port.version, port.features)


def _line(response: Response) -> str:
    """A response as JS writes it (PROT-44); a result JSON cannot hold, or nested deeper
    than :data:`~doomloop_kit.jsvalue.jsjson.MAX_DEPTH` levels (PROT-46), is `internal`."""
    try:
        return jsjson.dumps(response)
    except (TypeError, ValueError, RecursionError) as failure:
        message = f"unencodable result: {type(failure).__name__}: {failure}"
        return json.dumps(error_response(response["id"], "internal", message))


def _lines(stdin: BinaryIO) -> Iterator[bytes | None]:
    """The lines of ``stdin`` (line feed included); None for a line longer than
    :data:`~.messages.MAX_LINE_BYTES`, whose bytes are dropped as they are read (PROT-45)."""
    while line := stdin.readline(MAX_LINE_BYTES + 1):
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            yield line
            continue
        while (rest := stdin.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
            pass
        yield None


def serve(port: Port, stdin: BinaryIO | None = None, stdout: TextIO | None = None) -> int:
    """Answer requests from ``stdin`` until it closes, one line each, in order; return 0.

    A line past the bounds of PROT-45 -- longer than 64 MiB, or nested deeper than
    10,000 levels -- is answered ``bad-request`` with ``id`` null, unparsed; a result
    nested deeper is answered ``internal`` (PROT-46)."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    jsjson.deep_enough()  # a line within the bounds never meets the recursion limit
    server = Server(port)
    for line in _lines(stdin):
        if line is None:
            too_long = f"a line longer than {MAX_LINE_BYTES >> 20} MiB (PROT-45)"
            stdout.write(_line(error_response(None, "bad-request", too_long)) + "\n")
        elif line.strip(jsjson.JSON_WHITESPACE):  # a blank line gets no answer (PROT-44)
            stdout.write(server.respond(line) + "\n")
        else:
            continue
        stdout.flush()
    return 0
