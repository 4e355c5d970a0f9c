"""Behaviour no other vector pinned (issue 14, item 1: "every gap pinned").

Each scenario closes one gap named by a surviving mutant of a port
(tests/mutation/port-survivors.toml, ``kind = "unpinned"``) or by the issue's
list: falsy ``0`` text options, non-boolean ``enabled``, null and depth-limit
key material on the recording path, whitespace-run and U+2000..U+200A token
edges, declared-set corner cases, per-call count baselines, text verdicts at
the block rung and with both detectors firing, primitive restored counts.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from doomloop_kit.reference import fingerprint_tool_call
from doomloop_kit.vectorset.files import ABSENT

from ..steps import (
    UNDEFINED,
    Scenario,
    bigint,
    declare,
    get_state,
    nest,
    op,
    record,
    restore,
    scenario,
    text,
)

FAMILY = "gaps"
DESCRIPTION = (
    "behaviour no other vector pinned: one fact per vector, named by a surviving mutant or issue 14"
)

NO12 = " ".join(["no"] * 12)
"""12 tokens, period 1: the shortest default within-response hit (repeats 12)."""
ABAB = "a b a b"
"""Period 2 repeated twice: a hit once minRepeats and minCoveredTokens are 2."""
ABABAB = "a b a b a b"
"""Period 2 repeated three times."""
TWO = {"minRepeats": 2, "minCoveredTokens": 2}
OBSERVE_ONLY = {"observe": 1, "block": False, "stop": False}
FP_T_A = fingerprint_tool_call("t", "a")


def _gap(
    name: str,
    pins: str,
    spec: list[str],
    steps: list[dict[str, Any]],
    *,
    tags: list[str],
    option: Any = ABSENT,
) -> Scenario:
    return scenario(name, pins, spec, steps, tags=["gaps", *tags], option=option)


def _detect(name: str, pins: str, spec: list[str], value: str, **options: Any) -> dict[str, Any]:
    return _gap(
        name,
        pins,
        ["TXT-17", *spec],
        [op("detectTextRepetition", text=value, options=options)],
        tags=["text"],
    )


def _enabled(name: str, pins: str, enabled: Any) -> dict[str, Any]:
    return _gap(
        name,
        pins,
        ["MON-59", "CFG-16"],
        [text(NO12)],
        tags=["text"],
        option={"text": {"enabled": enabled}, "ladder": {"observe": 1}},
    )


# -- falsy 0 text options (CFG-16: `??`, not `||`) --------------------------------------------

FALSY_ZERO: list[dict[str, Any]] = [
    _gap(
        "resolve-text-min-repeats-zero-is-kept",
        "a text option 0 is present and kept by resolution (JS ??, not ||): minRepeats resolves to 0",
        ["CFG-16", "CFG-45"],
        [op("resolveOption", option={"text": {"minRepeats": 0}})],
        tags=["config"],
    ),
    _gap(
        "resolve-text-window-zero-is-kept",
        "maxWindowTokens 0 is present and kept by resolution (JS ??, not ||)",
        ["CFG-16", "CFG-45"],
        [op("resolveOption", option={"text": {"maxWindowTokens": 0}})],
        tags=["config"],
    ),
    _detect(
        "detect-min-covered-zero-is-kept",
        "detectTextRepetition minCoveredTokens 0 is kept, not defaulted to 12: two repeats of a 2-token block qualify",
        ["TXT-16", "TXT-12"],
        ABAB,
        minCoveredTokens=0,
        minRepeats=2,
    ),
    _gap(
        "monitor-window-zero-examines-everything",
        "a monitor with text.maxWindowTokens 0 runs the within-response detector on the whole text (slice(-0))",
        ["CFG-16", "TXT-18", "TXT-19", "MON-43"],
        [text(" ".join(["no"] * 500))],
        tags=["text"],
        option={"text": {"maxWindowTokens": 0}, "ladder": {"observe": 1}},
    ),
]

# -- non-boolean enabled (MON-59; null/undefined fall back, CFG-16, CFG-46) ---------------------

ENABLED: list[dict[str, Any]] = [
    _enabled(
        "enabled-null-is-default",
        "text.enabled null falls back to the default true (??): text verdicts",
        None,
    ),
    _enabled(
        "enabled-undefined-is-default",
        "text.enabled undefined is absent: the default true, text verdicts",
        UNDEFINED,
    ),
    _enabled(
        "enabled-false-disables", "text.enabled false turns both text detectors off: null", False
    ),
    _enabled("enabled-string-yes-enables", 'text.enabled "yes" is truthy: text verdicts', "yes"),
    _enabled("enabled-one-enables", "text.enabled 1 is truthy: text verdicts", 1),
    _enabled("enabled-minus-one-enables", "text.enabled -1 is truthy: text verdicts", -1),
]


def _record_nested(name: str, pins: str, depth: int) -> dict[str, Any]:
    return _gap(
        name,
        pins,
        ["MON-15", "CAN-15", "CAN-16", "CAN-17"],
        [record("t", nest(depth, 0), 0)],
        tags=["fingerprint", "canonical"],
        option=True,
    )


# -- key material on the recording path (MON-08, MON-15, CAN-15..CAN-17) ------------------------

KEY_MATERIAL: list[dict[str, Any]] = [
    _gap(
        "record-null-key-material",
        "recordToolCall with key material null fingerprints it (no memo lookup): the second round repeats it",
        ["MON-15", "FP-02", "MON-26"],
        [record("t", None, 0), record("t", None, 1)],
        tags=["fingerprint"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "declare-null-key-material",
        "declareRound with key material null declares it: its record is a member of a two-call fan-out",
        ["MON-08", "MON-09", "MON-27"],
        [
            declare(0, [("t", None), ("t", "x")]),
            record("t", None, 0),
            record("t", "x", 0),
            declare(1, [("t", None), ("t", "x")]),
            record("t", None, 1),
        ],
        tags=["fingerprint", "declared"],
        option={"ladder": {"observe": 1}},
    ),
    _record_nested(
        "record-key-material-at-depth-limit",
        "recordToolCall accepts key material nested 64 levels (the key material itself is depth 0)",
        64,
    ),
    _record_nested(
        "record-key-material-past-depth-limit",
        "recordToolCall fails with the canonicalization error for key material nested 65 levels",
        65,
    ),
    _gap(
        "declare-key-material-past-depth-limit",
        "declareRound leaves out a call nested 65 levels and keeps the one at 64: the 64-level call is a single-member set",
        ["MON-08", "MON-09", "CAN-16", "CAN-17"],
        [
            declare(0, [("t", nest(65, 0)), ("t", nest(64, 0))]),
            record("t", nest(64, 0), 0),
            record("t", nest(64, 0), 1),
        ],
        tags=["fingerprint", "declared"],
        option={"ladder": {"observe": 1}},
    ),
]

# -- token edges (TXT-04, TXT-05, TXT-06) ---------------------------------------------------------


def _joined(separator: str, count: int = 12) -> str:
    return separator.join(["no"] * count)


TOKENS: list[dict[str, Any]] = [
    _detect(
        "detect-whitespace-runs-separate",
        "a run of several whitespace characters is one separator: no empty tokens, 12 repeats of one token",
        ["TXT-06"],
        _joined(" \t\n  "),
    ),
    _detect(
        "detect-leading-trailing-whitespace",
        "leading and trailing whitespace make no tokens",
        ["TXT-06"],
        "  \n" + _joined(" ") + " \t ",
    ),
    _detect(
        "detect-leading-whitespace-adds-no-token",
        "leading whitespace makes no empty token: ' a b c' has 3 tokens, so with minRepeats 1 the longest period tried is floor(3/2) = 1",
        ["TXT-05", "TXT-06", "TXT-09"],
        " a b c",
        minRepeats=1,
        minCoveredTokens=1,
    ),
    _detect(
        "detect-u2000-separates",
        "U+2000 is whitespace: it separates tokens",
        ["TXT-04", "TXT-06"],
        _joined("\u2000"),
    ),
    _detect(
        "detect-u200a-separates",
        "U+200A is whitespace: it separates tokens",
        ["TXT-04", "TXT-06"],
        _joined("\u200a"),
    ),
    _detect(
        "detect-u1fff-joins",
        "U+1FFF is not whitespace: the text is one token, no result",
        ["TXT-04", "TXT-06"],
        _joined("\u1fff"),
    ),
    _detect(
        "detect-u200b-joins",
        "U+200B (zero width space) is not whitespace: the text is one token, no result",
        ["TXT-04", "TXT-06"],
        _joined("\u200b"),
    ),
    _gap(
        "monitor-u2000-u200a-normalised",
        "recordAssistantText turns runs of U+2000..U+200A into one space: two texts differing only there have one fingerprint",
        ["MON-41", "TXT-04", "MON-45", "MON-46"],
        [text("a\u2000\u200ab"), text("a \u2005 b")],
        tags=["text"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "monitor-u200b-not-normalised",
        "recordAssistantText keeps U+200B: a text differing from another by it has another fingerprint",
        ["MON-41", "TXT-04", "MON-45"],
        [text("a\u200bb"), text("a b")],
        tags=["text"],
        option={"ladder": {"observe": 1}},
    ),
]

# -- declared sets and per-call baselines (MON-07..MON-33) ----------------------------------------

CALLS = [("t", "a"), ("t", "b"), ("t", "c")]
WIDE_ROUND = [(f"k{i}", 0) for i in range(20)]
"""20 distinct calls of one tool in round 0: more than 2 x width + 16 slots for a port that prunes."""


def _per_call(
    name: str, pins: str, spec: list[str], records: list[tuple[str, int]]
) -> dict[str, Any]:
    """Undeclared records of tool ``t`` (key, round), then getState to show the per-call counts."""
    return _gap(
        name,
        pins,
        spec,
        [*[record("t", key, number) for key, number in records], get_state()],
        tags=["per-call"],
        option={"ladder": {"observe": 1}},
    )


AB = [("t", "a"), ("t", "b")]
AB0 = declare(0, AB)
"""Round 0 declared with two calls of ``t``."""


def _redeclared(
    name: str, pins: str, spec: list[str], steps: list[dict[str, Any]], *tags: str
) -> dict[str, Any]:
    """Declared rounds of tool ``t`` where a round is declared again after a record."""
    return _gap(
        name,
        pins,
        ["MON-10", *spec],
        steps,
        tags=["declared", *tags],
        option={"ladder": {"observe": 1}},
    )


DECLARED: list[dict[str, Any]] = [
    _gap(
        "undeclared-call-beside-three-declared",
        "a call of a declared tool outside its 3-call declared set counts only for itself: the declared members' per-call counts are unchanged",
        ["MON-26", "MON-27", "MON-28"],
        [
            declare(0, CALLS),
            *[record("t", k, 0) for k in ("a", "b", "c", "x")],
            declare(1, CALLS),
            *[record("t", k, 1) for k in ("a", "b", "c", "x")],
            get_state(),
        ],
        tags=["declared", "per-call"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "redeclare-shrinks-round-set",
        "declareRound again for the current round after records: later records take the new set as the round set, which the next round compares with",
        ["MON-10", "MON-22", "MON-28", "MON-23", "MON-27"],
        [
            declare(0, [("t", "a"), ("t", "b")]),
            record("t", "a", 0),
            record("t", "b", 0),
            declare(0, [("t", "a")]),
            record("t", "b", 0),
            declare(1, [("t", "a"), ("t", "b")]),
            record("t", "a", 1),
            record("t", "b", 1),
        ],
        tags=["declared"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "redeclare-swaps-a-single-call",
        "a round declared as [x], x recorded, re-declared as [y], y recorded; the next round declares and records x: its round set [x] differs from the prior round set [y], so the tool's streak is 1",
        ["MON-10", "MON-22", "MON-28", "MON-23", "MON-27"],
        [
            declare(0, [("t", "x")]),
            record("t", "x", 0),
            declare(0, [("t", "y")]),
            record("t", "y", 0),
            declare(1, [("t", "x")]),
            record("t", "x", 1),
            get_state(),
        ],
        tags=["declared"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "redeclare-swaps-a-fan-out",
        "a round declared as [a, b], a recorded, re-declared as [c, d], c recorded; the next round declares and records a and b: the prior round set is [c, d], so b's record has streak 1",
        ["MON-10", "MON-22", "MON-28", "MON-23", "MON-27"],
        [
            declare(0, [("t", "a"), ("t", "b")]),
            record("t", "a", 0),
            declare(0, [("t", "c"), ("t", "d")]),
            record("t", "c", 0),
            declare(1, [("t", "a"), ("t", "b")]),
            record("t", "a", 1),
            record("t", "b", 1),
        ],
        tags=["declared"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "redeclare-reorders-a-member",
        "declareRound again for the current round with a member at another position: its per-call count is found by fingerprint",
        ["MON-10", "MON-22", "MON-20", "MON-26"],
        [
            declare(0, [("t", "a"), ("t", "b")]),
            record("t", "a", 0),
            declare(1, [("t", "a"), ("t", "b")]),
            record("t", "a", 1),
            declare(1, [("t", "c"), ("t", "b"), ("t", "a")]),
            record("t", "a", 1),
            get_state(),
        ],
        tags=["declared", "per-call"],
        option={"ladder": {"observe": 1}},
    ),
    _redeclared(
        "redeclare-member-keeps-its-per-call-count",
        "declareRound again for the current round with a member at another position of another set: its per-call streak counts from the prior round's count of that exact call (b: 2), not from the call at its position",
        ["MON-26", "MON-22"],
        [
            *(AB0, record("t", "b", 0), declare(1, AB), record("t", "a", 1)),
            *(declare(1, [("t", "b"), ("t", "e")]), record("t", "b", 1)),
        ],
        "per-call",
    ),
    _redeclared(
        "redeclare-wider-set-fan-out-message",
        "declareRound again for the current round with a wider set: a member's fan-out message names the new set (3 parallel calls and their round identity) although the round streak is unchanged",
        ["MSG-04", "MSG-05", "MON-27"],
        [AB0, record("t", "a", 0), declare(0, CALLS), record("t", "b", 0)],
        "messages",
    ),
    _gap(
        "declared-round-then-undeclared-round",
        "a round declared with [a, b], then the next round undeclared: its record of a is scored per call against the declared round's counts (round streak 1 against [a, b], per-call streak 2)",
        ["MON-11", "MON-23", "MON-26", "MON-27"],
        [AB0, record("t", "a", 0), record("t", "b", 0), record("t", "a", 1), get_state()],
        tags=["declared", "per-call"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "redeclare-grows-the-set-mid-round",
        "declareRound again for the current round with one more call, after a record that matched the prior round set: the next record compares the grown set with the prior round set, so its round streak restarts at 1 and its verdict has the per-call message (the added call's fingerprint sorts after the others, so the grown set extends the first)",
        ["MON-10", "MON-22", "MON-23", "MSG-04"],
        [
            declare(0, [("t", "a"), ("t", "b")]),
            record("t", "a", 0),
            declare(1, [("t", "a"), ("t", "b")]),
            record("t", "a", 1),
            declare(1, [("t", "a"), ("t", "b"), ("t", "e")]),
            record("t", "a", 1),
            get_state(),
        ],
        tags=["declared"],
        option={"ladder": {"observe": 1}},
    ),
    _per_call(
        "gap-round-baseline",
        "a call in round n, absent from n+1 (the tool made another call) and made twice in n+2: its per-call count is 1, the baseline is round n+1",
        ["MON-23", "MON-26", "MON-20"],
        [("a", 0), ("b", 1), ("a", 2), ("a", 2)],
    ),
    _per_call(
        "many-distinct-calls-then-repeat",
        "20 distinct calls in one round, one call in the next, the same call again: its per-call count is 2 (older calls never count)",
        ["MON-23", "MON-26"],
        [*WIDE_ROUND, ("x", 1), ("x", 2)],
    ),
    _per_call(
        "many-distinct-calls-then-return",
        "20 distinct calls in round 0, one other call in round 1, a round-0 call in round 2: its per-call count is 1",
        ["MON-23", "MON-26"],
        [*WIDE_ROUND, ("x", 1), ("k3", 2)],
    ),
]

# -- text verdicts (MON-44, MON-47, MON-48) ---------------------------------------------------------

TEXT_VERDICTS: list[dict[str, Any]] = [
    _gap(
        "within-repeat-capped-below-block",
        "a within-response repetition whose repeats reach the block rung is capped below block (allowBlock false): steer",
        ["MON-44", "LAD-03"],
        [text(NO12)],
        tags=["text", "ladder"],
        option={"ladder": {"observe": False, "steer": 2, "block": 4, "stop": False}},
    ),
    _gap(
        "within-repeat-at-escalate-without-budget",
        "a within-response repetition at the escalate rung with no escalation left falls to steer",
        ["MON-44", "MON-52", "LAD-05"],
        [op("consumeEscalation"), text(NO12)],
        tags=["text", "escalation"],
        option={
            "escalation": {"model": "m", "maxEscalations": 1},
            "ladder": {"observe": False, "steer": 2, "escalate": 4, "block": False, "stop": False},
        },
    ),
    _gap(
        "across-streak-capped-below-block",
        "an across-steps text streak at the block rung is capped below block: observe",
        ["MON-47", "LAD-03"],
        [text("hello"), text("hello")],
        tags=["text", "ladder"],
        option={"ladder": {"observe": 1, "block": 2, "stop": False}},
    ),
    _gap(
        "both-text-verdicts-within-stronger",
        "both text detectors fire in one call, the within-response verdict on the stronger rung: it is the result",
        ["MON-48", "MON-44", "MON-47"],
        [text(ABABAB), text(ABABAB)],
        tags=["text"],
        option={"text": TWO, "ladder": {"observe": 2, "steer": 3, "block": False, "stop": False}},
    ),
    _gap(
        "both-text-verdicts-across-stronger",
        "both text detectors fire in one call, the across-steps verdict on the stronger rung: it is the result",
        ["MON-48", "MON-44", "MON-47"],
        [text(ABAB), text(ABAB), text(ABAB)],
        tags=["text"],
        option={"text": TWO, "ladder": {"observe": 2, "steer": 3, "block": False, "stop": False}},
    ),
    _gap(
        "both-text-verdicts-equal-strength",
        "both text detectors fire on the same rung in one call: the within-response verdict is the result",
        ["MON-48"],
        [text(ABAB), text(ABAB)],
        tags=["text"],
        option={"text": TWO, "ladder": OBSERVE_ONLY},
    ),
]

# -- restored state (STATE-16, STATE-22, STATE-24) ------------------------------------------------

NON_ASCII_FP = "\u00e9" * 40 + "\U0001f600" * 12
RESTORED: list[dict[str, Any]] = [
    _gap(
        "restore-call-streaks-string",
        'a restored tool whose callStreaks is a string ("ab") gives no per-call counts',
        ["STATE-16", "STATE-24", "STATE-25"],
        [
            restore(
                {
                    "tools": {
                        "t": {
                            "fingerprint": FP_T_A,
                            "streak": 1,
                            "roundFingerprints": [FP_T_A],
                            "callStreaks": "ab",
                        }
                    }
                }
            ),
            get_state(),
            record("t", "a", 1),
        ],
        tags=["restore", "per-call"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "restore-call-streaks-number",
        "a restored tool whose callStreaks is a number (7) gives no per-call counts",
        ["STATE-16", "STATE-24", "STATE-25"],
        [
            restore(
                {
                    "tools": {
                        "t": {
                            "fingerprint": FP_T_A,
                            "streak": 1,
                            "roundFingerprints": [FP_T_A],
                            "callStreaks": 7,
                        }
                    }
                }
            ),
            get_state(),
            record("t", "a", 1),
        ],
        tags=["restore", "per-call"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "restore-non-ascii-fingerprint-then-message",
        "a restored roundFingerprints holding a non-ASCII string beside a real fingerprint is kept, sorted by code unit; the real call's per-call count continues from the restored streak and its verdict has the repeated-call message",
        ["STATE-22", "STATE-23", "STATE-25", "MON-26", "MSG-04"],
        [
            restore(
                {
                    "tools": {
                        "t": {
                            "fingerprint": FP_T_A,
                            "streak": 3,
                            "roundFingerprints": [NON_ASCII_FP, FP_T_A],
                        }
                    }
                }
            ),
            get_state(),
            declare(1, [("t", "a"), ("t", "b")]),
            record("t", "a", 1),
            record("t", "a", 2),
        ],
        tags=["restore", "messages"],
        option={"ladder": {"observe": 1}},
    ),
    _gap(
        "restore-non-ascii-fingerprint-alone",
        "a restored tool fingerprint that is a non-ASCII string: a record of the tool starts a new streak and getState returns the string unchanged first",
        ["STATE-22", "MON-23"],
        [
            restore(
                {
                    "tools": {
                        "t": {
                            "fingerprint": NON_ASCII_FP,
                            "streak": 3,
                            "roundFingerprints": [NON_ASCII_FP],
                        }
                    }
                }
            ),
            get_state(),
            record("t", "a", 1),
        ],
        tags=["restore"],
        option={"ladder": {"observe": 1}},
    ),
]

# -- multi-digit bigint minRepeats (TXT-22) ---------------------------------------------------------

BIGINTS: list[dict[str, Any]] = [
    _detect(
        "bigint-min-repeats-ten-met",
        "minRepeats 10n is met by 10 repeats (a multi-digit bigint compares as its number)",
        ["TXT-22", "TXT-20"],
        _joined(" ", 10),
        minRepeats=bigint(10),
        minCoveredTokens=2,
    ),
    _detect(
        "bigint-min-repeats-ten-not-met",
        "minRepeats 10n is not met by 9 repeats",
        ["TXT-22", "TXT-20"],
        _joined(" ", 9),
        minRepeats=bigint(10),
        minCoveredTokens=2,
    ),
]

# -- a budget cut of one code unit (TXT-02, TXT-18, TXT-19) ----------------------------------------

BUDGET: list[dict[str, Any]] = [
    _detect(
        "detect-window-minus-one-64th-drops-one-code-unit",
        "maxWindowTokens -1/64 makes the budget the double -1 (TXT-02); every text is longer, so it becomes JS text.slice(1), which drops exactly the first code unit (TXT-18: a negative window -w drops the first trunc(64w) code units): 'xa b a b' becomes 'a b a b'; the token window slice(1/64) starts at trunc(1/64) = 0 and keeps every token (TXT-19): 'a b' repeated twice",
        ["TXT-02", "TXT-18", "TXT-19"],
        "xa b a b",
        maxWindowTokens=-1 / 64,
        **TWO,
    ),
]

SCENARIOS: list[dict[str, Any]] = (
    FALSY_ZERO
    + ENABLED
    + KEY_MATERIAL
    + TOKENS
    + DECLARED
    + TEXT_VERDICTS
    + RESTORED
    + BIGINTS
    + BUDGET
)
