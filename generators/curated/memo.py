"""The per-object fingerprint memo over the protocol (MON-60, PROT-36..PROT-39).

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

from ..steps import bigint, bind, bound, declare, record, restore, scenario, set_member

FAMILY = "memo"
DESCRIPTION = "the per-object fingerprint memo of MON-60: the same object, changed after it was fingerprinted (feature object-identity)"

SCENARIOS: list[dict[str, Any]] = [
    scenario(
        "declared-then-mutated-record-is-stale",
        "an object declared, changed, then recorded in the same round keeps the declared fingerprint and is a member of the declared set",
        ["MON-60", "ENG-136", "PROT-37", "PROT-38"],
        [
            bind("k", {"path": "a"}),
            declare(0, [("read", bound("k")), ("read", {"path": "b"})]),
            set_member("k", ["path"], "b"),
            record("read", bound("k"), 0),
            record("read", {"path": "b"}, 0),
        ],
        tags=["memo", "declare"],
        option=True,
    ),
    scenario(
        "recorded-then-mutated-next-round-is-stale",
        "an object recorded, changed, then recorded again in the next round gets the first fingerprint: streak 2",
        ["MON-60", "PROT-37", "PROT-38"],
        [
            bind("k", {"path": "a"}),
            record("read", bound("k"), 0),
            set_member("k", ["path"], "b"),
            record("read", bound("k"), 1),
        ],
        tags=["memo"],
        option=True,
    ),
    scenario(
        "equal-distinct-objects-not-shared",
        "two distinct objects with equal contents have their own memo entries: the second, changed before its first record, gets its new fingerprint",
        ["MON-60", "PROT-36"],
        [
            bind("k1", {"path": "a"}),
            bind("k2", {"path": "a"}),
            record("read", bound("k1"), 0),
            set_member("k2", ["path"], "b"),
            record("read", bound("k2"), 1),
        ],
        tags=["memo"],
        option=True,
    ),
    scenario(
        "memo-is-per-tool",
        "the memo is keyed by object then tool name: the same changed object recorded for another tool is fingerprinted afresh",
        ["MON-60"],
        [
            bind("k", {"path": "a"}),
            record("read", bound("k"), 0),
            set_member("k", ["path"], "b"),
            record("write", bound("k"), 0),
            record("write", {"path": "b"}, 1),
        ],
        tags=["memo"],
        option=True,
    ),
    scenario(
        "nested-change-is-stale",
        "changing a member nested inside the recorded object leaves its memoised fingerprint in place",
        ["MON-60", "PROT-38"],
        [
            bind("k", {"query": {"terms": ["x"]}}),
            record("search", bound("k"), 0),
            set_member("k", ["query", "terms", 1], "y"),
            record("search", bound("k"), 1),
        ],
        tags=["memo"],
        option=True,
    ),
    scenario(
        "memo-keys-the-key-material-object",
        "a fresh object wrapping the changed one is not memoised with it: the memo keys the key material itself, not its members",
        ["MON-60", "PROT-37"],
        [
            bind("k", {"path": "a"}),
            record("read", {"wrap": bound("k")}, 0),
            set_member("k", ["path"], "b"),
            record("read", {"wrap": bound("k")}, 1),
        ],
        tags=["memo"],
        option=True,
    ),
    scenario(
        "restore-keeps-memo",
        "restore does not clear the memo: after a restore the changed object still gets its first fingerprint",
        ["MON-60", "STATE-12"],
        [
            bind("k", {"path": "a"}),
            record("read", bound("k"), 0),
            restore({}),
            set_member("k", ["path"], "b"),
            record("read", bound("k"), 1),
        ],
        tags=["memo", "restore"],
        option=True,
    ),
    scenario(
        "failed-fingerprint-not-memoised",
        "key material that fails to canonicalize leaves no memo entry: once changed to a hashable value it is fingerprinted",
        ["MON-60", "CAN-33"],
        [
            bind("k", {"size": bigint(1)}),
            record("read", bound("k"), 0),
            set_member("k", ["size"], 1),
            record("read", bound("k"), 0),
        ],
        tags=["memo", "errors"],
        option=True,
    ),
    scenario(
        "declared-set-uses-memo",
        "two declared objects, the first changed to equal the second before recording: their memoised fingerprints stay distinct, no duplicate in the round",
        ["MON-60", "MON-09", "MON-17"],
        [
            bind("k1", {"path": "a"}),
            bind("k2", {"path": "b"}),
            declare(0, [("read", bound("k1")), ("read", bound("k2"))]),
            set_member("k1", ["path"], "b"),
            record("read", bound("k1"), 0),
            record("read", bound("k2"), 0),
        ],
        tags=["memo", "declare", "duplicates"],
        option=True,
    ),
    scenario(
        "shared-bound-object-in-two-bindings",
        "an object bound inside two bound objects is one object: changing it through one binding changes what the other holds",
        ["PROT-36", "PROT-38"],
        [
            bind("inner", {"path": "a"}),
            bind("k1", {"v": bound("inner")}),
            bind("k2", {"v": bound("inner")}),
            record("read", bound("k1"), 0),
            set_member("inner", ["path"], "b"),
            record("read", bound("k2"), 1),
        ],
        tags=["memo"],
        option=True,
    ),
]
