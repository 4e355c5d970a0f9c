"""The edges of the input domain, decided (brief §10; spec §13.4; issue 11).

One vector per fact, grouped by the classes of
``../shared/upstream/sdk-0.9.0-observations.jsonl``: null escalation members
(C1), null option/text/escalation (C2), text options as JS numbers (C3, C5),
JS coercion (C4, C7, C9; feature ``js-coercion``), undefined members (C6,
C10), counters as doubles (C8) and inherited names under JS ``in`` (C11,
feature ``js-inherited-members``). Protocol edges (C12, C13) are about request
lines, not vector steps: tests/test_protocol_harness.py pins them.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import (
    FUNCTION,
    INFINITY,
    NAN,
    NEG_INFINITY,
    NEG_ZERO,
    SYMBOL,
    UNDEFINED,
    bigint,
    can_escalate,
    consume,
    get_state,
    op,
    record,
    ref,
    restore,
    scenario,
    text,
)

FAMILY = "edges"
DESCRIPTION = "the SDK's behaviour at every edge of the input domain, one fact per vector"

FOO = " ".join(["foo bar baz"] * 10)
"""30 tokens, 119 code units: period 3 repeated 10 times."""
NO = " ".join(["no"] * 12)
"""12 tokens: period 1 repeated 12 times (the shortest default hit)."""
NO_20 = " ".join(["no"] * 20)
"""20 tokens of period 1: a token window of w < 20 keeps w of them, repeats w."""
ABCD = "a b c d"
"""4 distinct tokens: with minCoveredTokens 2, only a minRepeats <= 1 finds period 2 (one copy)."""
TWO_53 = 2**53
FP_K = "c7f52875b99a7ae0edc0d62377020c31b846417b49ba5a3df3bf88932d5aeba3"
"""fingerprintToolCall("t", "k")."""
FP_HELLO = "5aa762ae383fbb727af3c7a36d4940a5b8c40a989452d2304fc958ff3f354e7a"
"""fingerprintKeyMaterial("hello")."""
ALL_ON = {"observe": 2, "steer": 3, "escalate": 4, "block": 5, "stop": 6}


def _resolve(name: str, pins: str, spec: list[str], option: Any) -> dict[str, Any]:
    return scenario(
        name, pins, spec, [op("resolveOption", option=option)], tags=["edges", "config"]
    )


def _detect(name: str, pins: str, spec: list[str], value: str, **options: Any) -> dict[str, Any]:
    return scenario(
        name,
        pins,
        ["TXT-17", *spec],
        [op("detectTextRepetition", text=value, options=options)],
        tags=["edges", "text"],
    )


def _enabled(name: str, pins: str, enabled: Any) -> dict[str, Any]:
    return scenario(
        name,
        pins,
        ["MON-59", "CFG-45"],
        [text("hi")],
        tags=["edges", "text", "coercion"],
        option={"text": {"enabled": enabled}, "ladder": {"observe": 1}},
    )


def _allow_escalate(name: str, pins: str, value: Any) -> dict[str, Any]:
    return scenario(
        name,
        pins,
        ["LAD-08", "PROT-28", "LAD-05"],
        [
            op(
                "resolveLadderAction",
                ladder=ALL_ON,
                streak=4,
                allowBlock=True,
                allowEscalate=value,
            )
        ],
        tags=["edges", "ladder-action"],
    )


def _inherited(name: str, pins: str, loop_key: list[Any], args: Any) -> dict[str, Any]:
    return scenario(
        name,
        pins,
        ["KEY-23", "DIV-01"],
        [op("resolveLoopKey", loopKey=loop_key, args=args)],
        tags=["edges", "loop-key", "divergence"],
        extra_features=["js-inherited-members"],
    )


# -- C1, C2: null in the option ------------------------------------------------------

NULLS: list[dict[str, Any]] = [
    _resolve(
        "escalation-model-null-is-a-mechanism",
        "{model: null} is present (!== undefined): a mechanism with the default budget",
        ["CFG-44", "CFG-22", "CFG-23"],
        {"escalation": {"model": None}},
    ),
    _resolve(
        "escalation-advisor-null-is-kept",
        "{model, advisor: null}: the null advisor is present and copied",
        ["CFG-44", "CFG-21", "CFG-23"],
        {"escalation": {"model": "m", "advisor": None}},
    ),
    _resolve(
        "escalation-advisor-null-alone-is-a-mechanism",
        "{advisor: null} alone: null is not false, so it is an advisor and a mechanism",
        ["CFG-44", "CFG-21", "CFG-22"],
        {"escalation": {"advisor": None}},
    ),
    _resolve(
        "escalation-model-undefined-is-absent",
        "{model: undefined} is absent: no mechanism",
        ["CFG-46", "CFG-44", "CFG-25"],
        {"escalation": {"model": UNDEFINED}},
    ),
    scenario(
        "null-model-can-escalate",
        "a monitor whose only mechanism is {model: null} escalates at the escalate rung",
        ["CFG-44", "MON-52", "MON-35"],
        [record("t", 1, 1)],
        tags=["edges", "escalation"],
        option={
            "escalation": {"model": None},
            "ladder": {"escalate": 1, "observe": False, "block": False, "stop": False},
        },
    ),
    _resolve(
        "option-null-throws",
        "a null option throws a TypeError in JS: type-error",
        ["CFG-41", "PROT-23"],
        None,
    ),
    _resolve(
        "text-null-throws",
        "{text: null} throws a TypeError in JS: type-error",
        ["CFG-42", "PROT-23"],
        {"text": None},
    ),
    _resolve(
        "escalation-null-throws",
        "{escalation: null} throws a TypeError in JS: type-error",
        ["CFG-43", "PROT-23"],
        {"escalation": None},
    ),
    _resolve(
        "text-option-undefined-is-absent",
        "a text option holding undefined takes its default",
        ["CFG-46", "CFG-16"],
        {"text": {"minRepeats": UNDEFINED}},
    ),
]

# -- C3, C5, C6: text options are JS numbers -------------------------------------------

NUMBERS: list[dict[str, Any]] = [
    _detect(
        "window-zero-keeps-everything",
        "maxWindowTokens 0: slice(-0) keeps the whole text and every token",
        ["TXT-18", "TXT-19"],
        FOO,
        maxWindowTokens=0,
    ),
    _detect(
        "window-negative-drops-the-front",
        "maxWindowTokens -1: the first 64 code units, then the first token, are dropped",
        ["TXT-18", "TXT-19"],
        FOO,
        maxWindowTokens=-1,
    ),
    _detect(
        "window-tiny-keeps-everything",
        "maxWindowTokens 5e-324: the budget truncates to 0, so nothing is cut",
        ["TXT-18", "TXT-19"],
        FOO,
        maxWindowTokens=5e-324,
    ),
    _detect(
        "window-just-below-one",
        "maxWindowTokens 0.9999999999999999: the last 63 code units are kept, then every token",
        ["TXT-18", "TXT-19"],
        FOO,
        maxWindowTokens=0.9999999999999999,
    ),
    _detect(
        "window-fraction",
        "maxWindowTokens 2.5: the last 160 code units, then the last 2 tokens (trunc(-2.5) = -2): a two-copy repetition",
        ["TXT-18", "TXT-19", "TXT-08"],
        " ".join(["no"] * 80),
        maxWindowTokens=2.5,
        minRepeats=2,
        minCoveredTokens=2,
    ),
    _detect(
        "window-fraction-keeps-one-code-unit",
        "maxWindowTokens 0.02: the budget 1.28 is exceeded and slice(-1.28) truncates to slice(-1), keeping the last code unit only: one token, no result",
        ["TXT-18", "TXT-08"],
        FOO,
        maxWindowTokens=0.02,
    ),
    _detect(
        "window-negative-zero-keeps-everything",
        "maxWindowTokens -0: slice(0) keeps everything",
        ["TXT-18", "TXT-19"],
        FOO,
        maxWindowTokens=NEG_ZERO,
    ),
    _detect(
        "window-nan-keeps-everything",
        "maxWindowTokens NaN: the budget is never exceeded and slice(NaN) keeps every token",
        ["TXT-18", "TXT-19"],
        FOO,
        maxWindowTokens=NAN,
    ),
    _detect(
        "window-minus-infinity-keeps-nothing",
        "maxWindowTokens -Infinity: slice(Infinity) keeps no code unit",
        ["TXT-18", "TXT-08"],
        FOO,
        maxWindowTokens=NEG_INFINITY,
    ),
    _detect(
        "max-period-fraction",
        "maxPeriodTokens 2.5 runs periods 1 and 2 only: a period-3 repetition is not found",
        ["TXT-20", "TXT-09"],
        FOO,
        maxPeriodTokens=2.5,
    ),
    _detect(
        "max-period-zero",
        "maxPeriodTokens 0 runs no period: no result",
        ["TXT-20", "TXT-09"],
        NO,
        maxPeriodTokens=0,
    ),
    _detect(
        "min-repeats-fraction",
        "minRepeats 1.5 is met by 2 repeats (compared as doubles)",
        ["TXT-20", "TXT-12"],
        "a b c d a b c d",
        minRepeats=1.5,
        minCoveredTokens=2,
    ),
    _detect(
        "min-repeats-zero",
        "minRepeats 0 is met by a single copy",
        ["TXT-20", "TXT-12"],
        "a b c d",
        minRepeats=0,
        minCoveredTokens=2,
    ),
    _detect(
        "min-repeats-infinity",
        "minRepeats Infinity is never met: no result",
        ["TXT-20", "TXT-12"],
        NO,
        minRepeats=INFINITY,
    ),
    _detect(
        "min-covered-negative",
        "minCoveredTokens -3: two tokens are enough to look, and any cover qualifies",
        ["TXT-20", "TXT-08", "TXT-12"],
        "x x",
        minCoveredTokens=-3,
        minRepeats=2,
    ),
    _detect(
        "min-covered-nan",
        "minCoveredTokens NaN: Math.max gives NaN, the search runs, and no cover qualifies",
        ["TXT-20", "TXT-08", "TXT-12"],
        NO,
        minCoveredTokens=NAN,
    ),
    _detect(
        "option-undefined-is-absent",
        "a detectTextRepetition option holding undefined takes its default",
        ["TXT-16", "CFG-46"],
        NO,
        minRepeats=UNDEFINED,
    ),
    scenario(
        "monitor-fractional-min-repeats",
        "the monitor's text detector uses minRepeats 1.5 as a double",
        ["TXT-20", "MON-43", "CFG-45"],
        [text(FOO)],
        tags=["edges", "text"],
        option={"text": {"minRepeats": 1.5}, "ladder": {"observe": 1}},
    ),
]

# -- C4, C7, C9: JS coercion (feature js-coercion) ---------------------------------------

COERCION: list[dict[str, Any]] = [
    _detect(
        "coerce-max-period-true",
        "maxPeriodTokens true is 1: a period-1 repetition is found",
        ["TXT-22"],
        NO,
        maxPeriodTokens=True,
    ),
    _detect(
        "coerce-max-period-true-not-two",
        'maxPeriodTokens true is 1, not more: "a b" repeated six times needs period 2, never tried: no result',
        ["TXT-22", "TXT-09"],
        " ".join(["a b"] * 6),
        maxPeriodTokens=True,
    ),
    _detect(
        "coerce-max-window-false",
        "maxWindowTokens false is 0: everything is kept",
        ["TXT-22", "TXT-18"],
        FOO,
        maxWindowTokens=False,
    ),
    _detect(
        "coerce-max-window-empty-array",
        "maxWindowTokens [] is 0: everything is kept",
        ["TXT-22", "TXT-18"],
        FOO,
        maxWindowTokens=[],
    ),
    _detect(
        "coerce-max-window-one-element-array",
        "maxWindowTokens [1] is 1: the last 64 code units, then the last token",
        ["TXT-22", "TXT-18", "TXT-19"],
        FOO,
        maxWindowTokens=[1],
    ),
    _detect(
        "coerce-min-repeats-string",
        'minRepeats "abc" is NaN: never met, no result',
        ["TXT-22", "TXT-20"],
        FOO,
        minRepeats="abc",
    ),
    _detect(
        "coerce-min-covered-numeric-string",
        'minCoveredTokens "3" is 3',
        ["TXT-22"],
        FOO,
        minCoveredTokens="3",
    ),
    _detect(
        "coerce-min-covered-object",
        "minCoveredTokens {} is NaN: no result",
        ["TXT-22", "TXT-20"],
        FOO,
        minCoveredTokens={},
    ),
    _detect(
        "coerce-min-repeats-bigint",
        "minRepeats 4n compares as 4",
        ["TXT-22"],
        FOO,
        minRepeats=bigint(4),
    ),
    _detect(
        "bigint-max-period-throws",
        "maxPeriodTokens 3n meets Math.min: type-error",
        ["TXT-23", "TXT-21", "PROT-23"],
        FOO,
        maxPeriodTokens=bigint(3),
    ),
    _detect(
        "bigint-max-period-not-reached",
        "maxPeriodTokens 3n is never read when the text has too few tokens: no result, no error",
        ["TXT-21", "TXT-23"],
        "a b",
        maxPeriodTokens=bigint(3),
    ),
    _detect(
        "bigint-max-window-throws",
        "maxWindowTokens 4n meets arithmetic with a number: type-error",
        ["TXT-23", "PROT-23"],
        FOO,
        maxWindowTokens=bigint(4),
    ),
    _detect(
        "bigint-min-covered-throws",
        "minCoveredTokens 3n meets Math.max: type-error",
        ["TXT-23", "PROT-23"],
        FOO,
        minCoveredTokens=bigint(3),
    ),
    _detect(
        "symbol-min-repeats-throws",
        "minRepeats as a symbol cannot become a number: type-error",
        ["TXT-23", "PROT-23"],
        FOO,
        minRepeats=SYMBOL,
    ),
    _detect(
        "symbol-min-repeats-throws-at-period-one",
        "maxPeriodTokens 1 tries period 1, which reads minRepeats: a symbol there is a type-error",
        ["TXT-21", "TXT-23", "PROT-23"],
        FOO,
        maxPeriodTokens=1,
        minRepeats=SYMBOL,
    ),
    _detect(
        "symbol-min-repeats-not-reached",
        "maxPeriodTokens 0.5 tries no period, so a symbol minRepeats is never read: no result",
        ["TXT-21", "TXT-23"],
        FOO,
        maxPeriodTokens=0.5,
        minRepeats=SYMBOL,
    ),
    _detect(
        "function-min-repeats-is-nan",
        "minRepeats as a function is NaN: no result",
        ["TXT-22"],
        FOO,
        minRepeats=FUNCTION,
    ),
    _detect(
        "coerce-min-repeats-hex-string",
        'minRepeats "0xA" is 10 (StringToNumber reads a 0x integer): met by ten repeats',
        ["TXT-22"],
        FOO,
        minRepeats="0xA",
    ),
    _detect(
        "coerce-min-repeats-octal-string",
        'minRepeats "0o12" is 10 (a 0o integer): met by ten repeats',
        ["TXT-22"],
        FOO,
        minRepeats="0o12",
    ),
    _detect(
        "coerce-min-repeats-binary-string",
        'minRepeats "0b1010" is 10 (a 0b integer): met by ten repeats',
        ["TXT-22"],
        FOO,
        minRepeats="0b1010",
    ),
    _detect(
        "coerce-min-repeats-js-space-string",
        "minRepeats with JS whitespace around 10 (U+00A0, LF, U+3000) is 10: met by ten repeats",
        ["TXT-22"],
        FOO,
        minRepeats="\u00a0\n10\u3000",
    ),
    _detect(
        "coerce-min-repeats-exponent-string",
        'minRepeats "1e1" is 10: met by ten repeats',
        ["TXT-22"],
        FOO,
        minRepeats="1e1",
    ),
    _detect(
        "coerce-max-period-infinity-string",
        'maxPeriodTokens "Infinity" is +Infinity: periods up to half the tokens, the period-3 hit',
        ["TXT-22", "TXT-20"],
        FOO,
        maxPeriodTokens="Infinity",
    ),
    _detect(
        "coerce-min-repeats-minus-infinity-string",
        'minRepeats "-Infinity" is -Infinity: always met',
        ["TXT-22", "TXT-20"],
        FOO,
        minRepeats="-Infinity",
    ),
    _detect(
        "coerce-max-period-array-infinity",
        'maxPeriodTokens [Infinity] joins to "Infinity": +Infinity, the period-3 hit',
        ["TXT-22", "TXT-20"],
        FOO,
        maxPeriodTokens=[INFINITY],
    ),
    _detect(
        "coerce-min-repeats-array-minus-infinity",
        'minRepeats [-Infinity] joins to "-Infinity": always met',
        ["TXT-22", "TXT-20"],
        FOO,
        minRepeats=[NEG_INFINITY],
    ),
    _detect(
        "coerce-max-period-plus-infinity-string",
        'maxPeriodTokens "+Infinity" is +Infinity (StringToNumber takes one optional sign before Infinity): the period-3 hit',
        ["TXT-22", "TXT-20"],
        FOO,
        maxPeriodTokens="+Infinity",
    ),
    _detect(
        "coerce-max-period-double-sign-infinity-string",
        'maxPeriodTokens "++Infinity" is NaN (StringToNumber allows at most one sign): no period runs, no result',
        ["TXT-22", "TXT-20"],
        FOO,
        maxPeriodTokens="++Infinity",
    ),
    _detect(
        "coerce-max-period-eight-signs-infinity-string",
        'maxPeriodTokens "++++++++Infinity" (eight signs) is NaN like any run of more than one sign: no period runs, no result',
        ["TXT-22", "TXT-20"],
        FOO,
        maxPeriodTokens="++++++++Infinity",
    ),
    _detect(
        "coerce-max-period-infinity-suffix-string",
        'maxPeriodTokens "Infinityx" is NaN (the whole trimmed string must be the literal): no period runs, no result',
        ["TXT-22", "TXT-20"],
        FOO,
        maxPeriodTokens="Infinityx",
    ),
    _detect(
        "coerce-max-window-minus-infinity-string",
        'maxWindowTokens "-Infinity" is -Infinity: slice(Infinity) keeps no code unit, no result',
        ["TXT-22", "TXT-18"],
        FOO,
        maxWindowTokens="-Infinity",
    ),
    _detect(
        "coerce-max-window-hex-string",
        'maxWindowTokens "0x10" is 16 (a hexadecimal integer): the last 16 of 20 "no" tokens, repeats 16',
        ["TXT-22", "TXT-19"],
        NO_20,
        maxWindowTokens="0x10",
    ),
    _detect(
        "coerce-max-window-octal-string",
        'maxWindowTokens "0o20" is 16 (an octal integer): the last 16 of 20 "no" tokens, repeats 16',
        ["TXT-22", "TXT-19"],
        NO_20,
        maxWindowTokens="0o20",
    ),
    _detect(
        "coerce-min-repeats-false",
        "minRepeats false is 0 (ToNumber(false)): a single copy meets it, period 2 of four distinct tokens",
        ["TXT-22", "TXT-12"],
        ABCD,
        minRepeats=False,
        minCoveredTokens=2,
    ),
    _detect(
        "coerce-min-repeats-array-null",
        'minRepeats [null] joins to "" (join writes null as empty), which is 0: a single copy meets it',
        ["TXT-22", "TXT-12"],
        ABCD,
        minRepeats=[None],
        minCoveredTokens=2,
    ),
    _detect(
        "coerce-min-repeats-array-zero",
        'minRepeats [0] joins to "0" (String(0)), which is 0: a single copy meets it',
        ["TXT-22", "TXT-12"],
        ABCD,
        minRepeats=[0],
        minCoveredTokens=2,
    ),
    _detect(
        "coerce-min-repeats-circular-array",
        'minRepeats as an array containing itself joins to "" (join skips the cycle): 0, always met',
        ["TXT-22"],
        FOO,
        minRepeats=[ref(1)],
    ),
    _detect(
        "coerce-min-covered-array-symbol-throws",
        "minCoveredTokens [symbol]: joining the array converts the symbol to a string: type-error",
        ["TXT-23", "PROT-23"],
        FOO,
        minCoveredTokens=[SYMBOL],
    ),
    scenario(
        "monitor-bigint-window-throws",
        "a monitor whose maxWindowTokens is 4n fails recordAssistantText with type-error",
        ["TXT-23", "MON-43", "CFG-45"],
        [text("hi")],
        tags=["edges", "text", "coercion"],
        option={"text": {"maxWindowTokens": bigint(4)}, "ladder": {"observe": 1}},
    ),
    _enabled("enabled-nan-disables", "text.enabled NaN is falsy: no text verdict", NAN),
    _enabled("enabled-zero-disables", "text.enabled 0 is falsy: no text verdict", 0),
    _enabled("enabled-empty-string-disables", 'text.enabled "" is falsy: no text verdict', ""),
    _enabled(
        "enabled-zero-bigint-disables", "text.enabled 0n is falsy: no text verdict", bigint(0)
    ),
    _enabled(
        "enabled-positive-bigint-enables",
        "text.enabled 1n is truthy (only 0n is a falsy bigint): text verdicts",
        bigint(1),
    ),
    _enabled(
        "enabled-negative-bigint-enables",
        "text.enabled -1n is truthy (only 0n is a falsy bigint): text verdicts",
        bigint(-1),
    ),
    _enabled("enabled-empty-array-enables", "text.enabled [] is truthy: text verdicts", []),
    _enabled("enabled-empty-object-enables", "text.enabled {} is truthy: text verdicts", {}),
    _allow_escalate(
        "allow-escalate-empty-array", "allowEscalate [] is truthy: escalate may fire", []
    ),
    _allow_escalate("allow-escalate-nan", "allowEscalate NaN is falsy: falls to steer", NAN),
    _allow_escalate("allow-escalate-one", "allowEscalate 1 is truthy: escalate may fire", 1),
    _allow_escalate("allow-escalate-null", "allowEscalate null is falsy: falls to steer", None),
]

# -- C6, C10: undefined members are absent ------------------------------------------------

UNDEFINED_MEMBERS: list[dict[str, Any]] = [
    _allow_escalate(
        "allow-escalate-undefined", "allowEscalate undefined is absent: true", UNDEFINED
    ),
    scenario(
        "record-allow-block-undefined",
        "recordToolCall {allowBlock: undefined} blocks as the default true does",
        ["MON-61", "CFG-46"],
        [record("t", "k", 1, allowBlock=UNDEFINED)],
        tags=["edges", "record-options"],
        option={"ladder": {"block": 1, "observe": False}},
    ),
    scenario(
        "record-detector-undefined",
        "recordToolCall {detector: undefined} reports the default tool-fingerprint detector",
        ["MON-61", "CFG-46"],
        [record("t", "k", 1, detector=UNDEFINED)],
        tags=["edges", "record-options"],
        option={"ladder": {"observe": 1}},
    ),
]

# -- C8: counters are doubles ---------------------------------------------------------------

COUNTERS: list[dict[str, Any]] = [
    scenario(
        "text-streak-stays-at-2-53",
        "a text streak restored at 2^53 stays 2^53 however often one is added, and the message prints it",
        ["MON-58", "MSG-09", "STATE-27"],
        [
            restore({"text": {"fingerprint": FP_HELLO, "streak": TWO_53}}),
            text("hello"),
            text("hello"),
        ],
        tags=["edges", "counters"],
        option={"ladder": {"observe": 1}},
    ),
    scenario(
        "escalations-used-stays-at-2-53",
        "escalationsUsed restored at 2^53 is unchanged by consumeEscalation, however often",
        ["MON-58", "MON-54", "STATE-28"],
        [restore({"escalationsUsed": TWO_53}), consume(), consume(), get_state()],
        tags=["edges", "counters"],
        option=True,
    ),
    scenario(
        "call-streak-stays-at-2-53",
        "a per-call count restored at 2^53 plus one stays 2^53 across a new round",
        ["MON-58", "MON-26", "STATE-24"],
        [
            restore(
                {"tools": {"t": {"fingerprint": FP_K, "streak": 2, "callStreaks": {FP_K: TWO_53}}}}
            ),
            record("t", "k", 0),
            record("t", "k", 1),
        ],
        tags=["edges", "counters"],
        option={"ladder": {"observe": 1}},
    ),
    scenario(
        "can-escalate-at-2-53",
        "with escalationsUsed at 2^53 the budget is spent: canEscalate is false",
        ["MON-58", "MON-52"],
        [restore({"escalationsUsed": TWO_53}), can_escalate()],
        tags=["edges", "counters", "escalation"],
        option={"escalation": {"model": "m"}},
    ),
]

# -- C11: inherited names under JS in (feature js-inherited-members) -------------------------

INHERITED: list[dict[str, Any]] = [
    _inherited(
        "in-finds-to-string",
        "toString is found by in: key material with the inherited function",
        ["toString"],
        {"path": "x"},
    ),
    _inherited(
        "in-finds-proto",
        "__proto__ is found by in: key material {__proto__: {}}",
        ["__proto__"],
        {"path": "x"},
    ),
    _inherited(
        "in-finds-proto-beside-an-own-member",
        "an own member and __proto__: both are in the key material",
        ["command", "__proto__"],
        {"command": "ls"},
    ),
    _inherited(
        "in-finds-constructor-in-empty-args",
        "constructor is found by in even in empty arguments",
        ["constructor"],
        {},
    ),
    _inherited(
        "in-finds-has-own-property",
        "hasOwnProperty is found by in: key material with the inherited function",
        ["hasOwnProperty"],
        {"a": 1},
    ),
]

SCENARIOS: list[dict[str, Any]] = (
    NULLS + NUMBERS + COERCION + UNDEFINED_MEMBERS + COUNTERS + INHERITED
)
