"""Shared sub-objects: one object at several places, not its own ancestor (CAN-19, PROT-33).

Each scenario hands the reference key material in which the same array or
object appears more than once (an ``anchor`` and its ``alias`` tags, feature
``shared-objects``) and pins that it canonicalizes as if every place held a
copy, never as a cycle, on every path that fingerprints: the functions, loop
keys, ``declareRound`` and ``recordToolCall``.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import (
    alias,
    anchor,
    bind,
    bound,
    declare,
    op,
    record,
    ref,
    returns,
    scenario,
    set_member,
)

FAMILY = "sharing"
DESCRIPTION = "shared, non-cyclic sub-objects canonicalize as copies on every fingerprint path (feature shared-objects)"

X = {"path": "a", "n": 1}
SHARED = {"left": anchor("x", X), "right": alias("x")}
COPIES = {"left": X, "right": X}

SCENARIOS: list[dict[str, Any]] = [
    scenario(
        "canonicalize-shared-member",
        "an object held by two members of one object canonicalizes as two copies, not as a cycle",
        ["CAN-19", "PROT-33", "PROT-34"],
        [op("canonicalize", value=SHARED), op("canonicalize", value=COPIES)],
        tags=["sharing", "canonical"],
    ),
    scenario(
        "fingerprint-tool-call-shared-member",
        "fingerprintToolCall of key material with a shared member equals the fingerprint of its copies",
        ["CAN-19", "FP-02", "PROT-33"],
        [
            op("fingerprintToolCall", toolName="read", keyMaterial=SHARED),
            op("fingerprintToolCall", toolName="read", keyMaterial=COPIES),
        ],
        tags=["sharing", "fingerprint"],
    ),
    scenario(
        "shared-at-two-depths",
        "one object at depth 1 and again at depth 3 of the same key material is written in full at both places",
        ["CAN-19", "PROT-33"],
        [
            op(
                "canonicalize",
                value={"top": anchor("x", X), "deep": {"mid": {"leaf": alias("x")}}},
            ),
            op("fingerprintKeyMaterial", keyMaterial={"top": X, "deep": {"mid": {"leaf": X}}}),
        ],
        tags=["sharing", "canonical"],
    ),
    scenario(
        "shared-array",
        "one array held twice (side by side in an array and as two members) canonicalizes as copies",
        ["CAN-19", "PROT-33"],
        [
            op("canonicalize", value=[anchor("xs", [1, "two", [3]]), alias("xs")]),
            op("canonicalize", value={"a": anchor("xs", [1, "two", [3]]), "b": alias("xs")}),
        ],
        tags=["sharing", "canonical"],
    ),
    scenario(
        "shared-and-cyclic-is-circular",
        "a shared object that also contains itself still fails with the circular error: sharing does not hide a cycle",
        ["CAN-19", "CAN-34", "PROT-34"],
        [
            op("canonicalize", value={"a": anchor("x", {"self": ref(1)}), "b": alias("x")}),
        ],
        tags=["sharing", "canonical", "errors"],
    ),
    scenario(
        "loop-key-fields-shared",
        "a field-list loop key over arguments whose two fields hold one object yields key material written out twice",
        ["KEY-09", "KEY-11", "CAN-19", "PROT-35"],
        [
            op(
                "resolveLoopKey",
                loopKey=["left", "right"],
                args={"left": anchor("x", X), "right": alias("x"), "other": 2},
            ),
        ],
        tags=["sharing", "loop-key"],
    ),
    scenario(
        "loop-key-function-returns-shared",
        "a loop-key function returning an array that holds one object twice yields that key material, written out twice",
        ["KEY-12", "KEY-14", "CAN-19", "PROT-35"],
        [
            op("resolveLoopKey", loopKey=returns([anchor("x", X), alias("x")]), args={}),
        ],
        tags=["sharing", "loop-key"],
    ),
    scenario(
        "record-shared-then-copies",
        "recordToolCall of key material with a shared member, then of its copies: one fingerprint, streak 2",
        ["CAN-19", "MON-15", "PROT-33"],
        [record("read", SHARED, 0), record("read", COPIES, 1)],
        tags=["sharing", "monitor"],
        option=True,
    ),
    scenario(
        "declare-shared-record-copies",
        "a declared call whose key material shares a member matches the record of its copies: the round set is that one fingerprint",
        ["CAN-19", "MON-09", "MON-19", "PROT-33"],
        [
            declare(0, [("read", SHARED), ("read", {"path": "z"})]),
            record("read", COPIES, 0),
            record("read", {"path": "z"}, 0),
            declare(1, [("read", COPIES), ("read", {"path": "z"})]),
            record("read", SHARED, 1),
            record("read", {"path": "z"}, 1),
        ],
        tags=["sharing", "monitor", "declare"],
        option=True,
    ),
    scenario(
        "declare-one-object-in-two-calls",
        "one object given as the key material of two declared calls of a tool is one fingerprint in the declared set",
        ["MON-09", "PROT-33"],
        [
            {
                "op": "declareRound",
                "round": 0,
                "calls": [
                    {"toolName": "read", "keyMaterial": anchor("x", X)},
                    {"toolName": "read", "keyMaterial": alias("x")},
                ],
            },
            record("read", X, 0),
            record("read", X, 0),
        ],
        tags=["sharing", "monitor", "declare"],
        option=True,
    ),
    scenario(
        "alias-is-the-same-object",
        "an alias is the anchor's object, not a copy: changing a member through one place of a held object changes the other place too",
        ["PROT-33", "PROT-36", "PROT-38"],
        [
            bind("k", SHARED),
            set_member("k", ["left", "path"], "b"),
            record("read", bound("k"), 0),
            record("read", {"left": {"path": "b", "n": 1}, "right": {"path": "b", "n": 1}}, 1),
        ],
        tags=["sharing", "memo"],
        option=True,
    ),
]
