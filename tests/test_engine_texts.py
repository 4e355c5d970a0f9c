"""The engine's own texts, code unit for code unit (ENG-102..ENG-107).

The expected strings are transcribed by hand from the engine brief §3.6.
"""

from __future__ import annotations

from doomloop_kit.engine import texts


def test_escalation_notice() -> None:
    """ENG-102: message, one space, the fixed sentence."""
    assert texts.escalation_notice("M.") == (
        "M. An escalated turn follows: use the additional guidance to change course."
    )


def test_advisor_instructions() -> None:
    """ENG-103."""
    assert texts.advisor_instructions("M.") == (
        "You are an escalation advisor. The executing model appears stuck in a loop: M. "
        "Diagnose why its approach is failing and give concrete, specific instructions for a "
        "DIFFERENT approach. Do not restate the problem."
    )


def test_malformed_arguments_inserts_the_raw_text_as_is() -> None:
    """ENG-104: the raw string is not escaped inside the text."""
    assert texts.malformed_arguments("t", '{"a": x') == (
        'Failed to parse tool call arguments for "t": The model provided invalid JSON. '
        'Raw arguments received: "{"a": x". Please provide valid JSON arguments for this '
        "tool call."
    )


def test_halt_seal_with_and_without_a_message() -> None:
    """ENG-106."""
    assert texts.halt_seal("M.") == "Run halted by doom-loop detection: M."
    assert texts.halt_seal(None) == "Run halted by doom-loop detection."


def test_block_fallback() -> None:
    """ENG-107."""
    assert texts.block_fallback("t") == (
        'Doom loop suspected: tool "t" is repeating identical calls. Repeating the call will '
        "not change the result. Take a different approach."
    )
