"""Undecodable tagged values: each vector sends one, and expects ``bad-request`` (PROT-40).

Protocol revision 1.3 lets a step expect ``{"error": "bad-request"}`` when its
request carries a tagged value the encoding does not define (PROT-42): an
unknown kind, a malformed ``number``, ``bigint`` (PROT-26), ``ref``, ``nest`` or
``object`` tag, an ``anchor``/``alias`` breaking PROT-33/PROT-34, a ``bound``
tag naming no held object (PROT-37), or a tag past the decode limit
(PROT-41). Every vector holds exactly one such value, so a harness that
accepts it, or rejects a neighbouring well-formed one, fails by name. The
expectations come from the spec's rules, not from the reference's output:
each description says which rule rejects the value (or, for the few
well-formed neighbours, which rule accepts it). A rejected request leaves
its session as it was (PROT-40); two vectors observe that through the
streak of the next call.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import alias, anchor, bind, bound, declare, get_state, op, record, resume, scenario

FAMILY = "wire-errors"
DESCRIPTION = (
    "one undecodable tagged value per vector, answered bad-request (protocol 1.3, PROT-40..PROT-42)"
)

DEPTH_LIMIT = 100
"""The decode limit of PROT-41: a tag inside this many containers is undecodable."""


def _inside(depth: int, value: Any) -> Any:
    """``value`` inside ``depth`` plain one-element arrays (no ``nest`` tag: its arrays
    do not count towards the decode limit, PROT-41)."""
    for _ in range(depth):
        value = [value]
    return value


def _rejected(
    name: str, value: Any, description: str, spec: list[str], tags: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A vector whose one step canonicalizes ``value``, an undecodable tagged value."""
    return scenario(
        name,
        description,
        ["PROT-40", *spec],
        [op("canonicalize", value=value)],
        tags=["wire", "wire-errors", *tags],
    )


KINDS: list[dict[str, Any]] = [
    _rejected(
        "kind-unknown",
        {"$js": "void"},
        "a kind the encoding does not define ($js void) is undecodable, not undefined",
        ["PROT-42"],
    ),
    _rejected(
        "kind-not-a-string",
        {"$js": ["undefined"]},
        "a kind must be a string: an array holding the name undefined is undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "kind-is-case-sensitive",
        {"$js": "Object", "value": {"a": 1}},
        "kinds are matched exactly: Object with an object value is not the object tag",
        ["PROT-42"],
    ),
    _rejected(
        "kind-unknown-with-object-value",
        {"$js": "record", "value": {"a": 1}},
        "an unknown kind carrying an object value is undecodable: only the object kind reads value as an object literal",
        ["PROT-42"],
    ),
    _rejected(
        "kind-unknown-with-up",
        [{"$js": "reference", "up": 1}],
        "an unknown kind carrying a valid up is undecodable: only the ref kind (exactly ref) reads up",
        ["PROT-42"],
    ),
]

NUMBERS: list[dict[str, Any]] = [
    _rejected(
        "number-kind-capitalised",
        {"$js": "Number", "value": "NaN"},
        "kinds are matched exactly: Number carrying NaN is not the number tag",
        ["PROT-42"],
    ),
    _rejected(
        "number-name-lowercase",
        {"$js": "number", "value": "nan"},
        "a number tag's value is one of NaN, Infinity, -Infinity, -0, spelt exactly: nan is undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "number-plus-infinity",
        {"$js": "number", "value": "+Infinity"},
        "+Infinity is not one of the four names of a number tag: undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "number-finite-value",
        {"$js": "number", "value": 1},
        "a number tag carries only the four names; a finite number travels as plain JSON, so value 1 is undecodable",
        ["PROT-42", "PROT-04"],
    ),
    _rejected(
        "number-value-array",
        {"$js": "number", "value": ["NaN"]},
        "a number tag's value must be the name itself, not an array holding it: undecodable",
        ["PROT-42"],
    ),
]

BIGINTS: list[dict[str, Any]] = [
    _rejected(
        "bigint-plus-sign",
        {"$js": "bigint", "value": "+1"},
        "bigint digits are -?[0-9]+: a leading plus sign is undecodable",
        ["PROT-26"],
    ),
    _rejected(
        "bigint-underscore",
        {"$js": "bigint", "value": "1_0"},
        "bigint digits are -?[0-9]+: a digit separator (which some integer parsers accept) is undecodable",
        ["PROT-26"],
    ),
    _rejected(
        "bigint-non-ascii-digits",
        {"$js": "bigint", "value": "\u0661\u0662"},
        "bigint digits are ASCII [0-9]: Arabic-Indic digits (which some integer parsers accept) are undecodable",
        ["PROT-26"],
    ),
    _rejected(
        "bigint-trailing-newline",
        {"$js": "bigint", "value": "12\n"},
        "bigint digits are the whole string: a trailing line feed (which a $-anchored pattern may let through) is undecodable",
        ["PROT-26"],
    ),
    _rejected(
        "bigint-json-number",
        {"$js": "bigint", "value": 12},
        "a bigint's value is a string of digits: the JSON number 12 is undecodable",
        ["PROT-26"],
    ),
    _rejected(
        "bigint-empty",
        {"$js": "bigint", "value": ""},
        "bigint digits are -?[0-9]+, at least one digit: the empty string is undecodable",
        ["PROT-26"],
    ),
]

