"""Text repetition and the text detectors of the monitor (TXT-*, MON-*, MSG-*).

Expected values are worked out by hand from brief sections 4 and 6."""

from __future__ import annotations

import hashlib

import pytest
from doomloop_kit.jsvalue.utf16 import JS_WHITESPACE, tail_code_units
from doomloop_kit.reference import DoomLoopMonitor, detect_text_repetition, resolve_doom_loop_option
from doomloop_kit.reference.text import tokens

SMALL = {"minRepeats": 2, "minCoveredTokens": 2}


def monitor(option: object = True) -> DoomLoopMonitor:
    config = resolve_doom_loop_option(option).config
    assert config is not None
    return DoomLoopMonitor(config)


def test_smallest_period_wins_ties() -> None:
    found = detect_text_repetition("no no no no no no", {"minCoveredTokens": 6})
    assert found is not None
    assert found.to_json() == {"repeats": 6, "periodTokens": 1, "coveredTokens": 6, "sample": "no"}


def test_default_options() -> None:
    found = detect_text_repetition("Intro. " + "I am stuck. " * 5)
    assert found is not None
    assert (found.repeats, found.period_tokens, found.covered_tokens) == (5, 3, 15)
    assert found.sample == "I am stuck."
    assert detect_text_repetition("a " * 11) is None  # 11 tokens < minCoveredTokens 12
    assert detect_text_repetition("a " * 12) is not None
    # never fewer than two tokens, whatever minCoveredTokens says
    assert detect_text_repetition("a", {"minCoveredTokens": 0, "minRepeats": 1}) is None
    assert detect_text_repetition("a b", {"minCoveredTokens": 0, "minRepeats": 1}) is not None


@pytest.mark.parametrize("separator", list(JS_WHITESPACE))
def test_every_js_whitespace_separates(separator: str) -> None:
    assert tokens(f"a{separator}b{separator}{separator}c") == ["a", "b", "c"]


@pytest.mark.parametrize("character", ["\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u180e", "\u200b"])
def test_python_only_whitespace_does_not_separate(character: str) -> None:
    assert tokens(f"a{character}b") == [f"a{character}b"]


def test_window_limit() -> None:
    options = {"maxWindowTokens": 4, **SMALL, "minRepeats": 4}
    assert detect_text_repetition("a a a a b c d e", options) is None
    assert detect_text_repetition("b c d e a a a a", options) is not None


def test_budget_cuts_through_a_surrogate_pair() -> None:
    emoji = "\U0001f600"
    copy = "\ude00" + emoji * 30 + "zz"  # 63 code units
    text = emoji * 31 + "zz " + copy + " "  # 129 code units; the budget keeps 128
    assert tail_code_units(text, 128) == copy + " " + copy + " "
    options = {"maxWindowTokens": 2, "maxPeriodTokens": 1, **SMALL}
    found = detect_text_repetition(text, options)
    assert found is not None
    assert (found.repeats, found.sample) == (2, copy)


def test_within_response_verdict() -> None:
    verdict = monitor().record_assistant_text("I am stuck. " * 5)
    assert verdict is not None
    assert verdict.to_json() == {
        "detector": "text-repetition",
        "action": "observe",
        "streak": 5,
        "fingerprint": hashlib.sha256(b'"I am stuck."').hexdigest(),
        "message": 'Doom loop suspected: the response repeats "I am stuck." 5 times in a row. '
        "Stop repeating and take a different approach.",
    }
    stop = monitor().record_assistant_text("I am stuck. " * 6)
    assert stop is not None and stop.action == "stop"  # block is not allowed, stop still stops


def test_cross_step_streak() -> None:
    m = monitor()
    assert m.record_assistant_text("Retrying the same plan.") is None
    assert m.record_assistant_text("   ") is None  # neither counts nor resets
    verdict = m.record_assistant_text(" Retrying\tthe  same\nplan.\u3000")
    assert verdict is not None
    assert verdict.to_json() == {
        "detector": "text-streak",
        "action": "observe",
        "streak": 2,
        "fingerprint": "764fb75d0e16f75f0265b68d579c571e704b6ce9ea2b5dea784200cb701fe3df",
        "message": "Doom loop suspected: the assistant produced identical text for 2 consecutive "
        "turns. Stop repeating and take a different approach.",
    }
    m.reset_text_streak()
    assert m.record_assistant_text("Retrying the same plan.") is None
    assert m.get_state()["text"] == {"fingerprint": verdict.fingerprint, "streak": 1}


def test_stronger_verdict_wins_and_ties_go_to_within() -> None:
    m = monitor({"ladder": {"steer": 3, "stop": False}, "text": SMALL})
    first = m.record_assistant_text("a b a b")
    assert first is not None and (first.detector, first.action) == ("text-repetition", "observe")
    tie = m.record_assistant_text("a b a b")
    assert tie is not None and (tie.detector, tie.action) == ("text-repetition", "observe")
    stronger = m.record_assistant_text("a b a b")
    assert stronger is not None and (stronger.detector, stronger.action) == ("text-streak", "steer")


def test_disabled_text_leaves_state_untouched() -> None:
    m = monitor({"text": False})
    assert m.record_assistant_text("x " * 50) is None
    assert m.get_state() == {"tools": {}}
