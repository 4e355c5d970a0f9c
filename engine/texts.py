"""Texts the engine itself writes to the model (spec §15.4.1, ENG-102..ENG-107).

Verdict messages come from the monitor (MSG-*); these are the engine's own
wrappers and fixed texts, code unit for code unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from doomloop_kit.jsvalue.values import UNDEFINED, js_string

ESCALATION_NOTICE_SUFFIX: Final = (
    "An escalated turn follows: use the additional guidance to change course."
)
HALT_PREFIX: Final = "Run halted by doom-loop detection: "
FINAL_DIRECTIVE: Final = (
    "You have reached the tool-use limit, and tools are no longer available. Do not attempt "
    "to call any more tools. Using the information you already have, write your final answer now."
)
SKIPPED: Final = "Tool execution skipped: step limit reached."
"""The output, sent as it is, of a call left unanswered by the ``stopWhen`` round (ENG-147)."""
REJECTED_BY_USER: Final = "Rejected by user"
NOT_EXECUTABLE: Final = "Tool not found or not executable"


def escalation_notice(message: str) -> str:
    """The verdict message, one space, the fixed sentence (ENG-102)."""
    return f"{message} {ESCALATION_NOTICE_SUFFIX}"


def advisor_instructions(message: str) -> str:
    """The advisor's default instructions around the verdict message (ENG-103)."""
    return (
        "You are an escalation advisor. The executing model appears stuck in a loop: "
        f"{message} Diagnose why its approach is failing and give concrete, specific "
        "instructions for a DIFFERENT approach. Do not restate the problem."
    )


def malformed_arguments(tool_name: str, raw: str) -> str:
    """The parse-error text of a call whose arguments are not JSON (ENG-104)."""
    return (
        f'Failed to parse tool call arguments for "{tool_name}": The model provided invalid '
        f'JSON. Raw arguments received: "{raw}". Please provide valid JSON arguments for this '
        "tool call."
    )


def halt_seal(verdict: object) -> str:
    """The output text of a call sealed at a stop gate (ENG-106): the prefix, then JS
    ``String(verdict.message)``, which a verdict that is not an object, or has no
    ``message``, makes ``undefined``."""
    message = verdict.get("message", UNDEFINED) if isinstance(verdict, Mapping) else UNDEFINED
    return HALT_PREFIX + js_string(message)


def block_fallback(tool_name: str) -> str:
    """The block text used when a verdict carries no message (ENG-107)."""
    return (
        f'Doom loop suspected: tool "{tool_name}" is repeating identical calls. Repeating the '
        "call will not change the result. Take a different approach."
    )


def final_directive(allow_final_response: object) -> str:
    """The user message closing the final dispatch's input; ``""``: none (ENG-147).

    ``true`` (or absent) gives the fixed text, a string is the directive
    itself, and any other value (``0``, ``null``, an object) gives none.
    """
    if allow_final_response is True:
        return FINAL_DIRECTIVE
    if isinstance(allow_final_response, str):
        return allow_final_response
    return ""
