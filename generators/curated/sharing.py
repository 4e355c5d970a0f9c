"""Shared sub-objects: one object at several places, not its own ancestor (CAN-19, PROT-40).

Each scenario hands the reference key material in which the same array or
object appears more than once (an ``anchor`` and its ``alias`` tags, feature
``shared-objects``) and pins that it canonicalizes as if every place held a
copy, never as a cycle, on every path that fingerprints: the functions, loop
keys, ``declareRound`` and ``recordToolCall``.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import declare, op, record, ref, returns


def anchor(name: str, value: Any) -> Any:
    """``value`` (an array or object), named ``name`` for later aliases (PROT-40)."""
    return {"$js": "anchor", "name": name, "value": value}


def alias(name: str) -> Any:
    """The very object the earlier anchor ``name`` decoded to (PROT-40)."""
    return {"$js": "alias", "name": name}


FAMILY = "sharing"
DESCRIPTION = "shared, non-cyclic sub-objects canonicalize as copies on every fingerprint path (feature shared-objects)"

X = {"path": "a", "n": 1}
SHARED = {"left": anchor("x", X), "right": alias("x")}
COPIES = {"left": X, "right": X}

SCENARIOS: list[dict[str, Any]] = [
    {
        "name": "canonicalize-shared-member",
        "description": "an object held by two members of one object canonicalizes as two copies, not as a cycle",
        "spec": ["CAN-19", "PROT-40", "PROT-41"],
        "tags": ["sharing", "canonical"],
        "steps": [op("canonicalize", value=SHARED), op("canonicalize", value=COPIES)],
    },
    {
        "name": "fingerprint-tool-call-shared-member",
        "description": "fingerprintToolCall of key material with a shared member equals the fingerprint of its copies",
        "spec": ["CAN-19", "FP-02", "PROT-40"],
        "tags": ["sharing", "fingerprint"],
        "steps": [
            op("fingerprintToolCall", toolName="read", keyMaterial=SHARED),
            op("fingerprintToolCall", toolName="read", keyMaterial=COPIES),
        ],
    },
    {
        "name": "shared-at-two-depths",
        "description": "one object at depth 1 and again at depth 3 of the same key material is written in full at both places",
        "spec": ["CAN-19", "PROT-40"],
        "tags": ["sharing", "canonical"],
        "steps": [
            op(
                "canonicalize",
                value={"top": anchor("x", X), "deep": {"mid": {"leaf": alias("x")}}},
            ),
            op("fingerprintKeyMaterial", keyMaterial={"top": X, "deep": {"mid": {"leaf": X}}}),
        ],
    },
    {
        "name": "shared-array",
        "description": "one array held twice (side by side in an array and as two members) canonicalizes as copies",
        "spec": ["CAN-19", "PROT-40"],
        "tags": ["sharing", "canonical"],
        "steps": [
            op("canonicalize", value=[anchor("xs", [1, "two", [3]]), alias("xs")]),
            op("canonicalize", value={"a": anchor("xs", [1, "two", [3]]), "b": alias("xs")}),
        ],
    },
    {
        "name": "shared-and-cyclic-is-circular",
        "description": "a shared object that also contains itself still fails with the circular error: sharing does not hide a cycle",
        "spec": ["CAN-19", "CAN-34", "PROT-41"],
        "tags": ["sharing", "canonical", "errors"],
        "steps": [
            op("canonicalize", value={"a": anchor("x", {"self": ref(1)}), "b": alias("x")}),
        ],
    },
    {
        "name": "loop-key-fields-shared",
        "description": "a field-list loop key over arguments whose two fields hold one object yields key material written out twice",
        "spec": ["KEY-09", "KEY-11", "CAN-19", "PROT-42"],
        "tags": ["sharing", "loop-key"],
        "steps": [
            op(
                "resolveLoopKey",
                loopKey=["left", "right"],
                args={"left": anchor("x", X), "right": alias("x"), "other": 2},
            ),
        ],
    },
    {
        "name": "loop-key-function-returns-shared",
        "description": "a loop-key function returning an array that holds one object twice yields that key material, written out twice",
        "spec": ["KEY-12", "KEY-14", "CAN-19", "PROT-42"],
        "tags": ["sharing", "loop-key"],
        "steps": [
            op("resolveLoopKey", loopKey=returns([anchor("x", X), alias("x")]), args={}),
        ],
    },
    {
        "name": "record-shared-then-copies",
        "description": "recordToolCall of key material with a shared member, then of its copies: one fingerprint, streak 2",
        "spec": ["CAN-19", "MON-15", "PROT-40"],
        "tags": ["sharing", "monitor"],
        "option": True,
        "steps": [record("read", SHARED, 0), record("read", COPIES, 1)],
    },
    {
        "name": "declare-shared-record-copies",
        "description": "a declared call whose key material shares a member matches the record of its copies: the round set is that one fingerprint",
        "spec": ["CAN-19", "MON-09", "MON-19", "PROT-40"],
        "tags": ["sharing", "monitor", "declare"],
        "option": True,
        "steps": [
            declare(0, [("read", SHARED), ("read", {"path": "z"})]),
            record("read", COPIES, 0),
            record("read", {"path": "z"}, 0),
            declare(1, [("read", COPIES), ("read", {"path": "z"})]),
            record("read", SHARED, 1),
            record("read", {"path": "z"}, 1),
        ],
    },
    {
        "name": "declare-one-object-in-two-calls",
        "description": "one object given as the key material of two declared calls of a tool is one fingerprint in the declared set",
        "spec": ["MON-09", "PROT-40"],
        "tags": ["sharing", "monitor", "declare"],
        "option": True,
        "steps": [
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
    },
    {
        "name": "alias-is-the-same-object",
        "description": "an alias is the anchor's object, not a copy: changing a member through one place of a held object changes the other place too",
        "spec": ["PROT-40", "PROT-43", "PROT-45"],
        "tags": ["sharing", "memo"],
        "option": True,
        "steps": [
            {"op": "bindObject", "name": "k", "value": SHARED},
            {"op": "setMember", "name": "k", "path": ["left", "path"], "value": "b"},
            record("read", {"$js": "bound", "name": "k"}, 0),
            record("read", {"left": {"path": "b", "n": 1}, "right": {"path": "b", "n": 1}}, 1),
        ],
    },
]
