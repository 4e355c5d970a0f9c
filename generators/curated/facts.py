"""The facts the upstream test-suite pins (brief section 7), as monitor transcripts.

Default ladder (observe 2, block 3, stop 6), one tool ``read``, key material
``{"path": X}``, round ``i`` numbered from 0.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import bigint, declare, get_state, path_rounds, record, resume, scenario

FAMILY = "facts"
DESCRIPTION = "the scenarios the upstream test-suite pins (brief section 7), as full transcripts"

# statement ids, by concept (spec/09-monitor.md, 08-ladder.md, 10-state.md)
ROUND_SET = ["MON-21", "MON-25", "MON-27", "MON-28", "MON-31", "MON-34"]
LADDER = ["MON-35", "LAD-03"]
DECLARED = ["MON-07", "MON-09", "MON-10", "MON-18", "MON-19"]
CALL_STREAK = ["MON-26", "MON-33"]
UNDECLARED = ["MON-11", "MON-18"]
DUPLICATE = ["MON-17", "MON-20", "MON-22"]
RESUME = ["STATE-01", "STATE-14", "STATE-26", "MON-17"]
UNHASHABLE = ["MON-08", "MON-14", "FP-09", "ENG-03"]


def _table(
    name: str,
    rounds: list[list[str]],
    pins: str,
    *,
    declared: bool = True,
    spec: list[str] | None = None,
) -> dict[str, Any]:
    shape = " ".join("[" + ",".join(r) + "]" for r in rounds)
    return scenario(
        name,
        f"{'declared' if declared else 'undeclared'} rounds {shape}: {pins}",
        (spec or []) + ROUND_SET + LADDER + (DECLARED if declared else UNDECLARED),
        path_rounds(rounds, declared=declared),
        tags=["fact", "declared" if declared else "undeclared", "read"],
        option=True,
    )


SCENARIOS: list[dict[str, Any]] = [
    _table(
        "fanout-repeat-three", [["a", "b", "c"]] * 3, "no verdict, then observe x3, then block x3"
    ),
    _table(
        "fanout-rotated-order",
        [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]],
        "arrival order is irrelevant: round 2 observe x3, round 3 block x3",
    ),
    _table(
        "fanout-changed-member",
        [["a", "b"], ["a", "b"], ["a", "z"], ["a", "z"]],
        "r2 observe,observe; r3 block (per-call streak of a), none; r4 block, observe",
        spec=CALL_STREAK,
    ),
    _table(
        "fanout-shrinks",
        [["a", "b", "c"], ["a", "b"]],
        "a shrunk round still carries per-call streaks: r2 observe,observe",
        spec=CALL_STREAK,
    ),
    _table(
        "fanout-grows-last",
        [["a", "b"], ["a", "b"], ["a", "b", "c"]],
        "a grown round: r3 block,block (per-call), the new member none",
        spec=CALL_STREAK,
    ),
    _table(
        "fanout-grows-first",
        [["a", "b"], ["a", "b"], ["c", "a", "b"]],
        "a grown round with the new member first: r3 none,block,block",
        spec=CALL_STREAK,
    ),
    _table(
        "fanout-expanding",
        [["a"], ["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"]],
        "an expanding fan-out: none; observe,none; block,observe,none; block,block,observe,none",
        spec=CALL_STREAK,
    ),
    _table(
        "single-call-four-rounds",
        [["a"]] * 4,
        "one identical call per round: none, observe, block, block",
    ),
    _table(
        "undeclared-pair-twice",
        [["a", "b"], ["a", "b"]],
        "without declarations each call is its own identity: streaks 1,1 then 2,2 (observe)",
        declared=False,
        spec=CALL_STREAK,
    ),
    _table(
        "undeclared-moving-partner",
        [["b", "a"], ["b", "c"], ["b", "d"]],
        "undeclared: the repeated call b climbs 1,2,3 (block) while its partners stay at 1",
        declared=False,
        spec=CALL_STREAK,
    ),
    scenario(
        "duplicate-in-round-undeclared",
        "two records of a in one undeclared round: the second has duplicateInRound and the same streak",
        DUPLICATE + UNDECLARED,
        [
            record("read", {"path": "a"}, 0),
            record("read", {"path": "a"}, 1),
            record("read", {"path": "a"}, 1),
        ],
        tags=["fact", "duplicate", "undeclared"],
        option=True,
    ),
    scenario(
        "duplicate-in-round-declared",
        "two records of a in one declared round [a]: the second has duplicateInRound and the same streak",
        DUPLICATE + DECLARED,
        [
            declare(0, [("read", {"path": "a"})]),
            record("read", {"path": "a"}, 0),
            declare(1, [("read", {"path": "a"})]),
            record("read", {"path": "a"}, 1),
            record("read", {"path": "a"}, 1),
        ],
        tags=["fact", "duplicate", "declared"],
        option=True,
    ),
    scenario(
        "declared-duplicate-call",
        "a declaration listing the same call twice ([a,a,b]) declares the set {a,b}: the fan-out verdict names 2 parallel calls and getState keeps 2 round fingerprints",
        ["MON-09", "MSG-04", "MSG-05", "STATE-04", *DUPLICATE, *DECLARED],
        [
            s
            for r in range(3)
            for s in (
                declare(
                    r, [("read", {"path": "a"}), ("read", {"path": "a"}), ("read", {"path": "b"})]
                ),
                record("read", {"path": "a"}, r),
                record("read", {"path": "a"}, r),
                record("read", {"path": "b"}, r),
            )
        ]
        + [get_state()],
        tags=["fact", "declared", "duplicate"],
        option=True,
    ),
    scenario(
        "record-options",
        "recordToolCall options: allowBlock false turns the block at 3 into observe (stop still applies), detector names the server detector in the verdict",
        ["MON-14", "MON-35", "MON-37", "LAD-04"],
        [
            record(
                "web_search", {"q": "x"}, r, allowBlock=False, detector="server-tool-fingerprint"
            )
            for r in range(5)
        ],
        tags=["fact", "options"],
        option={"ladder": {"stop": 4}},
    ),
    scenario(
        "resume-then-round-zero",
        "[a] in rounds 0 and 1, save and restore into a new monitor, record a in round 0: streak 3 (no round number survives)",
        RESUME + ROUND_SET,
        [*path_rounds([["a"], ["a"]]), resume(), *path_rounds([["a"]])],
        tags=["fact", "resume"],
        option=True,
    ),
    scenario(
        "resume-then-round-zero-undeclared",
        "the resume fact without declarations: records of a in rounds 0, 1, resume, round 0 again gives streak 3 (block)",
        RESUME + UNDECLARED,
        [
            *path_rounds([["a"], ["a"]], declared=False),
            resume(),
            *path_rounds([["a"]], declared=False),
        ],
        tags=["fact", "resume", "undeclared"],
        option=True,
    ),
    scenario(
        "unhashable-declared-call",
        "a declared call whose key material cannot be canonicalized is left out of the set; its fallback identity starts at streak 1 without a verdict while the declared member keeps climbing",
        UNHASHABLE + DECLARED + CALL_STREAK,
        [
            s
            for r in range(3)
            for s in (
                declare(r, [("read", {"path": "a"}), ("read", {"path": bigint(1)})]),
                record("read", {"path": "a"}, r),
                record("read", {"path": bigint(1)}, r),
                record("read", '{"path":1n}', r),
            )
        ],
        tags=["fact", "declared", "unhashable"],
        option=True,
    ),
]

# Added for the mutation job (tests/mutation/REPORT.md): facts that no other
# vector pinned, each named after the spec statement it holds to.
SCENARIOS += [
    scenario(
        "undeclared-call-keeps-entry-fingerprint",
        "a call outside the declared set of its round does not take over the entry: getState keeps the declared call's fingerprint",
        ["MON-29", "STATE-03"],
        [
            declare(0, [("read", {"path": "a"})]),
            record("read", {"path": "a"}, 0),
            declare(1, [("read", {"path": "a"})]),
            record("read", {"path": "b"}, 1),
            get_state(),
        ],
        tags=["fact", "declared"],
        option=True,
    ),
    scenario(
        "round-numbers-compare-by-value",
        "rounds are equal by numeric value, also for large and fractional round numbers: 1000 and 2.5 declared and re-recorded are the same round",
        ["MON-11", "MON-17", "MON-18", "MON-20"],
        [
            declare(1000, [("read", {"path": "a"}), ("read", {"path": "b"})]),
            record("read", {"path": "a"}, 1000),
            record("read", {"path": "a"}, 1000),
            record("read", {"path": "b"}, 1000),
            declare(2.5, [("read", {"path": "a"}), ("read", {"path": "b"})]),
            record("read", {"path": "a"}, 2.5),
            record("read", {"path": "b"}, 2.5),
            record("read", {"path": "b"}, 2.5),
            get_state(),
        ],
        tags=["fact", "declared"],
        option=True,
    ),
]

SCENARIOS += [
    scenario(
        "declared-round-of-257-calls",
        "a declared round of 257 distinct calls, each recorded once: every per-call count equals the streak, so getState omits callStreaks and lists the 257 round fingerprints",
        ["STATE-04", "STATE-05", "MON-27", "MON-28"],
        [
            declare(0, [("read", {"i": i}) for i in range(257)]),
            *[record("read", {"i": i}, 0) for i in range(257)],
            get_state(),
        ],
        tags=["fact", "declared", "fanout"],
        option=True,
    ),
]
