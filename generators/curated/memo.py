"""The per-object fingerprint memo over the protocol (MON-60, PROT-43..PROT-46).

Key material held by the session (``bindObject``), changed in place
(``setMember``) and handed to ``declareRound`` / ``recordToolCall`` as the
very same object (``bound`` tags, feature ``object-identity``). Each scenario
pins one consequence of the brief's §10.8: the first fingerprint computed for
an (object, tool) pair is reused for the monitor's lifetime, even after the
object changed.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import bigint, declare, record, restore


def bound(name: str) -> Any:
    """The object the session bound to ``name`` (PROT-44)."""
    return {"$js": "bound", "name": name}


def bind(name: str, value: Any) -> dict[str, Any]:
    return {"op": "bindObject", "name": name, "value": value}


def set_member(name: str, path: list[str | int], value: Any) -> dict[str, Any]:
    return {"op": "setMember", "name": name, "path": path, "value": value}


FAMILY = "memo"
DESCRIPTION = "the per-object fingerprint memo of MON-60: the same object, changed after it was fingerprinted (feature object-identity)"

SCENARIOS: list[dict[str, Any]] = [
    {
        "name": "declared-then-mutated-record-is-stale",
        "description": "an object declared, changed, then recorded in the same round keeps the declared fingerprint and is a member of the declared set",
        "spec": ["MON-60", "ENG-136", "PROT-44", "PROT-45"],
        "tags": ["memo", "declare"],
        "option": True,
        "steps": [
            bind("k", {"path": "a"}),
            declare(0, [("read", bound("k")), ("read", {"path": "b"})]),
            set_member("k", ["path"], "b"),
            record("read", bound("k"), 0),
            record("read", {"path": "b"}, 0),
        ],
    },
    {
        "name": "recorded-then-mutated-next-round-is-stale",
        "description": "an object recorded, changed, then recorded again in the next round gets the first fingerprint: streak 2",
        "spec": ["MON-60", "PROT-44", "PROT-45"],
        "tags": ["memo"],
        "option": True,
        "steps": [
            bind("k", {"path": "a"}),
            record("read", bound("k"), 0),
            set_member("k", ["path"], "b"),
            record("read", bound("k"), 1),
        ],
    },
    {
        "name": "equal-distinct-objects-not-shared",
        "description": "two distinct objects with equal contents have their own memo entries: the second, changed before its first record, gets its new fingerprint",
        "spec": ["MON-60", "PROT-43"],
        "tags": ["memo"],
        "option": True,
        "steps": [
            bind("k1", {"path": "a"}),
            bind("k2", {"path": "a"}),
            record("read", bound("k1"), 0),
            set_member("k2", ["path"], "b"),
            record("read", bound("k2"), 1),
        ],
    },
    {
        "name": "memo-is-per-tool",
        "description": "the memo is keyed by object then tool name: the same changed object recorded for another tool is fingerprinted afresh",
        "spec": ["MON-60"],
        "tags": ["memo"],
        "option": True,
        "steps": [
            bind("k", {"path": "a"}),
            record("read", bound("k"), 0),
            set_member("k", ["path"], "b"),
            record("write", bound("k"), 0),
            record("write", {"path": "b"}, 1),
        ],
    },
    {
        "name": "nested-change-is-stale",
        "description": "changing a member nested inside the recorded object leaves its memoised fingerprint in place",
        "spec": ["MON-60", "PROT-45"],
        "tags": ["memo"],
        "option": True,
        "steps": [
            bind("k", {"query": {"terms": ["x"]}}),
            record("search", bound("k"), 0),
            set_member("k", ["query", "terms", 1], "y"),
            record("search", bound("k"), 1),
        ],
    },
    {
        "name": "memo-keys-the-key-material-object",
        "description": "a fresh object wrapping the changed one is not memoised with it: the memo keys the key material itself, not its members",
        "spec": ["MON-60", "PROT-44"],
        "tags": ["memo"],
        "option": True,
        "steps": [
            bind("k", {"path": "a"}),
            record("read", {"wrap": bound("k")}, 0),
            set_member("k", ["path"], "b"),
            record("read", {"wrap": bound("k")}, 1),
        ],
    },
    {
        "name": "restore-keeps-memo",
        "description": "restore does not clear the memo: after a restore the changed object still gets its first fingerprint",
        "spec": ["MON-60", "STATE-12"],
        "tags": ["memo", "restore"],
        "option": True,
        "steps": [
            bind("k", {"path": "a"}),
            record("read", bound("k"), 0),
            restore({}),
            set_member("k", ["path"], "b"),
            record("read", bound("k"), 1),
        ],
    },
    {
        "name": "failed-fingerprint-not-memoised",
        "description": "key material that fails to canonicalize leaves no memo entry: once changed to a hashable value it is fingerprinted",
        "spec": ["MON-60", "CAN-33"],
        "tags": ["memo", "errors"],
        "option": True,
        "steps": [
            bind("k", {"size": bigint(1)}),
            record("read", bound("k"), 0),
            set_member("k", ["size"], 1),
            record("read", bound("k"), 0),
        ],
    },
    {
        "name": "declared-set-uses-memo",
        "description": "two declared objects, the first changed to equal the second before recording: their memoised fingerprints stay distinct, no duplicate in the round",
        "spec": ["MON-60", "MON-09", "MON-17"],
        "tags": ["memo", "declare", "duplicates"],
        "option": True,
        "steps": [
            bind("k1", {"path": "a"}),
            bind("k2", {"path": "b"}),
            declare(0, [("read", bound("k1")), ("read", bound("k2"))]),
            set_member("k1", ["path"], "b"),
            record("read", bound("k1"), 0),
            record("read", bound("k2"), 0),
        ],
    },
    {
        "name": "shared-bound-object-in-two-bindings",
        "description": "an object bound inside two bound objects is one object: changing it through one binding changes what the other holds",
        "spec": ["PROT-43", "PROT-45"],
        "tags": ["memo"],
        "option": True,
        "steps": [
            bind("inner", {"path": "a"}),
            bind("k1", {"v": bound("inner")}),
            bind("k2", {"v": bound("inner")}),
            record("read", bound("k1"), 0),
            set_member("inner", ["path"], "b"),
            record("read", bound("k2"), 1),
        ],
    },
]
