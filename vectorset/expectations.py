"""What a step expects (spec/vectors.md#expect): one result, or one expected error.

The generators write expectations in this form (from the reference, through
the oracle), the runner compares a harness's answers in it: neither needs the
reference to know what an expectation is.
"""

from __future__ import annotations

from typing import Final

ENGINE_ORDER: Final = "order"
"""The member of an engine expectation that holds its partial order (ENG-139)."""


def normative(op: str, result: object) -> object:
    """The part of a wire result that a port must reproduce (spec/vectors.md#expect).

    Every part is normative (PROT-22): warning messages, loop-key warning
    texts and verdict messages are compared byte for byte, and a warning's
    ``code`` is derived from its message (CFG-34). The projection is the
    identity; it stays the single place where that could change.
    """
    del op
    return result


def error_expectation(code: str, message: str) -> dict[str, str]:
    """The expectation of a step that fails with an expected outcome (spec/vectors.md#expect):
    ``canonicalization`` with its exact message (CAN-35), ``type-error`` alone (PROT-23)."""
    if code == "canonicalization":
        return {"error": code, "message": message}
    return {"error": code}
