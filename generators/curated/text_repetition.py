"""Text repetition (spec section 7) and the monitor's text detectors (MON-40..51)."""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from doomloop_kit.vectorset.files import ABSENT

from ..steps import Scenario, get_state, op, reset_text, scenario, text

FAMILY = "text"
DESCRIPTION = (
    "text repetition: separators, budget, periods, window, and the monitor's text verdicts"
)

LOOSE = {"minRepeats": 2, "minCoveredTokens": 2}
STEER_BELOW_ESCALATE = {
    "ladder": {"observe": False, "steer": 1, "escalate": 4, "block": False, "stop": False},
    "escalation": {"model": "m"},
}
"""Steer and escalate enabled, nothing else: which of the two wins is the strength order."""

JS_WHITESPACE = {
    "tab": "\t", "lf": "\n", "vt": "\x0b", "ff": "\x0c", "cr": "\r", "space": " ",
    "nbsp": "\xa0", "ogham": "\u1680", "en-quad": "\u2000", "em-quad": "\u2001",
    "en-space": "\u2002", "em-space": "\u2003", "three-per-em": "\u2004",
    "four-per-em": "\u2005", "six-per-em": "\u2006", "figure": "\u2007",
    "punctuation": "\u2008", "thin": "\u2009", "hair": "\u200a", "line-sep": "\u2028",
    "para-sep": "\u2029", "narrow-nbsp": "\u202f", "math": "\u205f",
    "ideographic": "\u3000", "bom": "\ufeff",
}  # fmt: skip
NOT_SEPARATORS = {
    "fs": "\x1c",
    "gs": "\x1d",
    "rs": "\x1e",
    "us": "\x1f",
    "nel": "\x85",
    "zwsp": "\u200b",
}

LONG_TOKEN = "\U0001f600" * 32 + "x"  # 65 code units


def _detect(value: str, options: dict[str, Any] | None = LOOSE) -> dict[str, Any]:
    step = op("detectTextRepetition", text=value)
    if options is not None:
        step["options"] = options
    return step


def _text(
    name: str,
    pins: str,
    spec: list[str],
    steps: list[dict[str, Any]],
    option: Any = ABSENT,
    tags: list[str] | None = None,
) -> Scenario:
    return scenario(name, pins, spec, steps, tags=["text", *(tags or [])], option=option)


