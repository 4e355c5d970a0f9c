"""The conformance kit: the runner, fuzzing, and the harness library for Python ports."""

from .serving import Port, PortError, serve

__all__ = ["Port", "PortError", "serve"]
