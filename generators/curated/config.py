"""Option resolution (spec section 3) and ladder resolution (section 8)."""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import INFINITY, NAN, NEG_INFINITY, NEG_ZERO, UNDEFINED, op, scenario

FAMILY = "config"
DESCRIPTION = "resolveOption sanitising and warnings; resolveLadderAction order and permissions"


def _resolve(
    name: str, pins: str, spec: list[str], options: list[Any], tags: list[str]
) -> dict[str, Any]:
    steps = [
        op("resolveOption", option=o) if o is not UNDEFINED else op("resolveOption")
        for o in options
    ]
    return scenario(name, pins, ["CFG-01", *spec], steps, tags=["config", *tags])


LADDER_DEFAULT = {"observe": 2, "steer": False, "escalate": False, "block": 3, "stop": 6}
ALL_ON = {"observe": 1, "steer": 2, "escalate": 3, "block": 4, "stop": 5}


def _action(
    ladder: dict[str, Any], streak: float, allow_block: bool, allow_escalate: Any = None
) -> dict[str, Any]:
    step = op("resolveLadderAction", ladder=ladder, streak=streak, allowBlock=allow_block)
    if allow_escalate is not None:
        step["allowEscalate"] = allow_escalate
    return step


SCENARIOS: list[dict[str, Any]] = [
    _resolve(
        "option-absent",
        "an absent option turns detection off (config null, no warnings)",
        ["CFG-40", "CFG-27"],
        [UNDEFINED],
        ["option"],
    ),
    _resolve(
        "option-false",
        "false turns detection off (config null, no warnings)",
        ["CFG-40", "CFG-27"],
        [False],
        ["option"],
    ),
    _resolve(
        "option-null",
        "null does not turn detection off: JS throws a TypeError (type-error)",
        ["CFG-41", "PROT-23"],
        [None],
        ["option"],
    ),
    _resolve(
        "option-true-is-empty-object",
        "true resolves exactly like {}",
        ["CFG-03", "CFG-12", "CFG-17"],
        [True, {}],
        ["option"],
    ),
    _resolve(
        "option-other-shapes",
        "an array, a number or a string option",
        ["CFG-05", "OQ-01"],
        [[], 1, "yes"],
        ["option"],
    ),
    _resolve(
        "ladder-zero-negative-default",
        "0 and negative thresholds take the rung's default",
        ["CFG-08", "CFG-11"],
        [{"ladder": {"observe": 0, "block": -1, "stop": -0.5}}],
        ["ladder"],
    ),
    _resolve(
        "ladder-non-finite-default",
        "NaN, Infinity, -Infinity and -0 thresholds take the default",
        ["CFG-11"],
        [{"ladder": {"observe": NAN, "block": INFINITY, "stop": NEG_INFINITY, "steer": NEG_ZERO}}],
        ["ladder"],
    ),
    _resolve(
        "ladder-wrong-types-default",
        "strings, null, true, arrays and objects as thresholds take the default",
        ["CFG-11", "OQ-02"],
        [{"ladder": {"observe": "2", "steer": None, "escalate": True, "block": [4], "stop": {}}}],
        ["ladder"],
    ),
    _resolve(
        "ladder-fractional-floors",
        "fractional thresholds >= 1 are floored; 0.99 takes the default",
        ["CFG-10", "CFG-11"],
        [{"ladder": {"observe": 1.5, "steer": 2.999, "block": 4.0000001, "stop": 0.99}}],
        ["ladder"],
    ),
    _resolve(
        "ladder-false-disables",
        "false disables a rung, including the default-on ones",
        ["CFG-09", "CFG-13"],
        [{"ladder": {"observe": False, "block": False, "stop": False}}],
        ["ladder"],
    ),
    _resolve(
        "ladder-not-an-object",
        "a ladder that is not a non-array object means all defaults",
        ["CFG-07"],
        [{"ladder": [1, 2]}, {"ladder": None}, {"ladder": 3}],
        ["ladder"],
    ),
    _resolve(
        "warning-block-without-stop",
        "block enabled with stop disabled warns block-without-stop",
        ["CFG-28", "CFG-29"],
        [{"ladder": {"stop": False}}, {"ladder": {"stop": False, "block": False}}],
        ["warning"],
    ),
    _resolve(
        "warning-dead-rungs",
        "a weaker rung at or above a stronger one is dead, named with the first stronger rung that shadows it",
        ["CFG-28", "CFG-30"],
        [
            {"ladder": {"observe": 3, "block": 3}},
            {"ladder": {"observe": 7, "steer": 5, "block": 4, "stop": 6}},
            {"ladder": {"observe": 6, "stop": 6, "block": False}},
        ],
        ["warning"],
    ),
    _resolve(
        "warning-escalation-both-ways",
        "escalate rung without mechanism, and mechanism without escalate rung",
        ["CFG-31", "CFG-32"],
        [
            {"ladder": {"escalate": 2}},
            {"escalation": {"model": "m"}},
            {"ladder": {"escalate": 2}, "escalation": {"model": "m"}},
        ],
        ["warning", "escalation"],
    ),
    _resolve(
        "escalation-advisor-false",
        "advisor false is no mechanism; {advisor: false} alone reads as no escalation",
        ["CFG-21", "CFG-22", "CFG-25"],
        [
            {"escalation": {"advisor": False}},
            {"escalation": {"advisor": False, "model": "m"}},
            {"escalation": {"advisor": {"model": "a"}}},
        ],
        ["escalation"],
    ),
    _resolve(
        "escalation-max-sanitising",
        "maxEscalations: floor of a finite number >= 1, else 2",
        ["CFG-23", "CFG-24"],
        [
            {"escalation": {"model": "m", "maxEscalations": v}}
            for v in (0, -1, 1.9, 5, NAN, INFINITY, "3", None, 0.5)
        ],
        ["escalation"],
    ),
    _resolve(
        "escalation-not-an-object",
        "an escalation member that is not a non-array object is absent",
        ["CFG-43"],
        [{"escalation": ["model"]}, {"escalation": "m"}, {"escalation": True}],
        ["escalation"],
    ),
    _resolve(
        "text-false-true-object",
        "text false disables with defaults; true is defaults; an object is taken as given",
        ["CFG-14", "CFG-42", "CFG-16", "CFG-17"],
        [
            {"text": False},
            {"text": True},
            {
                "text": {
                    "enabled": True,
                    "maxPeriodTokens": 3,
                    "minRepeats": 2,
                    "minCoveredTokens": 5,
                    "maxWindowTokens": 50,
                }
            },
        ],
        ["text"],
    ),
    _resolve(
        "text-partial-object",
        "a partial text object: only absent or null members fall back; no range sanitising",
        ["CFG-16"],
        [
            {"text": {"minRepeats": 0}},
            {"text": {"maxWindowTokens": None, "enabled": False}},
            {"text": {"minCoveredTokens": -3, "maxPeriodTokens": 2.5}},
        ],
        ["text"],
    ),
    scenario(
        "ladder-order",
        "the first rung that meets wins, in the order stop, block, escalate, steer, observe",
        ["LAD-01", "LAD-02", "LAD-03"],
        [_action(ALL_ON, s, True) for s in range(0, 7)],
        tags=["config", "ladder-action"],
    ),
    scenario(
        "ladder-allow-block-false",
        "allowBlock false skips block (falls to escalate, steer or observe) but never stop",
        ["LAD-03", "LAD-04"],
        [_action(ALL_ON, s, False) for s in (3, 4, 5)]
        + [_action(LADDER_DEFAULT, s, False) for s in (3, 5, 6)],
        tags=["config", "ladder-action"],
    ),
    scenario(
        "ladder-allow-escalate-false",
        "allowEscalate false skips escalate; absent means true",
        ["LAD-03", "LAD-05"],
        [
            _action(ALL_ON, 3, True, False),
            _action(ALL_ON, 3, True, True),
            _action(ALL_ON, 3, True),
            _action(ALL_ON, 4, False, False),
            _action({**ALL_ON, "steer": False}, 3, True, False),
        ],
        tags=["config", "ladder-action"],
    ),
    scenario(
        "ladder-disabled-rungs",
        "disabled rungs never meet; all disabled gives no action; streak 0 gives no action",
        ["LAD-02"],
        [
            _action({r: False for r in ALL_ON}, 100, True),
            _action(LADDER_DEFAULT, 0, True),
            _action(LADDER_DEFAULT, 1, True),
            _action(LADDER_DEFAULT, 2.5, True),
        ],
        tags=["config", "ladder-action"],
    ),
]

# Added for the mutation job (tests/mutation/REPORT.md): facts that no other
# vector pinned, each named after the spec statement it holds to.
SCENARIOS += [
    _resolve(
        "option-zero",
        "0 is not false: the option 0 or -0 resolves as {}, text 0 means defaults, advisor 0 configures escalation",
        ["CFG-40", "CFG-05", "CFG-42", "CFG-21", "CFG-22"],
        [0, NEG_ZERO, {"text": 0}, {"ladder": {"escalate": 3}, "escalation": {"advisor": 0}}],
        ["option"],
    ),
    scenario(
        "ladder-zero-and-negative-threshold",
        "a threshold of 0 or below is a number, not a disabled rung: streak 0 meets it",
        ["LAD-02", "LAD-03"],
        [
            _action(
                {"observe": 0, "steer": False, "escalate": False, "block": False, "stop": False},
                0,
                True,
            ),
            _action(
                {"observe": False, "steer": -1, "escalate": False, "block": False, "stop": False},
                0,
                True,
            ),
            _action(
                {"observe": False, "steer": False, "escalate": False, "block": 0, "stop": False},
                0,
                True,
            ),
        ],
        tags=["config", "ladder-action"],
    ),
]