REFS_AND_NESTS: list[dict[str, Any]] = [
    _rejected(
        "ref-up-zero",
        [{"$js": "ref", "up": 0}],
        "ref up counts enclosing containers from 1: up 0 names none and is undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "ref-up-past-the-root",
        [{"$js": "ref", "up": 2}],
        "ref up 2 inside one array names a container that does not enclose it: undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "ref-up-fraction",
        [{"$js": "ref", "up": 1.5}],
        "ref up must be a whole number: 1.5 is undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "ref-up-boolean",
        [{"$js": "ref", "up": True}],
        "ref up must be a number: true (1 only by JS coercion) is undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "ref-up-string",
        [{"$js": "ref", "up": "1"}],
        "ref up must be a number: the string 1 is undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "nest-depth-negative",
        {"$js": "nest", "depth": -1, "value": 1},
        "nest depth must be a whole number >= 0: -1 is undecodable (not the bare value)",
        ["PROT-42"],
        ("deep",),
    ),
    _rejected(
        "nest-depth-past-ceiling",
        {"$js": "nest", "depth": 100001, "value": 1},
        "a nest depth above 100,000 is undecodable: a decoder is never asked to build a structure it cannot hold",
        ["PROT-42"],
        ("deep",),
    ),
    _rejected(
        "nest-depth-huge",
        {"$js": "nest", "depth": 1e15, "value": 1},
        "a nest depth of 1e15 is a whole number but far above 100,000: undecodable at once, not a hang",
        ["PROT-42"],
        ("deep",),
    ),
    _rejected(
        "nest-depth-fraction",
        {"$js": "nest", "depth": 1.5, "value": 1},
        "nest depth must be a whole number: 1.5 is undecodable",
        ["PROT-42"],
        ("deep",),
    ),
    _rejected(
        "nest-depth-boolean",
        {"$js": "nest", "depth": True, "value": 1},
        "nest depth must be a number: true is undecodable",
        ["PROT-42"],
        ("deep",),
    ),
    _rejected(
        "nest-depth-missing",
        {"$js": "nest", "value": 1},
        "a nest tag without depth is undecodable",
        ["PROT-42"],
        ("deep",),
    ),
]

OBJECTS: list[dict[str, Any]] = [
    _rejected(
        "object-value-array",
        {"$js": "object", "value": [1]},
        "an object tag's value must be a JSON object: an array is undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "object-value-missing",
        {"$js": "object"},
        "an object tag without value is undecodable (not an empty object)",
        ["PROT-42"],
    ),
    _rejected(
        "object-value-a-number-name",
        {"$js": "object", "value": "NaN"},
        "an object tag's value must be a JSON object, even a string that names a number: undecodable",
        ["PROT-42"],
    ),
    _rejected(
        "object-value-null",
        {"$js": "object", "value": None},
        "an object tag's value must be a JSON object: null is undecodable",
        ["PROT-42"],
    ),
]

SHARING: list[dict[str, Any]] = [
    _rejected(
        "anchor-name-missing",
        {"$js": "anchor", "value": [1]},
        "an anchor without a name is undecodable",
        ["PROT-33"],
        ("sharing",),
    ),
    _rejected(
        "anchor-name-empty",
        anchor("", [1]),
        "an anchor's name is a non-empty string: the empty string is undecodable",
        ["PROT-33"],
        ("sharing",),
    ),
    _rejected(
        "anchor-name-number",
        anchor(1, [1]),
        "an anchor's name is a string: the number 1 is undecodable",
        ["PROT-33"],
        ("sharing",),
    ),
    _rejected(
        "anchor-defined-twice",
        [anchor("a", [1]), anchor("a", [2])],
        "the same name anchored twice in one member, one after the other, is undecodable",
        ["PROT-33", "PROT-34"],
        ("sharing",),
    ),
    _rejected(
        "anchor-defined-inside-itself",
        anchor("a", [anchor("a", [1])]),
        "an anchor re-using the name of the anchor it is inside is defined twice: undecodable",
        ["PROT-33", "PROT-34"],
        ("sharing",),
    ),
    _rejected(
        "anchor-holds-a-number",
        anchor("a", 1),
        "an anchor holds an array or an object: the number 1 is undecodable",
        ["PROT-33", "PROT-34"],
        ("sharing",),
    ),
    _rejected(
        "alias-name-empty",
        [anchor("a", [1]), alias("")],
        "an alias's name is a non-empty string: the empty string is undecodable",
        ["PROT-33"],
        ("sharing",),
    ),
    _rejected(
        "alias-inside-its-anchor",
        anchor("a", [alias("a")]),
        "an alias inside its own anchor is a cycle, written ref: undecodable",
        ["PROT-34"],
        ("sharing",),
    ),
    _rejected(
        "alias-names-no-anchor",
        [anchor("a", [1]), alias("b")],
        "an alias naming no anchor of its member is undecodable",
        ["PROT-34"],
        ("sharing",),
    ),
    scenario(
        "alias-of-another-member",
        "anchor names are scoped to one input member: a loopKey alias of an anchor in args is undecodable",
        ["PROT-40", "PROT-33"],
        [
            op(
                "resolveLoopKey",
                args={"path": anchor("a", ["x"])},
                loopKey={"$js": "function", "returns": alias("a")},
            )
        ],
        tags=["wire", "wire-errors", "sharing"],
    ),
    scenario(
        "alias-of-another-request",
        "anchor names are scoped to one request: an alias of the previous request's anchor is undecodable",
        ["PROT-40", "PROT-33"],
        [
            op("canonicalize", value=anchor("a", [1])),
            op("canonicalize", value=alias("a")),
        ],
        tags=["wire", "wire-errors", "sharing"],
    ),
]

