"""Protocol v1 harness for the Python reference (spec/protocol.md).

Run: ``python -m doomloop_kit.conformance.harnesses.python_reference``. Reads
one JSON request per line on stdin, writes one JSON response per line on
stdout, in request order; exits 0 when stdin closes. It is a Python port
served by :func:`doomloop_kit.conformance.serve`, which does the protocol
(the request id, the handshake, sessions, error responses, never dying on
bad input); this module only says what the port is and maps each operation
onto the reference. Every operation goes through
:mod:`doomloop_kit.vectorset.oracle`, so the harness cannot disagree with the
vectors' expectations by construction.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from doomloop_kit.conformance import PortError, serve
from doomloop_kit.reference import DoomLoopMonitor
from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.vocabulary import FEATURES


def _version() -> str:
    try:
        return metadata.version("doomloop-kit")
    except metadata.PackageNotFoundError:  # pragma: no cover - source checkout without install
        return "0+unknown"


class ReferencePort:
    """The reference as a port: its name, its features, its operations."""

    name = "doomloop-kit-python-reference"
    language = "python"
    version = _version()
    features = tuple(f for f in FEATURES if f != "js-inherited-members")  # own members: KEY-09

    def create(self, request: Mapping[str, Any]) -> DoomLoopMonitor:
        return oracle.create_monitor(request)

    def call(self, monitor: object | None, request: Mapping[str, Any]) -> object:
        op = request["op"]
        if isinstance(monitor, DoomLoopMonitor) and op in oracle.MONITOR_OPS:
            return oracle.MONITOR_OPS[op](monitor, request)
        if monitor is None and op in oracle.FUNCTION_OPS:
            return oracle.FUNCTION_OPS[op](request)
        raise PortError("unknown-op", f"unknown op {op!r}")


def main() -> int:
    return serve(ReferencePort())


if __name__ == "__main__":
    sys.exit(main())
