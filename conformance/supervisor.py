"""One harness under supervision, shared by ``conformance run`` and ``conformance fuzz``.

The :class:`Supervisor` starts the harness (:class:`~.protocol.Connection`),
checks its handshake -- protocol version, and feature names against the
vocabulary of spec/features.md -- kills it after a fault, keeps its last
stderr lines, and restarts it within a budget (``--max-restarts``).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import interrupts
from .protocol import (
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TIMEOUT,
    Connection,
    HarnessFault,
    ProtocolMismatch,
)
from .protocol.messages import HelloResult


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds greater than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


def _whole(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number greater than 0."""
    return _whole(text, 1)


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number, 0 or more."""
    return _whole(text, 0)


def add_harness_arguments(parser: argparse.ArgumentParser, *, max_restarts: int) -> None:
    """The options every command that drives a harness shares (``--port`` and limits)."""
    parser.add_argument(
        "--port",
        required=True,
        metavar="COMMAND",
        help="shell command that starts the harness (protocol v1 on stdin/stdout)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="longest wait for any one response (default 10)",
    )
    parser.add_argument(
        "--startup-timeout",
        type=positive_seconds,
        default=DEFAULT_STARTUP_TIMEOUT,
        metavar="SECONDS",
        help="longest wait for the handshake answer of a starting harness (default 30)",
    )
    parser.add_argument(
        "--max-restarts",
        type=non_negative_int,
        default=max_restarts,
        metavar="N",
        help=f"harness restarts allowed after faults before the run ends (default {max_restarts})",
    )
    parser.add_argument(
        "--max-line-bytes",
        type=positive_int,
        default=DEFAULT_MAX_LINE_BYTES,
        metavar="N",
        help="longest response line accepted (default 64 MiB)",
    )
    parser.add_argument(
        "--allow-unknown-features",
        action="store_true",
        help="warn about feature names the handshake declares that the kit does not know "
        "(default: an error, since a misspelt feature silently skips vectors)",
    )


@dataclass(frozen=True)
class HarnessOptions:
    command: str
    timeout: float = DEFAULT_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_restarts: int = 5
    allow_unknown_features: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> HarnessOptions:
        return cls(
            args.port,
            args.timeout,
            args.startup_timeout,
            args.max_line_bytes,
            args.max_restarts,
            args.allow_unknown_features,
        )


class BudgetSpent(Exception):
    """The harness failed more often than ``--max-restarts`` allows."""


class Supervisor:
    """Start, handshake, kill and restart one harness; count the restarts."""

    def __init__(
        self,
        options: HarnessOptions,
        known_features: Iterable[str],
        warn: Callable[[str], None],
    ) -> None:
        self.options = options
        self.known_features = frozenset(known_features)
        self.warn = warn
        self.connection: Connection | None = None
        self.hello: HelloResult | None = None
        self.features: frozenset[str] = frozenset()
        self.restarts = 0

    def start(self) -> Connection:
        """A running, handshaken harness.

        Raises :class:`~.protocol.HarnessFault` (with the stderr tail) or
        :class:`~.protocol.ProtocolMismatch`; an unknown feature name is a
        ``ProtocolMismatch`` unless unknown features are allowed.
        """
        options = self.options
        connection = Connection(
            options.command,
            timeout=options.timeout,
            startup_timeout=options.startup_timeout,
            max_line_bytes=options.max_line_bytes,
        )
        try:
            hello = connection.start()
            self._check_features(hello["features"])
        except BaseException as problem:
            with interrupts.held():  # never a harness left behind, whatever arrives
                connection.kill()
            if isinstance(problem, HarnessFault) and not problem.stderr:
                problem.stderr = connection.stderr_tail()
            raise
        self.connection, self.hello = connection, hello
        self.features = frozenset(hello["features"])
        return connection

    def _check_features(self, declared: list[str]) -> None:
        unknown = sorted(set(declared) - self.known_features)
        if not unknown:
            return
        message = (
            f"the harness declares unknown feature(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(self.known_features))} (spec/features.md)"
        )
        if not self.options.allow_unknown_features:
            raise ProtocolMismatch(message + "; --allow-unknown-features makes this a warning")
        self.warn(f"warning: {message}")

    def restart(self) -> Connection:
        """Count a restart against the budget and start a fresh harness."""
        if self.restarts >= self.options.max_restarts:
            raise BudgetSpent(
                f"the harness failed after {self.restarts} restart(s); the restart budget "
                f"(--max-restarts {self.options.max_restarts}) is spent"
            )
        self.restarts += 1
        return self.start()

    def discard(self) -> list[str]:
        """Kill the harness after a fault; its final stderr tail."""
        connection, self.connection = self.connection, None
        if connection is None:
            return []
        connection.kill()
        return connection.stderr_tail()

    def stop(self) -> int | None:
        """End the harness politely (stdin closed); warn unless it exits 0."""
        connection, self.connection = self.connection, None
        if connection is None:
            return None
        status = connection.close()
        if status not in (0, None):
            self.warn(
                f"warning: the harness exited with status {status} "
                "when its stdin was closed (expected 0)"
            )
        return status

    def kill(self) -> None:
        self.discard()
