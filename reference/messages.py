"""Every text the monitor makes observable, byte for byte.

Verdict messages (spec section 11), configuration warnings (CFG-35..CFG-38),
loop-key fallback warnings (KEY-18..KEY-22), canonicalization error messages
(CAN-31..CAN-34) and the monitor's two logs (MON-62, STATE-34). Numbers are
formatted as JS ``String(n)`` formats them (MSG-09).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from doomloop_kit.jsvalue.values import js_string, number_to_string

# -- configuration warnings (CFG-34..CFG-38) -------------------------------------

BLOCK_WITHOUT_STOP: Final = (
    "[DoomLoop] ladder has block enabled with stop disabled: a model that keeps re-issuing a "
    "blocked call loops indefinitely (each blocked round still costs a model request). Bound "
    "the run with stopWhen, or enable the stop rung."
)
ESCALATION_UNUSED: Final = (
    "[DoomLoop] escalation config provided but the escalate ladder rung is disabled; set "
    "ladder.escalate to a streak threshold for recovery to trigger."
)
ESCALATION_RUNG_UNCONFIGURED: Final = (
    "[DoomLoop] ladder.escalate is enabled but no escalation config (model/advisor) was "
    "provided; the rung is skipped and verdicts fall through to weaker rungs."
)


def dead_rung(weak: str, weak_threshold: float, strong: str, strong_threshold: float) -> str:
    """A weak rung shadowed by the first stronger rung at or below its threshold (CFG-36)."""
    return (
        f'[DoomLoop] ladder rung "{weak}" ({number_to_string(weak_threshold)}) can never fire: '
        f'stronger rung "{strong}" ({number_to_string(strong_threshold)}) already wins at that '
        "streak (strongest crossed rung is applied)."
    )


_DEAD_RUNG: Final = re.compile(
    r'\[DoomLoop\] ladder rung "(?P<rung>[a-z]+)" \([^)]*\) can never fire: '
    r'stronger rung "(?P<shadowedBy>[a-z]+)" \([^)]*\) already wins at that streak '
    r"\(strongest crossed rung is applied\)\."
)
WARNING_CODES: Final = {
    BLOCK_WITHOUT_STOP: "block-without-stop",
    ESCALATION_UNUSED: "escalation-unused",
    ESCALATION_RUNG_UNCONFIGURED: "escalation-rung-unconfigured",
}
"""The kit's code for each fixed warning text (CFG-34)."""


def warning_data(message: str) -> dict[str, str]:
    """The wire form of a configuration warning, derived from its message alone (CFG-34).

    ``{code, message}`` for a fixed text, ``{code: "dead-rung", rung,
    shadowedBy, message}`` for the dead-rung template, ``{code:
    "unclassified", message}`` for any other text.
    """
    if message in WARNING_CODES:
        return {"code": WARNING_CODES[message], "message": message}
    dead = _DEAD_RUNG.fullmatch(message)
    if dead is not None:
        return {"code": "dead-rung", **dead.groupdict(), "message": message}
    return {"code": "unclassified", "message": message}


# -- loop-key fallback warnings (KEY-18..KEY-22) ------------------------------------

LOOP_KEY_EMPTY: Final = (
    "loopKey is an empty field list, which would give every call to this tool the same "
    "identity; falling back to full arguments. Use `false` to exempt the tool."
)
LOOP_KEY_RETURNED_UNDEFINED: Final = (
    "loopKey returned undefined; falling back to full arguments. Return null to exempt a "
    "call, or a value to use as identity."
)


def loop_key_fields_absent(names: Sequence[str]) -> str:
    """Every listed string field is absent (KEY-19)."""
    return (
        f"loopKey fields [{', '.join(names)}] are all absent from the arguments, which would "
        "give every call the same identity; falling back to full arguments."
    )


def loop_key_threw(reason: str) -> str:
    """The loop-key function threw; ``reason`` is the error's message (KEY-20)."""
    return f"loopKey threw ({reason}); falling back to full arguments"