SCENARIOS: list[dict[str, Any]] = (
    [
        _text(
            f"separator-{label}",
            f"U+{ord(ch):04X} is JS whitespace: 'ok' four times separated by it repeats 4 times",
            ["TXT-04", "TXT-05", "TXT-06"],
            [_detect(ch.join(["ok"] * 4)), _detect(ch + ch.join(["ok"] * 4) + ch + ch)],
            tags=["separator"],
        )
        for label, ch in JS_WHITESPACE.items()
    ]
    + [
        _text(
            f"not-separator-{label}",
            f"U+{ord(ch):04X} is not JS whitespace (Python str.split would split on it): one token, no result",
            ["TXT-04", "TXT-06", "TXT-08", "DIV-05"],
            [_detect(ch.join(["ok"] * 4)), _detect(ch.join(["ok"] * 4) + " ok")],
            tags=["separator"],
        )
        for label, ch in NOT_SEPARATORS.items()
    ]
    + [
        _text(
            "monitor-normalises-whitespace",
            "recordAssistantText collapses every JS whitespace run to one space: variants of one text form a cross-step streak",
            ["MON-41", "MON-45", "MON-46"],
            [
                text("I am stuck."),
                text("I\u3000am\u00a0\u00a0stuck."),
                text("\n I am\ufeffstuck. \t"),
                text("I am\x85stuck."),
                get_state(),
            ],
            option=True,
            tags=["monitor"],
        ),
        _text(
            "budget-cuts-surrogate-pair",
            "the code-unit budget (maxWindowTokens x 64) cuts through a surrogate pair: the cut token no longer matches",
            ["TXT-02", "TXT-18", "CONF-03"],
            [
                _detect(" ".join([LONG_TOKEN] * 3), {**LOOSE, "maxWindowTokens": 2}),
                _detect(" ".join([LONG_TOKEN] * 3), {**LOOSE, "maxWindowTokens": 4}),
                _detect(" ".join([LONG_TOKEN] * 3), {**LOOSE, "maxWindowTokens": 3}),
            ],
            tags=["budget"],
        ),
        _text(
            "period-tie-smaller-wins",
            "x repeated 8 times: periods 1, 2 and 4 all cover 8 tokens; the smallest period wins",
            ["TXT-09", "TXT-12", "TXT-13"],
            [_detect(" ".join(["x"] * 8)), _detect(" ".join(["a", "b"] * 6))],
            tags=["period"],
        ),
        _text(
            "period-longer-covers-more",
            "a longer period wins only when it covers strictly more tokens",
            ["TXT-09", "TXT-13", "TXT-14"],
            [
                _detect("a a b a a b a a b a a b"),
                _detect("p q r s p q r s p q r s", {**LOOSE, "maxPeriodTokens": 3}),
                _detect("p q r s p q r s p q r s", {**LOOSE, "maxPeriodTokens": 4}),
            ],
            tags=["period"],
        ),
        _text(
            "window-limit",
            "only the last maxWindowTokens tokens are examined",
            ["TXT-19", "TXT-09"],
            [
                _detect(" ".join(["z"] * 10), {**LOOSE, "maxWindowTokens": 6}),
                _detect("a a a a a a b b b", {**LOOSE, "maxWindowTokens": 3}),
                _detect("a a a a a a b b b", {**LOOSE, "maxWindowTokens": 400}),
            ],
            tags=["window"],
        ),
        _text(
            "minimum-tokens",
            "no result below max(minCoveredTokens, 2) tokens, even with minCoveredTokens 1",
            ["TXT-08"],
            [
                _detect("a", {"minRepeats": 1, "minCoveredTokens": 1}),
                _detect("a a", {"minRepeats": 1, "minCoveredTokens": 1}),
                _detect("a a a a", {"minRepeats": 2, "minCoveredTokens": 5}),
                _detect("a a a a a", {"minRepeats": 2, "minCoveredTokens": 5}),
                _detect("", {"minRepeats": 1, "minCoveredTokens": 1}),
            ],
            tags=["minimum"],
        ),
        _text(
            "defaults",
            "default options: 4 repeats covering 12 tokens are needed",
            ["TXT-16", "CFG-17", "TXT-14"],
            [
                _detect("one two three " * 4, None),
                _detect("one two three " * 3, None),
                _detect("a b " * 5, None),
                _detect("a b " * 6, None),
            ],
            tags=["defaults"],
        ),
        _text(
            "within-response-verdict",
            "a response repeating 'one two three' 4 times gives a text-repetition verdict (streak = repeats)",
            ["MON-43", "MON-44", "MON-49", "MSG-06"],
            [text("one two three " * 4), text("one two three " * 6)],
            option=True,
            tags=["monitor", "within"],
        ),
        _text(
            "cross-step-verdict",
            "identical texts across steps: text-streak verdicts observe at 2, never block (allowBlock false), stop at 6",
            ["MON-45", "MON-46", "MON-47", "LAD-04"],
            [text("Let me check that again.")] * 7 + [get_state()],
            option=True,
            tags=["monitor", "across"],
        ),
        _text(
            "tie-within-wins",
            "within-response and cross-step verdicts with the same action: the within-response verdict is returned; stop across steps wins",
            ["MON-48"],
            [text("one two three " * 4)] * 6,
            option=True,
            tags=["monitor", "within", "across"],
        ),
        _text(
            "escalate-repetition-beats-steer-streak",
            "a text-repetition verdict at the escalate rung beats a text-streak verdict at the steer rung: escalate is the stronger action",
            ["MON-48", "LAD-01"],
            [text("stuck " * 12)],
            option=STEER_BELOW_ESCALATE,
            tags=["monitor", "within", "across"],
        ),
        _text(
            "escalate-streak-beats-steer-repetition",
            "a text-streak verdict at the escalate rung beats a text-repetition verdict at the steer rung: escalate is the stronger action",
            ["MON-48", "LAD-01"],
            [text("stuck stuck")] * 4,
            option={**STEER_BELOW_ESCALATE, "text": LOOSE},
            tags=["monitor", "within", "across"],
        ),
        _text(
            "empty-text-no-op",
            "empty or all-whitespace text neither counts nor resets the streak",
            ["MON-42"],
            [text("Same again."), text(""), text(" \u3000\n"), text("Same again."), get_state()],
            option=True,
            tags=["monitor"],
        ),
        _text(
            "reset-text-streak",
            "resetTextStreak forgets the text streak only; a different text restarts it too",
            ["MON-51", "MON-46"],
            [
                text("Same again."),
                text("Same again."),
                reset_text(),
                text("Same again."),
                text("Other."),
                text("Same again."),
                get_state(),
            ],
            option=True,
            tags=["monitor"],
        ),
        _text(
            "text-disabled",
            "text: false disables both text detectors: no verdicts, no text streak",
            ["MON-59", "CFG-14"],
            [text("one two three " * 5)] * 3 + [get_state()],
            option={"text": False},
            tags=["monitor"],
        ),
        _text(
            "text-options-configured",
            "configured text options (minRepeats 2, minCoveredTokens 2) reach the within-response detector",
            ["CFG-16", "MON-43"],
            [text("go go"), text("go go go"), text("stop now stop now")],
            option={"text": {"minRepeats": 2, "minCoveredTokens": 2}},
            tags=["monitor", "within"],
        ),
    ]
)

