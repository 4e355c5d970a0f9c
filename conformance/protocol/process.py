"""One harness process and how it can fail (spec/protocol.md PROT-03, PROT-15, PROT-21).

:class:`HarnessProcess` starts a port's harness with a shell command in its
own process group and moves bytes: one ``select`` loop in the calling thread
writes stdin while it reads stdout, so neither pipe can fill up and stall
the other, and a daemon thread drains stderr into a bounded tail. A harness
that dies, hangs or writes an oversized line raises :class:`HarnessFault`
naming the cause; the caller then kills the process group (and may start a
fresh harness: :mod:`doomloop_kit.conformance.supervisor`).

A harness's descendants end with it, also those that left its process group
(``setsid()``, a daemon whose parent is gone): each harness starts with a
mark of its own in its environment (:data:`MARK`), which every descendant
inherits, and killing the harness kills every process carrying that mark
(found in ``/proc/PID/environ``; where there is no ``/proc``, the process
group alone). A descendant that empties its environment *and* leaves the
group is the one way out.
"""

from __future__ import annotations

import collections
import contextlib
import os
import secrets
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Final

STDERR_TAIL_LINES: Final = 50
_STDERR_LINE_CHARS: Final = 1000
_EXIT_GRACE: Final = 2.0
_POLL: Final = 0.1
_EXIT_DRAIN: Final = 0.3
_READ_CHUNK: Final = 1 << 20
_WRITE_CHUNK: Final = 1 << 16
MARK: Final = "DOOMLOOP_KIT_HARNESS"
"""The environment variable that marks a harness's processes, descendants included."""


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


class HarnessProcess:
    """A running harness: its pipes, its stderr tail, its end (PROT-15)."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float,
        max_line_bytes: int,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.command = command
        self.timeout = timeout
        """The longest wait for a line (PROT-21)."""
        self.max_line_bytes = max_line_bytes
        self.env = dict(env) if env is not None else None
        self.process: subprocess.Popen[bytes] | None = None
        self._inbuf = bytearray()
        self._scanned = 0  # bytes of _inbuf known to hold no line feed
        self._outbuf = bytearray()
        self._eof = False
        self._exited_at: float | None = None
        self._stdin_fd = -1
        self._stdout_fd = -1
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_thread: threading.Thread | None = None
        self._mark = ""

    # -- life cycle ----------------------------------------------------------------

    def spawn(self) -> None:
        """Start the harness in a process group of its own, marked (:data:`MARK`): the
        group and every marked process are killed as a whole."""
        self._mark = f"{os.getpid()}.{secrets.token_hex(8)}"
        env = {**(os.environ if self.env is None else self.env), MARK: self._mark}
        self.process = subprocess.Popen(
            self.command,
            shell=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
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
        """Kill the whole process group and every process carrying the harness's mark,
        and reap the child. Safe to call twice."""
        process = self.process
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        _kill_marked(f"\0{MARK}={self._mark}\0".encode())
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

    # -- lines -----------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Queue bytes for stdin; the select loop writes them while it reads."""
        self._outbuf += data

    def start_writing(self) -> None:
        """Write what stdin takes now: the harness starts working before we read."""
        if self._outbuf:
            self._write_some()

    def read_line(self, awaited: str) -> bytes:
        """The next stdout line, its line feed included. ``awaited`` names what the line
        answers in a fault's message ("request 3 (getState)")."""
        deadline = time.monotonic() + self.timeout
        while True:
            newline = self._inbuf.find(b"\n", self._scanned)
            if newline >= 0:
                line = bytes(self._inbuf[: newline + 1])
                del self._inbuf[: newline + 1]
                self._scanned = 0
                if len(line) > self.max_line_bytes:
                    self._huge(awaited)
                return line
            self._scanned = len(self._inbuf)
            if len(self._inbuf) > self.max_line_bytes:
                self._huge(awaited)
            if self._eof:
                raise HarnessFault(
                    "crash",
                    f"the harness closed stdout before answering {awaited}{self._exit_note()}",
                    self.settled_stderr(),
                )
            if not self._pump(deadline):
                raise HarnessFault(
                    "timeout",
                    f"no response to {awaited} within {self.timeout:g} s",
                    self.stderr_tail(),
                )

    def _huge(self, awaited: str) -> None:
        raise HarnessFault(
            "huge-line",
            f"a response line longer than {self.max_line_bytes} bytes (answering {awaited})",
            self.stderr_tail(),
        )

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
        if self._exited_at is None:
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


def _kill_marked(mark: bytes) -> None:
    """SIGKILL every process whose environment holds ``mark`` (``NAME=value``), again
    while any is found: one may have forked before it was killed."""
    for _ in range(5):
        found = [pid for pid in _pids() if mark in _environment(pid)]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:  # no /proc: the process group alone
        return []


def _environment(pid: int) -> bytes:
    """The environment a process started with, as ``NAME=value`` entries each ended by a
    NUL byte (empty when it cannot be read: gone, or another user's)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return b"\0" + environ.read()
    except OSError:
        return b""


def _stderr_text(line: bytes) -> str:
    return line[:_STDERR_LINE_CHARS].decode("utf-8", "replace").rstrip("\r")
