"""What a step expects (spec/vectors.md#expect): one result, or one expected error.

The generators write expectations in this form (from the reference, through
the oracle), the runner compares a harness's answers in it: neither needs the
reference to know what an expectation is. A result is expected whole: every
part of it is normative (PROT-22), warning messages, loop-key warning texts and
verdict messages byte for byte, a warning's ``code`` derived from its message
(CFG-34).
"""

from __future__ import annotations

from typing import Final

ENGINE_ORDER: Final = "order"
"""The member of an engine expectation that holds its partial order (ENG-139)."""


def error_expectation(code: str, message: str) -> dict[str, str]:
    """The expectation of a step that fails with an expected outcome (spec/vectors.md#expect):
    ``canonicalization`` with its exact message (CAN-35), ``type-error`` alone (PROT-23)."""
    if code == "canonicalization":
        return {"error": code, "message": message}
    return {"error": code}