# Added for the mutation job (tests/mutation/REPORT.md): facts that no other
# vector pinned, each named after the spec statement it holds to.
SCENARIOS += [
    _text(
        "budget-exactly-64-units-per-token",
        "the budget is exactly maxWindowTokens x 64 code units: 34 x 64 = 2176 units of 66-unit tokens keep 32 whole repeats (63 or 65 units per token would keep 31 or 33)",
        ["TXT-02", "TXT-18", "TXT-09", "TXT-12"],
        [
            _detect(
                " ".join(["a" * 66] * 37),
                {**LOOSE, "maxWindowTokens": 34, "maxPeriodTokens": 1},
            )
        ],
        tags=["budget"],
    ),
    _text(
        "window-of-one-token",
        "maxWindowTokens 1 keeps one token, fewer than two: no result even when the text repeats",
        ["TXT-19", "TXT-08"],
        [_detect("a a a", {**LOOSE, "maxWindowTokens": 1})],
        tags=["window"],
    ),
]

SCENARIOS += [
    _text(
        "budget-counts-code-units-not-code-points",
        "'X X' of 127 code points but 129 code units (X starts with an astral character) exceeds a 128-unit budget: the cut splits the first X, so nothing repeats",
        ["TXT-02", "TXT-18", "DATA-04"],
        [_detect(" ".join(["\U0001f600" + "a" * 62] * 2), {**LOOSE, "maxWindowTokens": 2})],
        tags=["budget", "astral"],
    ),
    _text(
        "budget-cut-through-astral-tokens",
        "a long text of astral-character tokens is cut to its last 192 code units (96 astral characters) and still repeats",
        ["TXT-02", "TXT-18", "TXT-19"],
        [_detect(("\U0001f600\U0001f600 " * 100).strip(), {**LOOSE, "maxWindowTokens": 3})],
        tags=["budget", "astral"],
    ),
]

SCENARIOS += [
    _text(
        "min-repeats-one-accepts-a-single-copy",
        "with minRepeats 1 a block that occurs once qualifies: 'a b' reports 'b' (repeats starts at 1); with minCoveredTokens 2, 'x y z w' reports the two-token block 'z w'",
        ["TXT-10", "TXT-11", "TXT-12"],
        [
            _detect("a b", {"minRepeats": 1, "minCoveredTokens": 1}),
            _detect("x y z w", {"minRepeats": 1, "minCoveredTokens": 2}),
        ],
        tags=["thresholds"],
    ),
]
