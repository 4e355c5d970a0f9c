"""The conformance kit: the runner, fuzzing, and the harness library for Python ports.

``serve``, ``Port`` and ``PortError`` (:mod:`.protocol.server`) are imported on first
use: the ``doomloop-kit`` command imports this package before anything else,
and the sooner it runs, the sooner a Ctrl-C is handled (:mod:`.interrupts`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .protocol.server import Port, PortError, serve

__all__ = ["Port", "PortError", "serve"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from .protocol import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
