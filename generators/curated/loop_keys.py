"""Loop-key resolution (spec section 4)."""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import UNDEFINED, op, returns, scenario, throws

FAMILY = "loop-keys"
DESCRIPTION = "resolveLoopKey: absent, false, field lists, function forms and other shapes"

ARGS = {"path": "a.txt", "offset": 10, "limit": 5}


def _keys(
    name: str,
    pins: str,
    spec: list[str],
    cases: list[tuple[Any, Any]],
    tags: list[str] | None = None,
) -> dict[str, Any]:
    steps = []
    for loop_key, args in cases:
        step = op("resolveLoopKey", args=args)
        if loop_key is not UNDEFINED:
            step["loopKey"] = loop_key
        steps.append(step)
    return scenario(
        name, pins, ["KEY-01", "KEY-17", *spec], steps, tags=["loop-key", *(tags or [])]
    )


SCENARIOS: list[dict[str, Any]] = [
    _keys(
        "absent",
        "no declaration: key with the full arguments",
        ["KEY-05"],
        [(UNDEFINED, ARGS), (UNDEFINED, {})],
    ),
    _keys("false-exempt", "false: the call is exempt", ["KEY-06"], [(False, ARGS)]),
    _keys(
        "field-list-empty",
        "an empty list falls back (it would give every call one identity)",
        ["KEY-08"],
        [([], ARGS)],
    ),
    _keys(
        "field-list-none-present",
        "no listed field present: fallback",
        ["KEY-09", "KEY-10"],
        [(["missing"], ARGS), (["x", "y"], {})],
    ),
    _keys(
        "field-list-some-present",
        "the subset of listed string fields that are present, in listed order",
        ["KEY-09", "KEY-11"],
        [(["path"], ARGS), (["limit", "path", "nope"], ARGS), (["path", "path"], ARGS)],
    ),
    _keys(
        "field-list-non-string-entries",
        "non-string entries in the list are ignored",
        ["KEY-09"],
        [([1, None, "path", True], ARGS), ([1, 2], ARGS)],
    ),
    _keys(
        "field-list-null-value",
        "a present member whose value is null is still present",
        ["KEY-09", "KEY-11"],
        [(["path"], {"path": None}), (["path"], {"path": ""})],
    ),
    _keys(
        "function-returns-value",
        "a function returning a value: key with that value, used as it is",
        ["KEY-12", "KEY-14", "KEY-15"],
        [
            (returns({"k": 1}), ARGS),
            (returns("id-7"), ARGS),
            (returns(0), ARGS),
            (returns(False), ARGS),
            (returns([]), ARGS),
        ],
        ["function"],
    ),
    _keys(
        "function-returns-null",
        "a function returning null: the call is exempt",
        ["KEY-12", "KEY-15"],
        [(returns(None), ARGS)],
        ["function"],
    ),
    _keys(
        "function-returns-nothing",
        "a function returning nothing (undefined): fallback",
        ["KEY-12", "KEY-15"],
        [(returns(UNDEFINED), ARGS)],
        ["function"],
    ),
    _keys(
        "function-throws",
        "a function that throws: fallback, never an error",
        ["KEY-12", "KEY-13", "KEY-15"],
        [(throws("boom"), ARGS)],
        ["function"],
    ),
    _keys(
        "other-shapes",
        "null, true, a number, a string or an object as declaration: fallback",
        ["KEY-07"],
        [(None, ARGS), (True, ARGS), (3, ARGS), ("path", ARGS), ({"path": True}, ARGS)],
    ),
    {
        **_keys(
            "inherited-name-divergence",
            "toString and constructor are not own members of the arguments: fallback (JS 'in' would find them)",
            ["KEY-09", "KEY-10", "DIV-01"],
            [
                (["toString"], ARGS),
                (["constructor", "valueOf"], {"x": 1}),
                (["toString"], {"toString": "own"}),
            ],
            ["divergence"],
        ),
        "extraFeatures": ["json-own-members"],
    },
]

# Added for the mutation job (tests/mutation/REPORT.md): facts that no other
# vector pinned, each named after the spec statement it holds to.
SCENARIOS += [
    _keys(
        "args-beyond-the-double-range",
        "key material echoes integers as JS holds them: 2^53+1 as the nearest double, 10^400 as Infinity and -10^400 as -Infinity",
        ["KEY-05", "DATA-11", "DATA-12"],
        [(UNDEFINED, {"big": 2**53 + 1, "pos": 10**400, "neg": -(10**400)})],
        ["large-integers"],
    ),
]

SCENARIOS += [
    _keys(
        "args-echo-js-only-values",
        "key material is the arguments as given, JS-only values and shared containers included: each echoes in its tagged form",
        ["KEY-05", "KEY-14"],
        [
            (
                UNDEFINED,
                {
                    "nan": {"$js": "number", "value": "NaN"},
                    "inf": {"$js": "number", "value": "Infinity"},
                    "ninf": {"$js": "number", "value": "-Infinity"},
                    "nzero": {"$js": "number", "value": "-0"},
                    "numbers": [0.0, -1.5, 1.5, 0],
                    "fn": {"$js": "function"},
                    "sym": {"$js": "symbol"},
                    "undef": {"$js": "undefined"},
                    "calls": [returns(1), throws("no")],
                    "tagged": {"$js": "object", "value": {"$js": "plain", "k": 1}},
                    "self": {"$js": "ref", "up": 1},
                    "deep": [{"b": [{"$js": "ref", "up": 3}, {"$js": "ref", "up": 4}]}],
                },
            )
        ],
    ),
    _keys(
        "declaration-zero",
        "a declaration of 0 is neither false nor a list: it falls back to the arguments with a warning",
        ["KEY-06", "KEY-07"],
        [(0, ARGS)],
    ),
]
