"""Values at the boundary between JSON text and the JS data model (DATA-*, PROT-*).

Each scenario pins a rule a port's JSON layer must follow before the monitor
sees a value: whole numbers written with a fraction, integers past 2^53 as
round numbers, a function in data form inside key material, and a tool
named ``$js``, which must travel with the object escape.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import get_state, op, record, restore, resume, returns, scenario, text

FAMILY = "wire"
DESCRIPTION = "values at the JSON/JS boundary: 4.0 is 4, rounds past 2^53, data-form functions, a tool named $js"

F = "c" * 64

SCENARIOS: list[dict[str, Any]] = [
    scenario(
        "whole-number-floats-are-integers",
        "a threshold or text option written 4.0 is the integer 4 (a number has no separate integer type)",
        ["DATA-09", "LAD-02", "TXT-16"],
        [
            op(
                "resolveLadderAction",
                ladder={
                    "observe": 2.0,
                    "steer": False,
                    "escalate": False,
                    "block": 3.0,
                    "stop": 6.0,
                },
                streak=3.0,
                allowBlock=True,
            ),
            op(
                "detectTextRepetition",
                text="go on " * 4,
                options={"minRepeats": 4.0, "minCoveredTokens": 8.0},
            ),
        ],
        tags=["wire"],
    ),
    scenario(
        "text-options-written-with-fractions",
        "a monitor whose text options are written 2.0 detects as with 2",
        ["DATA-09", "CFG-16", "MON-41"],
        [text("a b a b"), text("a b a b")],
        tags=["wire", "text"],
        option={"text": {"minRepeats": 2.0, "minCoveredTokens": 2.0}},
    ),
    scenario(
        "round-numbers-past-2-53",
        "rounds 9007199254740993 and 9007199254740992 are the same double, so the same round: the second record is a duplicate",
        ["DATA-11", "MON-17", "MON-20"],
        [
            record("read", {"path": "a"}, 9007199254740993),
            record("read", {"path": "a"}, 9007199254740992),
            record("read", {"path": "a"}, 9007199254740994),
        ],
        tags=["wire", "duplicates"],
        option=True,
    ),
    scenario(
        "data-form-function-member-is-dropped",
        "a loop-key function in data form inside key material is a function: the member is left out",
        ["CAN-11", "CAN-12"],
        [
            op("canonicalize", value={"keep": 1, "fn": returns(1)}),
            op("canonicalize", value=[returns(1)]),
        ],
        tags=["wire", "canonical"],
    ),
    scenario(
        "tool-named-dollar-js",
        "a tool named $js travels with the object escape in state inputs and getState results, and survives a resume",
        ["PROT-07", "MON-02", "STATE-03"],
        [
            restore(
                {"tools": {"$js": "object", "value": {"$js": {"fingerprint": F, "streak": 2}}}}
            ),
            get_state(),
            resume(),
            record("$js", {"x": 1}, 0),
            record("$js", {"x": 1}, 1),
            get_state(),
        ],
        tags=["wire", "restore"],
        option=True,
    ),
    scenario(
        "ref-up-written-with-a-fraction",
        "ref up written 1.0 is the whole number 1 (a number has no separate integer type): the array contains itself",
        ["DATA-09", "PROT-42", "CAN-34"],
        [op("canonicalize", value=[{"$js": "ref", "up": 1.0}])],
        tags=["wire", "canonical"],
    ),
    scenario(
        "nest-depth-written-with-a-fraction",
        "nest depth written 2.0 is the whole number 2: the value inside two arrays",
        ["DATA-09", "PROT-42"],
        [op("canonicalize", value={"$js": "nest", "depth": 2.0, "value": 1})],
        tags=["wire", "canonical", "deep"],
    ),
    scenario(
        "tag-members-of-another-kind-are-ignored",
        "a member a tag's kind does not define is ignored: undefined carrying returns is undefined (feature undefined, not a loop-key function)",
        ["PROT-42", "CAN-11"],
        [op("canonicalize", value={"keep": 1, "u": {"$js": "undefined", "returns": 1}})],
        tags=["wire", "canonical"],
    ),
    scenario(
        "text-detector-ignores-enabled",
        "detectTextRepetition reads only its four numeric options: a string enabled among them is never read, so it needs no JS coercion",
        ["TXT-16", "CFG-45"],
        [op("detectTextRepetition", text="go on " * 8, options={"enabled": "yes"})],
        tags=["wire", "text"],
    ),
    scenario(
        "nest-depth-at-the-ceiling",
        "a nest depth of exactly 100,000 is decodable (the ceiling is inclusive): as key material it fails on depth, canonicalization, not bad-request",
        ["PROT-42", "CAN-31"],
        [op("canonicalize", value={"$js": "nest", "depth": 100000, "value": 1})],
        tags=["wire", "canonical", "deep"],
    ),
]