def loop_key_unsupported(js_type: str) -> str:
    """Any other declaration shape; ``js_type`` is JS ``typeof`` (KEY-22)."""
    return f"loopKey has unsupported shape ({js_type}); falling back to full arguments"


# -- canonicalization errors (CAN-31..CAN-34) ----------------------------------------

CANONICAL_DEPTH: Final = (
    "Cannot canonicalize key material nested deeper than 64 levels for doom-loop fingerprinting"
)
CANONICAL_NON_FINITE: Final = (
    "Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: "
    "RFC 8785 has no representation"
)
CANONICAL_BIGINT: Final = (
    "Cannot canonicalize bigint for doom-loop fingerprinting: RFC 8785 has no representation "
    "(convert to string or number in loopKey)"
)
CANONICAL_CIRCULAR: Final = "Cannot canonicalize circular key material for doom-loop fingerprinting"

# -- monitor logs (MON-62, STATE-34) ---------------------------------------------------


def declare_unfingerprintable(tool_name: str, round: float) -> str:
    """First ``console.warn`` argument when a declared call cannot be fingerprinted (MON-62)."""
    return (
        f'[DoomLoop] could not fingerprint a "{tool_name}" call while declaring round '
        f"{js_string(round)}; excluding it from the round set:"
    )


INVALID_STATE: Final = "[DoomLoop] Ignoring invalid persisted doom-loop state"
"""The one ``console.warn`` argument of a restore given a non-object (STATE-34)."""

# -- verdict messages (MSG-01..MSG-08) ---------------------------------------------------------

_CLOSING = "Take a different approach, or explain why repetition is required."
_TEXT_CLOSING = "Stop repeating and take a different approach."


def repeated_call(tool_name: str) -> str:
    """A call repeated on its own across rounds: the per-call template (MSG-01, MSG-04)."""
    return (
        f'Doom loop suspected: this exact "{tool_name}" call has been repeated across '
        f"consecutive rounds. Repeating it will not change the result. {_CLOSING}"
    )


def round_identity_summary(round_set: Sequence[str]) -> str:
    """First 8 hex of up to three members joined by ``+``, then the rest counted (MSG-05)."""
    head = "+".join(member[:8] for member in round_set[:3])
    rest = len(round_set) - 3
    return f"{head}+{rest} more\u2026" if rest > 0 else f"{head}\u2026"


def repeated_fan_out(tool_name: str, rounds: float, round_set: Sequence[str]) -> str:
    """A declared fan-out repeated as a whole: the fan-out template (MSG-01, MSG-04)."""
    return (
        f'Doom loop suspected: tool "{tool_name}" was invoked in {number_to_string(rounds)} '
        f"consecutive rounds with the same set of {len(round_set)} parallel calls "
        f"(round identity {round_identity_summary(round_set)}). Reissuing the same fan-out "
        f"will not change the results. {_CLOSING}"
    )


def repeated_arguments(tool_name: str, rounds: float, fingerprint: str) -> str:
    """A single declared call repeated: the single-call template (MSG-01, MSG-04)."""
    return (
        f'Doom loop suspected: tool "{tool_name}" was invoked in {number_to_string(rounds)} '
        f"consecutive rounds with identical arguments (fingerprint {fingerprint[:16]}\u2026). "
        f"Repeating the call will not change the result. {_CLOSING}"
    )


def repeated_block(sample: str, repeats: float) -> str:
    """A token block repeated within one response: the repetition template (MSG-06)."""
    return (
        f'Doom loop suspected: the response repeats "{sample}" {number_to_string(repeats)} '
        f"times in a row. {_TEXT_CLOSING}"
    )


def repeated_text(streak: float) -> str:
    """Identical text across consecutive steps: the text-streak template (MSG-01)."""
    return (
        "Doom loop suspected: the assistant produced identical text for "
        f"{number_to_string(streak)} consecutive turns. {_TEXT_CLOSING}"
    )
