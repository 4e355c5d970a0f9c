"""Every double at the numeric inputs: rounds, ladder streaks, blob counters (issue 14).

The wire carries ``-0``, ``NaN`` and the infinities as tags (PROT-05), and a
round, a ``resolveLadderAction`` streak and every counter of a state blob may
be any double. One fact per vector, each decided by JS semantics in the spec
and, where the SDK corpus recorded it, by the SDK's answer:

* rounds compare by ``===`` (MON-63): ``-0`` is round ``0``, an infinity is
  only itself, ``NaN`` is no round (corpus classes ``mo.round.*`` and
  ``mo.roundpair.*``, e.g. requests 5198, 5270, 5294);
* a ladder streak compares as a double (LAD-09; corpus class ``la.streak``);
* a blob's ``NaN``/infinities are not finite and ``-0`` floors to ``-0``
  (STATE-35; corpus class ``mo.restore.create``, requests 8191, 8215, 8251,
  8275), in ``create``'s state and in ``restore`` alike.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from doomloop_kit.reference import fingerprint_tool_call
from doomloop_kit.vectorset.files import ABSENT

from ..steps import (
    INFINITY,
    NAN,
    NEG_INFINITY,
    NEG_ZERO,
    Scenario,
    can_escalate,
    declare,
    get_state,
    op,
    record,
    restore,
    scenario,
)

FAMILY = "numbers"
DESCRIPTION = "-0, NaN and the infinities as rounds, ladder streaks and blob counters"

A_KEY, B_KEY = {"path": "a"}, {"path": "b"}
A = fingerprint_tool_call("read", A_KEY)
B = fingerprint_tool_call("read", B_KEY)
ESCALATING = {
    "ladder": {"escalate": 3},
    "escalation": {"model": "strong-model", "maxEscalations": 1},
}


def _monitor(
    name: str,
    pins: str,
    spec: list[str],
    steps: list[dict[str, Any]],
    *,
    option: Any = True,
    initial_state: Any = ABSENT,
) -> Scenario:
    return scenario(
        name, pins, spec, steps, tags=["numbers"], option=option, initial_state=initial_state
    )


def _rounds(name: str, pins: str, spec: list[str], steps: list[dict[str, Any]]) -> dict[str, Any]:
    return _monitor(f"round-{name}", pins, ["MON-63", *spec], steps)


def _ladder(name: str, pins: str, ladder: dict[str, Any], streak: Any) -> dict[str, Any]:
    step = op("resolveLadderAction", ladder=ladder, streak=streak, allowBlock=True)
    return scenario(f"streak-{name}", pins, ["LAD-09", "LAD-02"], [step], tags=["numbers"])


def _state(
    name: str,
    pins: str,
    spec: list[str],
    blob: Any,
    *,
    initial: bool,
    after: list[dict[str, Any]] | None = None,
    option: Any = True,
) -> dict[str, Any]:
    """Read ``blob`` back by getState: as ``create``'s state (``initial``) or by restore."""
    if initial:
        return _monitor(
            f"state-{name}",
            pins,
            ["STATE-35", "MON-06", *spec],
            [get_state(), *(after or [])],
            option=option,
            initial_state=blob,
        )
    steps = [record("read", A_KEY, 0), restore(blob), get_state(), *(after or [])]
    return _monitor(f"state-{name}", pins, ["STATE-35", *spec], steps, option=option)


def _cap(name: str, pins: str, cap: Any) -> dict[str, Any]:
    return scenario(
        f"max-escalations-{name}",
        pins,
        ["CFG-24"],
        [op("resolveOption", option={"escalation": {"model": "m", "maxEscalations": cap}})],
        tags=["numbers"],
    )


def _tool(streak: Any, **members: Any) -> dict[str, Any]:
    return {"tools": {"read": {"fingerprint": A, "streak": streak, **members}}}


DEFAULT_LADDER = {"observe": 2, "steer": False, "escalate": False, "block": 3, "stop": 6}

