"""The runner's side of protocol v1 (spec/protocol.md): one harness process.

:class:`Connection` starts a port's harness with a shell command in its own
process group, performs the handshake and exchanges lines with it: requests
are pipelined, and one ``select`` loop in the calling thread writes stdin
while it reads stdout (a daemon thread drains stderr into a bounded tail).
Responses come back in request order. Anything the harness does wrong --
dying, hanging, junk on stdout, a wrong id, an answer given twice, an
oversized line -- raises :class:`HarnessFault` naming the cause; the caller
then kills the process group and may start a fresh harness
(:mod:`.supervisor` does both).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

PROTOCOL_VERSION: Final = 1
"""The protocol version this runner speaks."""

PROTOCOL_REVISION: Final = "1.3"
"""The revision of that version the runner and the in-tree harnesses follow
(PROT-30: named in spec/protocol.md, never sent on the wire)."""

ERROR_CODES: Final = (
    "canonicalization",
    "type-error",
    "bad-scenario",
    "bad-request",
    "unknown-op",
    "unknown-session",
    "unsupported-protocol",
    "internal",
)
"""Every error code a harness may answer with (spec/protocol.md#errors)."""

SESSION_OPS: Final = ("create", "close")

DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_STARTUP_TIMEOUT: Final = 30.0
DEFAULT_MAX_LINE_BYTES: Final = 64 * 1024 * 1024
STDERR_TAIL_LINES: Final = 50
_STDERR_LINE_CHARS: Final = 1000
_EXIT_GRACE: Final = 2.0
_POLL: Final = 0.1
_EXIT_DRAIN: Final = 0.3
_READ_CHUNK: Final = 1 << 20
_WRITE_CHUNK: Final = 1 << 16


class HarnessFault(Exception):
    """The harness broke the protocol; it must be killed (and maybe restarted).

    ``cause`` is one short word for the report (``crash``, ``timeout``,
    ``non-json``, ``wrong-id``, ``bad-response``, ``huge-line``, ``write-failed``,
    ``handshake``); ``stderr`` the last lines the harness wrote there.
    """

    def __init__(
        self, cause: str, message: str, stderr: Sequence[str] = (), *, culprit: str | None = None
    ) -> None:
        super().__init__(f"{cause}: {message}")
        self.cause = cause
        self.message = message
        self.stderr = list(stderr)
        self.culprit = culprit
        """For ``duplicate-answer``: the owner of the request answered twice."""


class ProtocolMismatch(Exception):
    """The harness does not speak this runner's protocol version: the run cannot go on."""


@dataclass
class Exchange:
    """One request and its response (filled in when it arrives)."""

    request: dict[str, Any]
    owner: str = ""
    """Who sent it (a vector id), to name the culprit of a duplicate answer."""
    response: dict[str, Any] | None = None
    line: str = field(default="", repr=False)


# One encoder for every request (json.dumps would build one per call). ensure_ascii
# keeps lone surrogates as \udxxx escapes, which UTF-8 cannot carry raw.
_REQUEST_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def _encode(message: Mapping[str, Any]) -> bytes:
    return (_REQUEST_ENCODER.encode(message) + "\n").encode("ascii")


class Connection:
    """One running harness process, spoken to over protocol v1.

    Stdin and stdout are driven from the calling thread by one ``select``
    loop with non-blocking pipes: requests are written while responses are
    read, so neither pipe can fill up and stall the other, and no thread
    hand-off sits on the hot path. Stderr is drained by a daemon thread into
    a bounded tail.
    """

    def __init__(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.max_line_bytes = max_line_bytes
        self.env = dict(env) if env is not None else None
        self.hello: dict[str, Any] = {}
        self.process: subprocess.Popen[bytes] | None = None
        self._next_id = 1
        self._pending: collections.deque[Exchange] = collections.deque()
        self._inbuf = bytearray()
        self._scanned = 0  # bytes of _inbuf known to hold no line feed
        self._outbuf = bytearray()
        self._eof = False
        self._stdin_fd = -1
        self._stdout_fd = -1
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_thread: threading.Thread | None = None
        self._answered: dict[int, tuple[str, object]] = {}  # id -> (owner, op)

    # -- life cycle ------------------------------------------------------------

    def start(self) -> dict[str, Any]:
        """Spawn the harness and do the handshake; return its ``hello`` result.

        Raises :class:`HarnessFault` (cause ``handshake`` when it answered
        nonsense, or the transport cause) or :class:`ProtocolMismatch`.
        """
        self.process = subprocess.Popen(
            self.command,
            shell=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # own process group: killed as a whole
            env=self.env,
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._stdin_fd = self.process.stdin.fileno()
        self._stdout_fd = self.process.stdout.fileno()
        os.set_blocking(self._stdin_fd, False)
        os.set_blocking(self._stdout_fd, False)
        self._stderr_thread = threading.Thread(
            target=self._read_stderr, name="harness-stderr", daemon=True
        )
        self._stderr_thread.start()
        hello = self._send({"op": "hello", "protocol": PROTOCOL_VERSION}, ident=0)
        timeout, self.timeout = self.timeout, self.startup_timeout  # a cold start may be slow
        try:
            response = self.receive(hello)
        finally:
            self.timeout = timeout
        self.hello = self._check_hello(response)
        return self.hello

    def _check_hello(self, response: Mapping[str, Any]) -> dict[str, Any]:
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
        if not isinstance(result, dict):
            raise HarnessFault("handshake", "hello result is not an object", self.stderr_tail())
        if result.get("protocol") != PROTOCOL_VERSION:
            raise ProtocolMismatch(
                f"the harness speaks protocol {result.get('protocol')!r}, "
                f"this runner speaks {PROTOCOL_VERSION}"
            )
        implementation = result.get("implementation")
        features = result.get("features")
        if not isinstance(implementation, dict) or not all(
            isinstance(implementation.get(k), str) for k in ("name", "language", "version")
        ):
            raise HarnessFault(
                "handshake",
                "hello result lacks implementation name/language/version",
                self.stderr_tail(),
            )
        if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
            raise HarnessFault(
                "handshake", "hello result lacks a features list", self.stderr_tail()
            )
        return result

    def close(self) -> int | None:
        """End the harness politely (close stdin), then make sure the group is gone.

        Returns the exit status, or None when it had to be killed.
        """
        status: int | None = None
        process = self.process
        if process is not None:
            with contextlib.suppress(OSError):
                self._flush_out(time.monotonic() + _EXIT_GRACE)
            with contextlib.suppress(OSError, ValueError):
                assert process.stdin is not None
                process.stdin.close()
            try:
                status = process.wait(_EXIT_GRACE)
            except subprocess.TimeoutExpired:
                status = None
        self.kill()
        return status

    def kill(self) -> None:
        """Kill the whole process group and reap the child. Safe to call twice."""
        process = self.process
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            process.wait(5)
        for stream in (process.stdin, process.stdout, process.stderr):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()
        if self._stderr_thread is not None:
            self._stderr_thread.join(1)

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    # -- stderr ----------------------------------------------------------------------

    def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        stream = self.process.stderr
        pending = b""
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = stream.read(65536)
                if not chunk:
                    break
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()[-_STDERR_LINE_CHARS:]
                for line in lines[-STDERR_TAIL_LINES:]:
                    self._stderr.append(_stderr_text(line))
        if pending:
            self._stderr.append(_stderr_text(pending))

    def stderr_tail(self) -> list[str]:
        """The last lines (at most 50) the harness wrote to stderr."""
        return list(self._stderr)

    def settled_stderr(self) -> list[str]:
        """The stderr tail once the reader has had a moment to reach end of file."""
        if self._stderr_thread is not None:
            self._stderr_thread.join(1.0)
        return self.stderr_tail()

    # -- the select loop ---------------------------------------------------------------

    def _pump(self, deadline: float) -> bool:
        """Move bytes both ways until something was read or ``deadline`` passed.

        Returns False on timeout. Sets ``_eof`` at end of stdout.
        """
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            writers = [self._stdin_fd] if self._outbuf else []
            try:
                readable, writable, _ = select.select(
                    [self._stdout_fd], writers, [], min(remaining, _POLL)
                )
            except (OSError, ValueError):
                self._eof = True
                return True
            if writable:
                self._write_some()
            if readable:
                try:
                    data = os.read(self._stdout_fd, _READ_CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._eof = True
                else:
                    self._inbuf += data
                return True
            if not readable and not writable and self._exited_quietly():
                self._eof = True
                return True

    def _exited_quietly(self) -> bool:
        """The harness died but something (a grandchild) keeps its stdout open."""
        process = self.process
        if process is None or process.poll() is None:
            return False
        if not hasattr(self, "_exited_at"):
            self._exited_at = time.monotonic()  # lines written before the exit may be in flight
        return time.monotonic() - self._exited_at > _EXIT_DRAIN

    def _write_some(self) -> None:
        try:
            written = os.write(self._stdin_fd, self._outbuf[:_WRITE_CHUNK])
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):
            self._outbuf.clear()  # the harness is gone: the read side will notice
            return
        del self._outbuf[:written]

    def _flush_out(self, deadline: float) -> None:
        while self._outbuf and time.monotonic() < deadline:
            _, writable, _ = select.select([], [self._stdin_fd], [], _POLL)
            if writable:
                self._write_some()

    # -- requests ----------------------------------------------------------------

    def _send(
        self, request: Mapping[str, Any], ident: int | None = None, owner: str = ""
    ) -> Exchange:
        if ident is None:
            ident = self._next_id
            self._next_id += 1
        message = {"id": ident, **request}
        exchange = Exchange(message, owner)
        self._pending.append(exchange)
        self._outbuf += _encode(message)
        return exchange

    def send(self, request: Mapping[str, Any], owner: str = "") -> Exchange:
        """Queue one request (``id`` is assigned here) without waiting for its answer."""
        return self._send(request, owner=owner)

    def receive(self, exchange: Exchange) -> dict[str, Any]:
        """Wait for responses up to and including ``exchange``'s; return its response."""
        if self._outbuf:
            self._write_some()  # start the harness working before we look for answers
        while exchange.response is None:
            self._receive_next()
        return exchange.response

    def oldest_pending(self) -> Exchange | None:
        """The oldest request still unanswered (what a fault is charged to)."""
        return self._pending[0] if self._pending else None

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.receive(self.send(request))

    def _next_line(self, ident: int, op: object) -> bytes:
        deadline = time.monotonic() + self.timeout
        while True:
            newline = self._inbuf.find(b"\n", self._scanned)
            if newline >= 0:
                line = bytes(self._inbuf[: newline + 1])
                del self._inbuf[: newline + 1]
                self._scanned = 0
                if len(line) > self.max_line_bytes:
                    self._huge(ident, op)
                return line
            self._scanned = len(self._inbuf)
            if len(self._inbuf) > self.max_line_bytes:
                self._huge(ident, op)
            if self._eof:
                raise HarnessFault(
                    "crash",
                    f"the harness closed stdout before answering request {ident} ({op})"
                    f"{self._exit_note()}",
                    self.settled_stderr(),
                )
            if not self._pump(deadline):
                raise HarnessFault(
                    "timeout",
                    f"no response to request {ident} ({op}) within {self.timeout:g} s",
                    self.stderr_tail(),
                )

    def _huge(self, ident: int, op: object) -> None:
        raise HarnessFault(
            "huge-line",
            f"a response line longer than {self.max_line_bytes} bytes "
            f"(answering request {ident} ({op}))",
            self.stderr_tail(),
        )

    def _receive_next(self) -> None:
        expected = self._pending[0]
        ident = expected.request["id"]
        op = expected.request.get("op")
        payload = self._next_line(ident, op)
        text = payload.decode("utf-8", "replace").rstrip("\r\n")
        try:
            response = json.loads(payload)
        except (ValueError, RecursionError):
            raise HarnessFault(
                "non-json",
                f"a stdout line that is not JSON (answering request {ident} ({op})): "
                f"{_clip(text, 200)}",
                self.stderr_tail(),
            ) from None
        problem = _response_problem(response)
        if problem:
            raise HarnessFault(
                "bad-response",
                f"{problem} (answering request {ident} ({op})): {_clip(text, 200)}",
                self.stderr_tail(),
            )
        answered = response["id"]
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
                + f") a second time, while request {ident} ({op}) awaited its answer: "
                "a protocol fault of the harness",
                self.stderr_tail(),
                culprit=owner or None,
            )
        if answered != ident or isinstance(answered, bool):
            raise HarnessFault(
                "wrong-id",
                f"expected a response with id {ident} ({op}), got id {json.dumps(response['id'])}",
                self.stderr_tail(),
            )
        self._pending.popleft()
        self._answered[ident] = (expected.owner, op)
        expected.response = response
        expected.line = text

    def _exit_note(self) -> str:
        if self.process is None:
            return ""
        try:
            status = self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            return " (the process is still running)"
        if status < 0:
            with contextlib.suppress(ValueError):
                return f" (killed by {signal.Signals(-status).name})"
        return f" (exit status {status})"


def _stderr_text(line: bytes) -> str:
    return line[:_STDERR_LINE_CHARS].decode("utf-8", "replace").rstrip("\r")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _response_problem(response: object) -> str:
    """Why a decoded line is not a well-formed response ('' when it is)."""
    if not isinstance(response, dict):
        return "a response is a JSON object"
    if "id" not in response:
        return "a response without an id"
    has_result, has_error = "result" in response, "error" in response
    if has_result == has_error:
        return "a response has exactly one of result and error"
    if has_error:
        error = response["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), str):
            return "error must be an object with a string code"
        if not isinstance(error.get("message"), str):
            return "error must carry a string message"
    return ""
