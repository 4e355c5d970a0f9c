"""Every observable text of the package, byte for byte (brief §9; issue 11).

One vector per text: the four configuration warnings (CFG-35..CFG-38), the
five loop-key fallback warnings (KEY-18..KEY-22, one per ``typeof`` for the
last), the four canonicalization messages (CAN-31..CAN-34), and numbers in
texts as JS ``String(n)`` (MSG-09). The monitor's two logs do not travel over
the protocol (MON-62, STATE-34); tests/test_reference_state.py pins them.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import (
    FUNCTION,
    INFINITY,
    NAN,
    SYMBOL,
    bigint,
    nest,
    op,
    ref,
    returns,
    scenario,
    throws,
)

FAMILY = "texts"
DESCRIPTION = "the SDK's exact warning and error texts: configuration, loop keys, canonicalization"

ARGS = {"path": "a.txt", "mode": "r"}


def _option(name: str, pins: str, spec: list[str], option: Any) -> dict[str, Any]:
    return scenario(
        name,
        pins,
        ["CFG-34", *spec],
        [op("resolveOption", option=option)],
        tags=["texts", "config-warning"],
    )


def _loop_key(name: str, pins: str, spec: list[str], loop_key: Any) -> dict[str, Any]:
    return scenario(
        name,
        pins,
        ["KEY-17", *spec],
        [op("resolveLoopKey", loopKey=loop_key, args=ARGS)],
        tags=["texts", "loop-key-warning"],
    )


def _canonical(name: str, pins: str, spec: list[str], value: Any) -> dict[str, Any]:
    return scenario(
        name,
        pins,
        ["CAN-35", *spec],
        [op("canonicalize", value=value)],
        tags=["texts", "canonicalization-message"],
    )


SCENARIOS: list[dict[str, Any]] = [
    _option(
        "warning-block-without-stop",
        "block enabled with stop disabled: the block/stop warning text",
        ["CFG-29", "CFG-35"],
        {"ladder": {"stop": False}},
    ),
    _option(
        "warning-dead-rung",
        "observe 3 under block 3: the dead-rung text names both rungs and thresholds",
        ["CFG-30", "CFG-36"],
        {"ladder": {"observe": 3}},
    ),
    _option(
        "warning-dead-rung-threshold-as-js-prints-it",
        "a threshold of 1e21 is printed 1e+21 in the dead-rung text (JS String(n))",
        ["CFG-36", "MSG-09"],
        {"ladder": {"block": 1e21}},
    ),
    _option(
        "warning-escalation-unused",
        "a model with the escalate rung disabled: the escalation-unused text",
        ["CFG-32", "CFG-37"],
        {"escalation": {"model": "m"}},
    ),
    _option(
        "warning-escalation-rung-unconfigured",
        "the escalate rung without a model or advisor: the escalation-rung-unconfigured text",
        ["CFG-31", "CFG-38"],
        {"ladder": {"escalate": 2, "observe": False}},
    ),
    _loop_key(
        "loop-key-empty-list",
        "an empty field list: the empty-list warning text",
        ["KEY-08", "KEY-18"],
        [],
    ),
    _loop_key(
        "loop-key-fields-absent",
        "no listed field present: the warning lists the string fields joined by comma and space",
        ["KEY-10", "KEY-19"],
        ["cwd", "env", "cwd"],
    ),
    _loop_key(
        "loop-key-fields-absent-non-strings-hidden",
        "non-string list entries are ignored and not shown: the bracket is empty",
        ["KEY-10", "KEY-19"],
        [1, True, None],
    ),
    _loop_key(
        "loop-key-threw",
        "a loop-key function that throws: the warning quotes the error's message",
        ["KEY-12", "KEY-20"],
        throws("no cwd in args"),
    ),
    _loop_key(
        "loop-key-returned-undefined",
        "a loop-key function that returns nothing: the returned-undefined text",
        ["KEY-12", "KEY-21"],
        returns({"$js": "undefined"}),
    ),
    _loop_key(
        "loop-key-plain-function",
        "a plain function value as declaration is called and returns nothing: the returned-undefined text",
        ["KEY-21"],
        FUNCTION,
    ),
    *(
        _loop_key(
            f"loop-key-unsupported-{name}",
            f"a declaration of {shown}: the unsupported-shape text names JS typeof {kind}",
            ["KEY-07", "KEY-22"],
            value,
        )
        for name, shown, kind, value in (
            ("null", "null", "object", None),
            ("boolean", "true", "boolean", True),
            ("number", "3", "number", 3),
            ("string", '"path"', "string", "path"),
            ("object", "an object", "object", {"path": True}),
            ("bigint", "a bigint", "bigint", bigint(1)),
            ("symbol", "a symbol", "symbol", SYMBOL),
        )
    ),
    _canonical(
        "canonical-depth",
        "0 nested 65 levels deep: the depth message",
        ["CAN-16", "CAN-31"],
        nest(65, 0),
    ),
    _canonical(
        "canonical-non-finite",
        "NaN in key material: the non-finite message",
        ["CAN-05", "CAN-32"],
        {"n": NAN},
    ),
    _canonical(
        "canonical-bigint",
        "a bigint in key material: the bigint message",
        ["CAN-14", "CAN-33"],
        [bigint(12)],
    ),
    _canonical(
        "canonical-circular",
        "an object that contains itself: the circular message",
        ["CAN-19", "CAN-34"],
        {"self": ref(1)},
    ),
    _canonical(
        "canonical-depth-before-kind",
        "Infinity nested 65 levels deep fails on depth: depth is checked first at every value",
        ["CAN-36", "CAN-31"],
        nest(65, INFINITY),
    ),
    scenario(
        "record-canonicalization-message",
        "recordToolCall with a bigint in the key material fails with the bigint message",
        ["CAN-35", "CAN-33", "MON-15"],
        [op("recordToolCall", toolName="t", keyMaterial={"n": bigint(1)}, round=0)],
        tags=["texts", "canonicalization-message"],
        option=True,
    ),
]