SCENARIOS: list[dict[str, Any]] = [
    # -- rounds (MON-63) ----------------------------------------------------------
    _rounds(
        "neg-zero-is-zero",
        "a record at round -0 after one at round 0 is in the same round: duplicateInRound true, streak 1 (-0 === 0; SDK corpus request 5198)",
        ["MON-17", "MON-20"],
        [record("read", A_KEY, 0), record("read", A_KEY, NEG_ZERO)],
    ),
    _rounds(
        "zero-declaration-speaks-for-neg-zero",
        "a declaration at round 0 speaks for a record at round -0: the entry takes the declared set, so getState writes roundFingerprints (-0 === 0)",
        ["MON-18", "MON-28", "STATE-04"],
        [
            declare(0, [("read", A_KEY), ("read", B_KEY)]),
            record("read", A_KEY, NEG_ZERO),
            get_state(),
        ],
    ),
    _rounds(
        "neg-zero-declaration-speaks-for-zero",
        "a declaration at round -0 speaks for a record at round 0: the entry takes the declared set, so getState writes roundFingerprints (-0 === 0)",
        ["MON-18", "MON-28", "STATE-04"],
        [
            declare(NEG_ZERO, [("read", A_KEY), ("read", B_KEY)]),
            record("read", A_KEY, 0),
            get_state(),
        ],
    ),
    _rounds(
        "nan-is-no-round",
        "two records at round NaN are never the same round: the second is not a duplicate and scores a repeated round, streak 2 (NaN !== NaN; SDK corpus request 5270)",
        ["MON-17", "MON-20", "MON-25"],
        [record("read", A_KEY, NAN), record("read", A_KEY, NAN)],
    ),
    _rounds(
        "nan-declaration-speaks-for-none",
        "a declaration at round NaN speaks for no record, not even one at round NaN: the entry's round set is the call alone, so getState writes no roundFingerprints",
        ["MON-11", "MON-18", "MON-28"],
        [declare(NAN, [("read", A_KEY), ("read", B_KEY)]), record("read", A_KEY, NAN), get_state()],
    ),
    _rounds(
        "infinity-is-itself",
        "two records at round Infinity are the same round: the second is a duplicate, streak 1 (Infinity === Infinity; SDK corpus request 5294)",
        ["MON-17", "MON-20"],
        [record("read", A_KEY, INFINITY), record("read", A_KEY, INFINITY)],
    ),
    _rounds(
        "neg-infinity-is-itself",
        "two records at round -Infinity are the same round: the second is a duplicate, streak 1 (-Infinity === -Infinity)",
        ["MON-17", "MON-20"],
        [record("read", A_KEY, NEG_INFINITY), record("read", A_KEY, NEG_INFINITY)],
    ),
    _rounds(
        "infinity-is-not-neg-infinity",
        "a record at round -Infinity after one at Infinity starts a new round: not a duplicate, streak 2 (the infinities differ)",
        ["MON-17", "MON-25"],
        [record("read", A_KEY, INFINITY), record("read", A_KEY, NEG_INFINITY)],
    ),
    # -- ladder streaks (LAD-09) --------------------------------------------------
    _ladder(
        "neg-zero-meets-zero",
        "a streak of -0 meets a threshold of 0 (-0 >= 0): observe",
        {"observe": 0, "steer": False, "escalate": False, "block": False, "stop": False},
        NEG_ZERO,
    ),
    _ladder(
        "nan-meets-none",
        "a streak of NaN meets no rung, not even a threshold of -1 (comparisons with NaN are false): no action",
        {"observe": -1, "steer": False, "escalate": False, "block": False, "stop": False},
        NAN,
    ),
    _ladder(
        "infinity-meets-stop",
        "a streak of Infinity meets every enabled rung, so the strongest, stop, is the action",
        DEFAULT_LADDER,
        INFINITY,
    ),
    _ladder(
        "neg-infinity-meets-none",
        "a streak of -Infinity meets no rung, not even a threshold of -1: no action",
        {"observe": -1, "steer": False, "escalate": False, "block": False, "stop": False},
        NEG_INFINITY,
    ),
    # -- blob counters (STATE-35) -------------------------------------------------
    _state(
        "streak-neg-zero-initial",
        "create's state with a tool streak of -0 restores the entry at streak 1 (max(floor(-0), 1) = 1; SDK corpus request 8191)",
        ["STATE-21"],
        _tool(NEG_ZERO),
        initial=True,
    ),
    _state(
        "streak-neg-infinity",
        "restoring a tool streak of -Infinity skips the entry (not finite): getState has no tools",
        ["STATE-18"],
        _tool(NEG_INFINITY),
        initial=False,
    ),
    _state(
        "streak-infinity-initial",
        "create's state with a tool streak of Infinity (the tag, not an out-of-range literal) skips the entry (not finite)",
        ["STATE-18"],
        _tool(INFINITY),
        initial=True,
    ),
    _state(
        "call-streak-neg-zero-initial",
        "create's state with a per-call count of -0 drops that count (-0 >= 1 is false), keeping the others (SDK corpus request 8215)",
        ["STATE-24"],
        _tool(2, callStreaks={A: NEG_ZERO, B: 2}),
        initial=True,
    ),
    _state(
        "call-streak-neg-infinity",
        "restoring a per-call count of -Infinity drops that count (not finite), keeping the others",
        ["STATE-24"],
        _tool(2, callStreaks={A: NEG_INFINITY, B: 2}),
        initial=False,
    ),
    _state(
        "call-streak-nan-initial",
        "create's state with a per-call count of NaN drops that count (not finite), keeping the others",
        ["STATE-24"],
        _tool(2, callStreaks={A: NAN, B: 2}),
        initial=True,
    ),
    _state(
        "text-streak-neg-zero-initial",
        "create's state with a text streak of -0 holds it unchanged, and getState writes it as 0 (JSON.stringify(-0); SDK corpus request 8251)",
        ["STATE-27", "STATE-07", "DIV-12"],
        {"text": {"fingerprint": "t", "streak": NEG_ZERO}},
        initial=True,
    ),
    _state(
        "text-streak-nan",
        "restoring a text streak of NaN leaves no text streak (not finite)",
        ["STATE-27"],
        {"text": {"fingerprint": "t", "streak": NAN}},
        initial=False,
    ),
    _state(
        "text-streak-neg-infinity-initial",
        "create's state with a text streak of -Infinity leaves no text streak (not finite)",
        ["STATE-27"],
        {"text": {"fingerprint": "t", "streak": NEG_INFINITY}},
        initial=True,
    ),
    _state(
        "escalations-neg-zero-initial",
        "create's state with escalationsUsed -0 holds floor(-0) = -0, which getState omits (-0 > 0 is false; SDK corpus request 8275) and canEscalate reads as 0",
        ["STATE-28", "STATE-08", "MON-52"],
        {"escalationsUsed": NEG_ZERO},
        initial=True,
        after=[can_escalate()],
        option=ESCALATING,
    ),
    _state(
        "escalations-neg-infinity",
        "restoring escalationsUsed -Infinity restores 0 (not finite): getState omits it and one escalation is still allowed",
        ["STATE-28", "MON-52"],
        {"escalationsUsed": NEG_INFINITY},
        initial=False,
        after=[can_escalate()],
        option=ESCALATING,
    ),
    _state(
        "escalations-nan-initial",
        "create's state with escalationsUsed NaN restores 0 (not finite): getState omits it and one escalation is still allowed",
        ["STATE-28", "MON-52"],
        {"escalationsUsed": NAN},
        initial=True,
        after=[can_escalate()],
        option=ESCALATING,
    ),
    # -- the escalation cap (CFG-24; SDK corpus class ro.esc.max) ------------------
    _cap(
        "neg-zero",
        "a maxEscalations of -0 is below 1, so the cap is the default 2 (corpus ro.esc.max, -0 tag)",
        NEG_ZERO,
    ),
    _cap(
        "neg-infinity",
        "a maxEscalations of -Infinity is not finite: the cap is the default 2 (corpus ro.esc.max)",
        NEG_INFINITY,
    ),
    _cap(
        "just-below-one",
        "a maxEscalations of 0.9999999999999999 is below 1: the cap is the default 2, not floor = 0 (corpus ro.esc.max)",
        0.9999999999999999,
    ),
    _cap(
        "smallest-subnormal",
        "a maxEscalations of 5e-324 is positive but below 1: the cap is the default 2 (corpus ro.esc.max)",
        5e-324,
    ),
    _cap(
        "largest-double",
        "a maxEscalations of 1.7976931348623157e308 is finite and at least 1: the cap is that double itself, floor changes nothing (corpus ro.esc.max)",
        1.7976931348623157e308,
    ),
    _cap(
        "past-two-to-the-53",
        "a maxEscalations written 9007199254740993 is read as the double 9007199254740992, which is the cap (corpus ro.esc.max)",
        9007199254740993,
    ),
]
