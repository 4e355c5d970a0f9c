"""Repetition of token blocks at the tail of one response (spec section 7, TXT-01)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import utf16
from .config import DEFAULT_TEXT_OPTIONS
from .jsvalues import finite_number

CODE_UNITS_PER_WINDOW_TOKEN = 64
"""Only the last ``maxWindowTokens * 64`` code units of a text are examined (TXT-02, TXT-03)."""


@dataclass(frozen=True)
class TextRepetition:
    """A block of ``period_tokens`` tokens repeated ``repeats`` times at the tail."""

    repeats: int
    period_tokens: int
    covered_tokens: int
    sample: str

    def to_json(self) -> dict[str, object]:
        return {
            "repeats": self.repeats,
            "periodTokens": self.period_tokens,
            "coveredTokens": self.covered_tokens,
            "sample": self.sample,
        }


def normalize_text(text: str) -> str:
    """Every run of JS whitespace becomes one space, then trim (MON-41)."""
    return utf16.JS_WHITESPACE_RUN.sub(" ", text).strip(" ")


def tokens(text: str) -> list[str]:
    """Split on runs of JS whitespace, dropping empty tokens (TXT-06)."""
    return [token for token in utf16.JS_WHITESPACE_RUN.split(text) if token]


def _option(options: Mapping[str, object], name: str) -> int:
    """An option as an integer; absent or null takes the default (TXT-01, CFG-18)."""
    value = options.get(name)
    if value is None:
        value = DEFAULT_TEXT_OPTIONS[name]
    number = finite_number(value)
    if number is None or not number.is_integer():
        raise ValueError(f"text option {name} must be a whole number, not {value!r}")
    return int(number)


def _repeats_at_tail(words: list[str], period: int) -> int:
    """How many consecutive copies of the last ``period`` tokens end ``words``."""
    count = len(words)
    block = words[count - period :]
    repeats = 1
    start = count - 2 * period
    while start >= 0 and words[start : start + period] == block:
        repeats += 1
        start -= period
    return repeats


def detect_text_repetition(
    text: str, options: Mapping[str, object] | None = None
) -> TextRepetition | None:
    """The longest-covering block repeated at the tail of ``text``, or None.

    TXT-09, TXT-13, TXT-14.

    ``options`` uses the wire names (``maxPeriodTokens``, ``minRepeats``,
    ``minCoveredTokens``, ``maxWindowTokens``); missing ones take defaults.
    """
    options = options or {}
    max_period = _option(options, "maxPeriodTokens")
    min_repeats = _option(options, "minRepeats")
    min_covered = _option(options, "minCoveredTokens")
    max_window = _option(options, "maxWindowTokens")

    budget = max_window * CODE_UNITS_PER_WINDOW_TOKEN
    # len() counts code points, never more than code units: the cheap test first.
    if len(text) > budget or utf16.code_unit_length(text) > budget:
        text = utf16.tail_code_units(text, budget)
    words = tokens(text)
    if max_window > 0:
        words = words[-max_window:]
    count = len(words)
    if count < max(min_covered, 2):
        return None

    best: TextRepetition | None = None
    for period in range(1, min(max_period, count // 2) + 1):
        repeats = _repeats_at_tail(words, period)
        covered = repeats * period
        qualifies = repeats >= min_repeats and covered >= min_covered
        if qualifies and (best is None or covered > best.covered_tokens):
            best = TextRepetition(repeats, period, covered, " ".join(words[count - period :]))
    return best
