"""Restoring hostile or foreign state blobs (spec section 10.2, STATE-12..30).

Each scenario builds some state, restores a blob, reads it back with
getState and then records calls that show which streaks survived. The
fingerprints written into blobs are inputs (what a writer would persist),
computed here from the reference's fingerprint function.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from doomloop_kit.reference import fingerprint_key_material, fingerprint_tool_call

from ..steps import (
    INFINITY,
    NAN,
    can_escalate,
    consume,
    declare,
    get_state,
    path_rounds,
    record,
    restore,
    scenario,
    text,
)

FAMILY = "restore"
DESCRIPTION = "restore of hostile and foreign blobs: fail-open reading, then the streaks it left"


def fp(path: str, tool: str = "read") -> str:
    return fingerprint_tool_call(tool, {"path": path})


A, B, C = fp("a"), fp("b"), fp("c")
SAME_TEXT = "Same again."
TEXT_FP = fingerprint_key_material(SAME_TEXT)
HUGE = 10**400  # a JSON integer literal beyond the double range: Infinity once parsed


def _after(tool: str = "read", paths: tuple[str, ...] = ("a",)) -> list[dict[str, Any]]:
    return [record(tool, {"path": p}, 0) for p in paths]


def _restored(
    name: str,
    pins: str,
    spec: list[str],
    blob: Any,
    *,
    setup: list[dict[str, Any]] | None = None,
    after: list[dict[str, Any]] | None = None,
    option: Any = True,
) -> dict[str, Any]:
    steps = (setup if setup is not None else path_rounds([["a"], ["a"]])) + [
        restore(blob),
        get_state(),
    ]
    steps += after if after is not None else _after()
    return scenario(name, pins, ["STATE-12", *spec], steps, tags=["restore"], option=option)


SCENARIOS: list[dict[str, Any]] = [
    _restored(
        "not-an-object-null",
        "restore(null) leaves the state exactly as it was (streak keeps climbing)",
        ["STATE-13"],
        None,
    ),
    *[
        _restored(
            f"not-an-object-{label}",
            f"restore of {label} leaves the state untouched",
            ["STATE-13"],
            blob,
        )
        for label, blob in (
            ("array", [{"tools": {}}]),
            ("string", '{"tools":{}}'),
            ("number", 3),
            ("boolean", True),
        )
    ],
    _restored(
        "empty-object-clears",
        "restore({}) replaces the state with an empty one",
        ["STATE-14", "STATE-16"],
        {},
    ),
    _restored(
        "valid-blob-continues",
        "a valid blob is adopted: the next record of a continues its streak",
        ["STATE-14", "STATE-17", "STATE-26"],
        {"tools": {"read": {"fingerprint": A, "streak": 2}}},
        setup=[],
        after=_after() + _after(paths=("b",)),
    ),
    _restored(
        "tool-value-wrong-types",
        "tool values with a non-string fingerprint or a non-number streak are skipped",
        ["STATE-17", "STATE-18"],
        {
            "tools": {
                "read": {"fingerprint": 5, "streak": 2},
                "grep": {"fingerprint": A, "streak": "2"},
                "fetch": {"fingerprint": A, "streak": True},
                "list": [A, 2],
                "find": None,
                "ok": {"fingerprint": fp("a", "ok"), "streak": 2},
            }
        },
        after=_after() + _after("ok"),
    ),
    _restored(
        "streak-clamping",
        "streaks are floored and clamped to [1, 1000000]; a non-finite streak invalidates the entry",
        ["STATE-18", "STATE-21", "DATA-12"],
        {
            "tools": {
                "neg": {"fingerprint": fp("a", "neg"), "streak": -5},
                "frac": {"fingerprint": fp("a", "frac"), "streak": 2.7},
                "huge": {"fingerprint": fp("a", "huge"), "streak": 5e6},
                "inf": {"fingerprint": fp("a", "inf"), "streak": HUGE},
                "nan": {"fingerprint": fp("a", "nan"), "streak": NAN},
                "zero": {"fingerprint": fp("a", "zero"), "streak": 0},
            }
        },
        setup=[],
        after=[record(t, {"path": "a"}, 0) for t in ("neg", "frac", "huge", "inf", "nan", "zero")],
    ),
    _restored(
        "streak-negative-infinity",
        "a streak of -1e400 (-Infinity once parsed) is not finite: the entry is skipped, not clamped to 1",
        ["STATE-18", "DATA-12"],
        {"tools": {"read": {"fingerprint": A, "streak": -HUGE}}},
        setup=[],
    ),
    _restored(
        "proto-and-constructor-tools",
        "__proto__ and constructor are ordinary tool names",
        ["STATE-17", "DIV-03", "MON-02"],
        {
            "tools": {
                "__proto__": {"fingerprint": fp("a", "__proto__"), "streak": 2},
                "constructor": {"fingerprint": fp("a", "constructor"), "streak": 1},
            }
        },
        setup=[],
        after=[
            record("__proto__", {"path": "a"}, 0),
            record("constructor", {"path": "a"}, 0),
            record("toString", {"path": "a"}, 0),
            get_state(),
        ],
    ),
    _restored(
        "round-fingerprints-unsorted-duplicates",
        "roundFingerprints are sorted on restore and duplicates kept",
        ["STATE-22", "STATE-23", "STATE-25"],
        {"tools": {"read": {"fingerprint": C, "streak": 2, "roundFingerprints": [C, A, B, A]}}},
        setup=[],
        after=[*path_rounds([["a", "b", "c"]]), get_state()],
    ),
    _restored(
        "round-fingerprints-one-element",
        "a one-element roundFingerprints is ignored: the set is [fingerprint]",
        ["STATE-22"],
        {"tools": {"read": {"fingerprint": A, "streak": 2, "roundFingerprints": [B]}}},
        setup=[],
        after=[*path_rounds([["a"]]), get_state()],
    ),
    _restored(
        "round-fingerprints-non-strings",
        "roundFingerprints with a non-string member is ignored entirely",
        ["STATE-22"],
        {"tools": {"read": {"fingerprint": A, "streak": 2, "roundFingerprints": [A, 7, B]}}},
        setup=[],
        after=[*path_rounds([["a", "b"]]), get_state()],
    ),
    _restored(
        "round-fingerprints-without-call-streaks",
        "a round set without callStreaks: every member gets the streak",
        ["STATE-22", "STATE-25"],
        {"tools": {"read": {"fingerprint": A, "streak": 2, "roundFingerprints": [A, B]}}},
        setup=[],
        after=[*path_rounds([["a", "b"]]), get_state()],
    ),
    _restored(
        "call-streaks-junk",
        "callStreaks keeps finite numbers >= 1 floored; strings, booleans, arrays, <1 dropped",
        ["STATE-24"],
        {
            "tools": {
                "read": {
                    "fingerprint": A,
                    "streak": 1,
                    "callStreaks": {A: 2.9, B: "3", C: -1, "x": 0.5, "y": [2], "z": True, "w": 1e9},
                }
            }
        },
        setup=[],
        after=[*path_rounds([["a"], ["b"], ["c"]], declared=False), get_state()],
    ),
    _restored(
        "call-streaks-all-junk-rebuilt",
        "when no per-call count survives, counts are rebuilt from the round set",
        ["STATE-24", "STATE-25"],
        {"tools": {"read": {"fingerprint": A, "streak": 3, "callStreaks": {A: 0, B: "x"}}}},
        setup=[],
        after=[*path_rounds([["a"]]), get_state()],
    ),
    _restored(
        "call-streaks-array-and-string",
        'callStreaks as an array has members "0", "1", ...; as a string, none',
        ["STATE-16", "STATE-24", "DIV-04"],
        {
            "tools": {
                "read": {"fingerprint": A, "streak": 2, "callStreaks": [4, 5]},
                "grep": {"fingerprint": fp("a", "grep"), "streak": 2, "callStreaks": "abc"},
            }
        },
        setup=[],
        after=[get_state(), *_after(), *_after("grep")],
    ),
    _restored(
        "tools-as-array",
        'tools as an array restores tools named "0", "1"',
        ["STATE-16", "STATE-17", "DIV-04"],
        {
            "tools": [
                {"fingerprint": fp("a", "0"), "streak": 2},
                {"fingerprint": fp("a", "1"), "streak": 1},
            ]
        },
        setup=[],
        after=[record("0", {"path": "a"}, 0), record("1", {"path": "a"}, 0)],
    ),
    _restored(
        "tools-junk",
        "tools as a string or number restores no tool",
        ["STATE-16"],
        {"tools": "read", "escalationsUsed": 1},
        after=_after(),
    ),
    _restored(
        "text-invalid",
        "an invalid text member means no text streak",
        ["STATE-27"],
        {"tools": {}, "text": {"fingerprint": 1, "streak": 2}},
        setup=[text(SAME_TEXT), text(SAME_TEXT)],
        after=[get_state(), text(SAME_TEXT)],
    ),
    _restored(
        "text-non-finite",
        "a text streak of 1e400 (Infinity) is invalid",
        ["STATE-27", "DATA-12"],
        {"tools": {}, "text": {"fingerprint": TEXT_FP, "streak": HUGE}},
        setup=[],
        after=[text(SAME_TEXT)],
    ),
    _restored(
        "text-not-clamped",
        "a valid text streak is kept unchanged (no floor, no clamp) and continues",
        ["STATE-27", "MON-46"],
        {"tools": {}, "text": {"fingerprint": TEXT_FP, "streak": 4.5}},
        setup=[],
        after=[get_state(), text(SAME_TEXT)],
    ),
    _restored(
        "escalations-used-junk",
        "escalationsUsed: floor of a finite number >= 0, else 0",
        ["STATE-28", "MON-52"],
        {"tools": {}, "escalationsUsed": 1.7},
        setup=[],
        after=[
            get_state(),
            can_escalate(),
            restore({"escalationsUsed": -1}),
            get_state(),
            restore({"escalationsUsed": "2"}),
            get_state(),
            restore({"escalationsUsed": INFINITY}),
            get_state(),
            restore({"escalationsUsed": 2}),
            can_escalate(),
        ],
        option={"ladder": {"escalate": 2}, "escalation": {"model": "m", "maxEscalations": 2}},
    ),
    _restored(
        "engine-fields-ignored",
        "stopVerdict, pendingSteer and unknown members are ignored and never echoed",
        ["STATE-29", "STATE-09"],
        {
            "tools": {"read": {"fingerprint": A, "streak": 2, "note": "x"}},
            "stopVerdict": {"action": "stop"},
            "pendingSteer": ["x"],
            "version": 9,
        },
        setup=[],
        after=[get_state(), *_after()],
    ),
    scenario(
        "initial-state-construct-then-restore",
        "a monitor constructed with an initial state behaves as construct-then-restore",
        ["MON-06", "STATE-14"],
        [get_state(), *_after()],
        tags=["restore"],
        option=True,
        initial_state={"tools": {"read": {"fingerprint": A, "streak": 2}}, "escalationsUsed": 1},
    ),
    scenario(
        "initial-state-not-an-object",
        "an initial state that is not an object leaves a fresh monitor",
        ["MON-06", "STATE-13"],
        [get_state(), *_after()],
        tags=["restore"],
        option=True,
        initial_state="garbage",
    ),
]

# Added for the mutation job (tests/mutation/REPORT.md): facts that no other
# vector pinned, each named after the spec statement it holds to.
SCENARIOS += [
    _restored(
        "restored-call-streak-below-round-streak",
        "a restored per-call count below the restored streak: the declared single call reports the round streak (6, stop) with the identical-arguments message, not the per-call one",
        ["STATE-24", "MON-26", "MON-27", "MON-34", "MSG-04"],
        {"tools": {"read": {"fingerprint": A, "streak": 5, "callStreaks": {A: 1}}}},
        setup=[],
        after=[
            declare(0, [("read", {"path": "a"})]),
            record("read", {"path": "a"}, 0),
            get_state(),
        ],
    ),
]

SCENARIOS += [
    _restored(
        "round-fingerprints-empty-array",
        "roundFingerprints [] is not a round set of more than one element: the round set is [fingerprint] and the call continues its streak",
        ["STATE-22"],
        {"tools": {"read": {"fingerprint": A, "streak": 2, "roundFingerprints": []}}},
        setup=[],
        after=[get_state(), *_after()],
    ),
    _restored(
        "large-streak-with-equal-counts",
        "a restored streak of 1000 whose one per-call count is also 1000 says nothing more: getState omits callStreaks",
        ["STATE-05", "STATE-21", "STATE-24"],
        {"tools": {"read": {"fingerprint": A, "streak": 1000, "callStreaks": {A: 1000}}}},
        setup=[],
        after=[get_state()],
    ),
    _restored(
        "escalations-used-negative",
        "a negative escalationsUsed (-0.5 or -1) reads as 0: two escalations then spend a budget of two",
        ["STATE-28", "MON-52"],
        {"tools": {}, "escalationsUsed": -0.5},
        setup=[],
        after=[
            consume(),
            consume(),
            can_escalate(),
            restore({"escalationsUsed": -1}),
            consume(),
            consume(),
            can_escalate(),
        ],
        option={"ladder": {"escalate": 2}, "escalation": {"model": "m", "maxEscalations": 2}},
    ),
]
