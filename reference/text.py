"""Repetition of token blocks at the tail of one response (spec section 7, TXT-02..TXT-23)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from doomloop_kit.jsvalue import utf16
from doomloop_kit.jsvalue.values import (
    UNDEFINED,
    max_of,
    min_of,
    slice_start,
    to_number,
    to_numeric,
)

from .config import DEFAULT_TEXT_OPTIONS

CODE_UNITS_PER_WINDOW_TOKEN = 64
"""Only the last ``maxWindowTokens * 64`` code units of a text are examined (TXT-02, TXT-18)."""


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
    """Split on runs of JS whitespace, dropping empty tokens (TXT-05, TXT-06)."""
    return [token for token in utf16.JS_WHITESPACE_RUN.split(text) if token]


def _option(options: Mapping[str, object], name: str) -> object:
    """An option as given; absent, undefined or null takes the default (TXT-16)."""
    value = options.get(name, UNDEFINED)
    return DEFAULT_TEXT_OPTIONS[name] if value is None or value is UNDEFINED else value


def _at_least(count: float, option: object) -> bool:
    """``count >= option`` as JS compares them: as doubles, a bigint exactly,
    NaN never (TXT-20, TXT-22)."""
    return count >= to_numeric(option)


def _cut(text: str, start: int) -> str:
    """The code units of ``text`` from code unit ``start`` on (TXT-18)."""
    if start <= 0:
        return text
    units = text.encode("utf-16-le", "surrogatepass")
    return units[2 * start :].decode("utf-16-le", "surrogatepass")


def _window(text: str, max_window: object) -> list[str]:
    """The kept tokens: the budget cut, then the token window, as JS slices (TXT-18, TXT-19).

    ``budget = maxWindowTokens * 64``; the text becomes ``text.slice(-budget)``
    only when it is longer than ``budget``, then its tokens become
    ``tokens.slice(-maxWindowTokens)``. A bigint throws here (TXT-23).
    """
    window = to_number(max_window)
    budget = window * CODE_UNITS_PER_WINDOW_TOKEN
    # len() counts code points, never more than code units: the cheap test first.
    if len(text) > budget or utf16.code_unit_length(text) > budget:
        if 0 < budget < math.inf and float(budget).is_integer():
            text = utf16.tail_code_units(text, int(budget))  # O(budget), the usual case
        else:
            text = _cut(text, slice_start(utf16.code_unit_length(text), -budget))
    words = tokens(text)
    return words[slice_start(len(words), -window) :]


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
    """The longest-covering block repeated at the tail of ``text``, or None (TXT-02..TXT-14).

    ``options`` uses the wire names (``maxPeriodTokens``, ``minRepeats``,
    ``minCoveredTokens``, ``maxWindowTokens``); missing ones take defaults.
    Every option is used as a JS number (TXT-17) in the order of TXT-21; a
    value JS cannot make a number raises :class:`~doomloop_kit.jsvalue.values.JsTypeError` (TXT-23).
    """
    options = options or {}
    max_period = _option(options, "maxPeriodTokens")
    min_repeats = _option(options, "minRepeats")
    min_covered = _option(options, "minCoveredTokens")

    words = _window(text, _option(options, "maxWindowTokens"))
    count = len(words)
    fewest = max_of(to_number(min_covered), 2.0)  # NaN when minCoveredTokens is NaN (TXT-20)
    if count < fewest:
        return None
    longest = min_of(to_number(max_period), float(count // 2))

    best: TextRepetition | None = None
    period = 1
    while period <= longest:
        repeats = _repeats_at_tail(words, period)
        covered = repeats * period
        qualifies = _at_least(repeats, min_repeats) and _at_least(covered, min_covered)
        if qualifies and (best is None or covered > best.covered_tokens):
            best = TextRepetition(repeats, period, covered, " ".join(words[count - period :]))
        period += 1
    return best
