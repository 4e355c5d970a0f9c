"""Protocol v1 (spec/protocol.md) in one place: its messages, the runner's client and
the server core of every Python harness.

* :mod:`.messages` -- requests, responses, the id rule, the error codes and the
  handshake, as typed definitions (checked against ``spec/schema/protocol/``);
* :mod:`.process` -- one harness process: its pipes, its faults;
* :mod:`.client` -- :class:`Connection`, the one client (the runner's, fuzz's,
  ``replay --port``'s, and the SDK replay's in its raw mode);
* :mod:`.server` -- :func:`~.server.serve`, the one server core
  (``doomloop_kit.conformance.serve``).
"""

from __future__ import annotations

from .client import (
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TIMEOUT,
    Connection,
    Exchange,
)
from .messages import ERROR_CODES, PROTOCOL_REVISION, PROTOCOL_VERSION, Request
from .process import HarnessFault, ProtocolMismatch

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "ERROR_CODES",
    "PROTOCOL_REVISION",
    "PROTOCOL_VERSION",
    "Connection",
    "Exchange",
    "HarnessFault",
    "ProtocolMismatch",
    "Request",
]
