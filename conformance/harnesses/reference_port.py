"""The Python reference served through :func:`doomloop_kit.conformance.serve`.

The example of the harness library's shape: a port supplies its name,
version and features, makes a monitor for ``create`` and maps every other
operation onto its API; ``serve`` does the protocol. Here the mapping is the
oracle's operation tables, which decode the tagged inputs and encode the
results. Run: ``python -m doomloop_kit.conformance.harnesses.reference_port``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from doomloop_kit.conformance import PortError, serve
from doomloop_kit.reference import DoomLoopMonitor
from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.vocabulary import FEATURES, OpError


class ReferencePort:
    name = "doomloop-kit-python-reference"
    language = "python"
    version = metadata.version("doomloop-kit")
    features = tuple(FEATURES)

    def create(self, request: Mapping[str, Any]) -> object:
        return self._run(lambda: oracle.create_monitor(request))

    def call(self, monitor: object | None, request: Mapping[str, Any]) -> object:
        op = request["op"]
        if isinstance(monitor, DoomLoopMonitor) and op in oracle.MONITOR_OPS:
            return self._run(lambda: oracle.MONITOR_OPS[op](monitor, request))
        if monitor is None and op in oracle.FUNCTION_OPS:
            return self._run(lambda: oracle.FUNCTION_OPS[op](request))
        raise PortError("unknown-op", f"unknown op {op!r}")

    @staticmethod
    def _run(operation: Any) -> object:
        try:
            return operation()
        except OpError as error:  # the oracle's error codes are the protocol's
            raise PortError(error.code, str(error)) from error


if __name__ == "__main__":
    sys.exit(serve(ReferencePort()))
