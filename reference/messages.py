"""The verdict messages, byte for byte (spec section 11, MSG-01)."""

from __future__ import annotations

from collections.abc import Sequence

from .jsvalues import number_to_string

_CLOSING = "Take a different approach, or explain why repetition is required."
_TEXT_CLOSING = "Stop repeating and take a different approach."


def repeated_call(tool_name: str) -> str:
    """A call repeated on its own across rounds (MSG-04)."""
    return (
        f'Doom loop suspected: this exact "{tool_name}" call has been repeated across '
        f"consecutive rounds. Repeating it will not change the result. {_CLOSING}"
    )


def round_identity_summary(round_set: Sequence[str]) -> str:
    """First 8 hex of up to three members joined by ``+``, then the rest counted (MSG-05)."""
    head = "+".join(member[:8] for member in round_set[:3])
    rest = len(round_set) - 3
    return f"{head}+{rest} more\u2026" if rest > 0 else f"{head}\u2026"


def repeated_fan_out(tool_name: str, rounds: int, round_set: Sequence[str]) -> str:
    """A declared fan-out of several calls repeated as a whole (MSG-04)."""
    return (
        f'Doom loop suspected: tool "{tool_name}" was invoked in {number_to_string(rounds)} '
        f"consecutive rounds with the same set of {len(round_set)} parallel calls "
        f"(round identity {round_identity_summary(round_set)}). Reissuing the same fan-out "
        f"will not change the results. {_CLOSING}"
    )


def repeated_arguments(tool_name: str, rounds: int, fingerprint: str) -> str:
    """A declared single-call round repeated with identical arguments (MSG-04)."""
    return (
        f'Doom loop suspected: tool "{tool_name}" was invoked in {number_to_string(rounds)} '
        f"consecutive rounds with identical arguments (fingerprint {fingerprint[:16]}\u2026). "
        f"Repeating the call will not change the result. {_CLOSING}"
    )


def repeated_block(sample: str, repeats: int) -> str:
    """A token block repeated within one response (MSG-06)."""
    return (
        f'Doom loop suspected: the response repeats "{sample}" {number_to_string(repeats)} '
        f"times in a row. {_TEXT_CLOSING}"
    )


def repeated_text(streak: float) -> str:
    """Identical text across consecutive steps (MSG-06)."""
    return (
        "Doom loop suspected: the assistant produced identical text for "
        f"{number_to_string(streak)} consecutive turns. {_TEXT_CLOSING}"
    )
