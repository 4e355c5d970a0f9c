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


def test_halt_seal_writes_the_verdict_message_as_js_string_does() -> None:
    """ENG-106: the prefix and JS String(verdict.message), as the SDK showed (issue 30 R4)."""
    prefix = "Run halted by doom-loop detection: "
    assert texts.halt_seal({"message": "M."}) == prefix + "M."
    assert texts.halt_seal({"message": ""}) == prefix
    assert texts.halt_seal({"message": None}) == prefix + "null"
    assert texts.halt_seal({"message": 5}) == prefix + "5"
    assert texts.halt_seal({"message": {"a": 1}}) == prefix + "[object Object]"
    assert texts.halt_seal({"message": ["a", None, ["b", "c"]]}) == prefix + "a,,b,c"
    no_message: tuple[object, ...] = ({}, "stuck", 5, True, [])
    for verdict in no_message:  # no message member to read
        assert texts.halt_seal(verdict) == prefix + "undefined"


def test_block_fallback() -> None:
    """ENG-107."""
    assert texts.block_fallback("t") == (
        'Doom loop suspected: tool "t" is repeating identical calls. Repeating the call will '
        "not change the result. Take a different approach."
    )