BOUND: list[dict[str, Any]] = [
    _rejected(
        "bound-in-a-function-operation",
        bound("k"),
        "a function operation has no session, so a bound tag there is undecodable",
        ["PROT-37"],
        ("memo",),
    ),
    scenario(
        "bound-name-not-held",
        "a bound tag naming no object the session holds is undecodable",
        ["PROT-40", "PROT-37"],
        [bind("k", {"path": "a"}), record("read", bound("j"), 0)],
        tags=["wire", "wire-errors", "memo"],
        option=True,
    ),
    scenario(
        "bound-name-number",
        "a bound tag's name is a non-empty string: the number 1 is undecodable",
        ["PROT-40", "PROT-37"],
        [bind("k", {"path": "a"}), record("read", bound(1), 0)],
        tags=["wire", "wire-errors", "memo"],
        option=True,
    ),
    scenario(
        "bound-after-resume",
        "held objects live as long as the session: after a resume the bound name is unknown and undecodable",
        ["PROT-40", "PROT-36", "PROT-37"],
        [
            bind("k", {"path": "a"}),
            record("read", bound("k"), 0),
            resume(),
            record("read", bound("k"), 1),
        ],
        tags=["wire", "wire-errors", "memo", "restore"],
        option=True,
    ),
]

DEPTH: list[dict[str, Any]] = [
    _rejected(
        "tag-at-the-decode-limit",
        _inside(DEPTH_LIMIT, {"$js": "object", "value": {}}),
        f"a tag inside {DEPTH_LIMIT} arrays is past the decode limit: undecodable",
        ["PROT-41"],
        ("deep",),
    ),
    scenario(
        "tag-just-inside-the-decode-limit",
        f"a tag inside {DEPTH_LIMIT - 1} arrays is decoded, not rejected: the key material then fails on depth",
        ["PROT-41", "CAN-31"],
        [op("canonicalize", value=_inside(DEPTH_LIMIT - 1, {"$js": "object", "value": {}}))],
        tags=["wire", "wire-errors", "deep"],
    ),
    scenario(
        "plain-json-past-the-decode-limit",
        f"plain JSON past the decode limit (an object inside {DEPTH_LIMIT} arrays) is not rejected: it is kept as it is and fails canonicalization on depth",
        ["PROT-41", "PROT-27", "CAN-31"],
        [op("canonicalize", value=_inside(DEPTH_LIMIT, {"a": 1}))],
        tags=["wire", "wire-errors", "deep"],
    ),
]

SESSIONS: list[dict[str, Any]] = [
    scenario(
        "rejected-record-changes-nothing",
        "a recordToolCall rejected for its key material records nothing: the next call of round 1 continues the streak of round 0",
        ["PROT-40", "PROT-26", "MON-17"],
        [
            record("read", {"path": "a"}, 0),
            record("read", {"n": {"$js": "bigint", "value": "+1"}}, 1),
            record("read", {"path": "a"}, 1),
            get_state(),
        ],
        tags=["wire", "wire-errors"],
        option=True,
    ),
    scenario(
        "rejected-declare-round-changes-nothing",
        "a declareRound rejected for its second call's key material declares nothing, not even its first call",
        ["PROT-40", "PROT-42", "MON-10"],
        [
            declare(0, [("read", {"path": "a"}), ("read", {"$js": "void"})]),
            get_state(),
            record("read", {"path": "a"}, 0),
        ],
        tags=["wire", "wire-errors"],
        option=True,
    ),
]

SCENARIOS: list[dict[str, Any]] = [
    *KINDS,
    *NUMBERS,
    *BIGINTS,
    *REFS_AND_NESTS,
    *OBJECTS,
    *SHARING,
    *BOUND,
    *DEPTH,
    *SESSIONS,
]
