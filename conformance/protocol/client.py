"""The runner's side of protocol v1: the one client of a harness (spec/protocol.md).

:class:`Connection` is a harness process (:class:`~.process.HarnessProcess`)
spoken to over the protocol: it performs the handshake, numbers and
pipelines requests, and matches each response to its request, in request
order (PROT-08). Anything the harness does wrong -- junk on stdout, a wrong
id, an answer given twice, a malformed response -- raises
:class:`~.process.HarnessFault` naming the cause. The runner, ``conformance
fuzz``, ``replay --port`` and the SDK replay all use it; the SDK replay in
its *raw* mode (:meth:`Connection.send_raw`), where recorded request lines
reach the harness verbatim, their own ids included (PROT-24).
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

from doomloop_kit.jsvalue import jsjson

from .messages import (
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    HelloResult,
    Request,
    Response,
    hello_problem,
    response_problem,
)
from .process import HarnessFault, HarnessProcess, ProtocolMismatch

DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_STARTUP_TIMEOUT: Final = 30.0
DEFAULT_MAX_LINE_BYTES: Final = MAX_LINE_BYTES
_HELLO_ID: Final = 0


@dataclass
class Exchange:
    """One request and its response (filled in when it arrives)."""

    request: dict[str, Any]
    """The request line's JSON object (empty for a raw line)."""
    owner: str = ""
    """Who sent it (a vector id), to name the culprit of a duplicate answer."""
    response: Response | None = None
    line: str = field(default="", repr=False)
    raw: str | None = field(default=None, repr=False)
    """A line sent verbatim (:meth:`Connection.send_raw`): its answer's id is not checked."""

    @property
    def awaited(self) -> str:
        """The request as a fault's message names it: ``request 3 (getState)``."""
        if self.raw is not None:
            return f"the request line {_clip(self.raw, 80)}"
        return f"request {self.request.get('id')} ({self.request.get('op')})"


# One encoder for every request (json.dumps would build one per call). ensure_ascii
# keeps lone surrogates as \udxxx escapes, which UTF-8 cannot carry raw.
_REQUEST_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


class Connection(HarnessProcess):
    """One running harness process, spoken to over protocol v1."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(command, timeout=timeout, max_line_bytes=max_line_bytes, env=env)
        self.startup_timeout = startup_timeout
        self.hello: HelloResult | None = None
        self._next_id = _HELLO_ID + 1
        self._pending: collections.deque[Exchange] = collections.deque()
        self._answered: dict[int, tuple[str, object]] = {}  # id -> (owner, op)

    def start(self) -> HelloResult:
        """Spawn the harness and do the handshake; return its ``hello`` result.

        Raises :class:`HarnessFault` (cause ``handshake`` when it answered
        nonsense, or the transport cause) or :class:`ProtocolMismatch`.
        """
        self.spawn()
        hello = self._send(Request.hello().message(_HELLO_ID))
        timeout, self.timeout = self.timeout, self.startup_timeout  # a cold start may be slow
        try:
            response = self.receive(hello)
        finally:
            self.timeout = timeout
        self.hello = result = self._check_hello(response)
        return result

    def _check_hello(self, response: Response) -> HelloResult:
        if "error" in response:
            error = response["error"]
            if error.get("code") == "unsupported-protocol":
                message = error.get("message")
                raise ProtocolMismatch(
                    f"the harness does not speak protocol {PROTOCOL_VERSION}: {message}"
                )
            raise HarnessFault(
                "handshake",
                f"hello answered {error.get('code')}: {error.get('message')}",
                self.stderr_tail(),
            )
        result = response["result"]
        version = result.get("protocol") if isinstance(result, dict) else PROTOCOL_VERSION
        if isinstance(version, bool) or version != PROTOCOL_VERSION:  # true == 1 in Python
            raise ProtocolMismatch(
                f"the harness speaks protocol {json.dumps(version)}, "
                f"this runner speaks {PROTOCOL_VERSION}"
            )
        problem = hello_problem(result)
        if problem:
            raise HarnessFault("handshake", problem, self.stderr_tail())
        return cast(HelloResult, result)

    # -- requests --------------------------------------------------------------------

    def _send(self, message: dict[str, Any], owner: str = "") -> Exchange:
        exchange = Exchange(message, owner)
        self._pending.append(exchange)
        self.write((_REQUEST_ENCODER.encode(message) + "\n").encode("ascii"))
        return exchange

    def send(self, request: Request, owner: str = "") -> Exchange:
        """Queue one request (its ``id`` is assigned here) without waiting for its answer."""
        ident, self._next_id = self._next_id, self._next_id + 1
        return self._send(request.message(ident), owner)

    def send_raw(self, line: str) -> Exchange:
        """Queue a request line exactly as given, its own ``id`` included (the SDK replay's
        recorded lines, PROT-24): its answer is the next line, whatever its id."""
        exchange = Exchange({}, raw=line)
        self._pending.append(exchange)
        self.write(line.encode("utf-8", "surrogatepass") + b"\n")
        return exchange

    def receive(self, exchange: Exchange) -> Response:
        """Wait for responses up to and including ``exchange``'s; return its response."""
        self.start_writing()
        while exchange.response is None:
            self._receive_next()
        return exchange.response

    def call(self, request: Request) -> Response:
        return self.receive(self.send(request))

    def oldest_pending(self) -> Exchange | None:
        """The oldest request still unanswered (what a fault is charged to)."""
        return self._pending[0] if self._pending else None

    def _receive_next(self) -> None:
        expected = self._pending[0]
        awaited = expected.awaited
        payload = self.read_line(awaited)
        text = payload.decode("utf-8", "replace").rstrip("\r\n")
        try:
            jsjson.check_depth(text)
        except jsjson.NestingError as error:  # PROT-46: a harness never writes one
            raise HarnessFault(
                "bad-response", f"a response line {error} (answering {awaited})", self.stderr_tail()
            ) from None
        jsjson.deep_enough()
        try:
            response = json.loads(payload)
        except (ValueError, RecursionError):
            raise HarnessFault(
                "non-json",
                f"a stdout line that is not JSON (answering {awaited}): {_clip(text, 200)}",
                self.stderr_tail(),
            ) from None
        problem = response_problem(response)
        if problem:
            raise HarnessFault(
                "bad-response",
                f"{problem} (answering {awaited}): {_clip(text, 200)}",
                self.stderr_tail(),
            )
        if expected.raw is None:
            self._check_id(expected, response["id"])
        self._pending.popleft()
        expected.response = cast(Response, response)  # checked by response_problem
        expected.line = text

    def _check_id(self, expected: Exchange, answered: object) -> None:
        """The answer is to the oldest request (PROT-08), and to no request twice."""
        ident, op = expected.request["id"], expected.request.get("op")
        if (
            isinstance(answered, int)
            and not isinstance(answered, bool)
            and answered in self._answered
        ):
            owner, answered_op = self._answered[answered]
            raise HarnessFault(
                "duplicate-answer",
                f"the harness answered request {answered} ({answered_op}"
                + (f", vector {owner}" if owner else "")
                + f") a second time, while {expected.awaited} awaited its answer: "
                "a protocol fault of the harness",
                self.stderr_tail(),
                culprit=owner or None,
            )
        if answered != ident or isinstance(answered, bool):
            raise HarnessFault(
                "wrong-id",
                f"expected a response with id {ident} ({op}), got id {json.dumps(answered)}",
                self.stderr_tail(),
            )
        self._answered[ident] = (expected.owner, op)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
