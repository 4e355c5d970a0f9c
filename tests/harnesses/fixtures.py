"""A small vector set built through the reference, for runner tests.

The committed vectors (vectors/) are the real target; these fixtures keep the
runner's own tests independent of how those evolve, and give the fault tests
a tiny, fast selection. Expectations come from generators/build.py (the
oracle), never typed by hand.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from doomloop_kit.generators.build import build_vector
from doomloop_kit.vectorset.files import VectorFile, write_json_atomic

READ = "read"


def _rec(key: Any, round: int, tool: str = READ, **options: Any) -> dict[str, Any]:
    step = {"op": "recordToolCall", "toolName": tool, "keyMaterial": key, "round": round}
    if options:
        step["options"] = options
    return step


def _declare(round: int, keys: list[Any], tool: str = READ) -> dict[str, Any]:
    return {
        "op": "declareRound",
        "round": round,
        "calls": [{"toolName": tool, "keyMaterial": key} for key in keys],
    }


def _text(text: str) -> dict[str, Any]:
    return {"op": "recordAssistantText", "text": text}


ESCALATING = {
    "ladder": {"observe": 2, "steer": False, "escalate": 2, "block": False, "stop": 9},
    "escalation": {"model": "big", "maxEscalations": 1},
}

TRANSCRIPTS: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "canonical": [
        (
            "key-order-utf16",
            "astral key sorts before a high BMP key",
            {"steps": [{"op": "canonicalize", "value": {"\uff61": 1, "\U0001f600": 2, "a": 3}}]},
        ),
        (
            "numbers-and-non-ascii",
            "JS number text and raw non-ASCII",
            {"steps": [{"op": "canonicalize", "value": {"n": 1.0, "e": 1e21, "s": "caf\u00e9"}}]},
        ),
        (
            "bigint-error",
            "a bigint has no canonical form",
            {"steps": [{"op": "canonicalize", "value": {"$js": "bigint", "value": "7"}}]},
        ),
        (
            "negative-zero",
            "-0 is written as 0",
            {"steps": [{"op": "canonicalize", "value": [{"$js": "number", "value": "-0"}]}]},
        ),
        (
            "fingerprint-tool",
            "tool-call fingerprint",
            {"steps": [{"op": "fingerprintToolCall", "toolName": "t\ud800", "keyMaterial": [1]}]},
        ),
    ],
    "fanout": [
        (
            "declared-repeat",
            "a declared two-call fan-out repeated three rounds",
            {
                "option": True,
                "steps": [
                    step
                    for r in range(3)
                    for step in (
                        _declare(r, [{"p": "a"}, {"p": "b"}]),
                        _rec({"p": "a"}, r),
                        _rec({"p": "b"}, r),
                    )
                ],
            },
        ),
        (
            "declared-duplicates",
            "duplicate declared calls collapse",
            {
                "option": True,
                "steps": [
                    step
                    for r in range(3)
                    for step in (
                        _declare(r, [{"p": "a"}, {"p": "a"}, {"p": "b"}]),
                        _rec({"p": "a"}, r),
                        _rec({"p": "a"}, r),
                        _rec({"p": "b"}, r),
                    )
                ],
            },
        ),
        (
            "changing-set-same-call",
            "the round set changes but one call repeats",
            {
                "option": True,
                "steps": [
                    step
                    for r in range(4)
                    for step in (
                        _declare(r, [{"p": "a"}, {"p": r}]),
                        _rec({"p": "a"}, r),
                        _rec({"p": r}, r),
                    )
                ],
            },
        ),
        (
            "undeclared-repeat",
            "the same call in three rounds, undeclared",
            {"option": True, "steps": [_rec({"p": "x"}, r) for r in range(4)]},
        ),
    ],
    "state": [
        (
            "resume-mid-run",
            "resume between rounds keeps the streak",
            {
                "option": True,
                "steps": [
                    _rec({"p": 1}, 0),
                    _rec({"p": 1}, 1),
                    {"op": "resume"},
                    _rec({"p": 1}, 2),
                    {"op": "getState"},
                ],
            },
        ),
        (
            "restore-clamps",
            "restored streaks are clamped",
            {
                "option": True,
                "steps": [
                    {
                        "op": "restore",
                        "state": {
                            "tools": {
                                "read": {"fingerprint": "f" * 64, "streak": 5e9},
                                "list": {"fingerprint": "e" * 64, "streak": -3},
                            }
                        },
                    },
                    {"op": "getState"},
                ],
            },
        ),
        (
            "fanout-state",
            "a fan-out's state omits implied call streaks",
            {
                "option": True,
                "steps": [
                    _declare(0, [{"p": 1}, {"p": 2}]),
                    _rec({"p": 1}, 0),
                    _rec({"p": 2}, 0),
                    {"op": "getState"},
                    {"op": "resume"},
                ],
            },
        ),
    ],
    "text": [
        (
            "js-whitespace",
            "U+FEFF separates tokens, U+001C does not",
            {
                "steps": [
                    {
                        "op": "detectTextRepetition",
                        "text": "go\ufeffgo\ufeffgo\ufeffgo x\x1cy x\x1cy x\x1cy x\x1cy",
                        "options": {"minRepeats": 2, "minCoveredTokens": 2},
                    }
                ]
            },
        ),
        (
            "period-tie",
            "equal coverage: the shortest period wins",
            {
                "steps": [
                    {
                        "op": "detectTextRepetition",
                        "text": "a a a a a a a a",
                        "options": {"minRepeats": 2, "minCoveredTokens": 2},
                    }
                ]
            },
        ),
        (
            "streak-never-blocks",
            "identical texts climb the ladder but never block",
            {"option": True, "steps": [_text("same answer") for _ in range(4)]},
        ),
    ],
    "escalation": [
        (
            "budget",
            "escalation budget of one",
            {
                "option": ESCALATING,
                "steps": [
                    _rec({"p": 1}, 0),
                    _rec({"p": 1}, 1),
                    {"op": "consumeEscalation"},
                    {"op": "canEscalate"},
                    _rec({"p": 1}, 2),
                ],
            },
        ),
    ],
    "functions": [
        (
            "ladder-action",
            "ladder resolution",
            {
                "steps": [
                    {
                        "op": "resolveLadderAction",
                        "ladder": {
                            "observe": 2,
                            "steer": False,
                            "escalate": False,
                            "block": 3,
                            "stop": 6,
                        },
                        "streak": 4,
                        "allowBlock": False,
                    }
                ]
            },
        ),
        (
            "option-warning",
            "an escalate rung without a model warns",
            {"steps": [{"op": "resolveOption", "option": {"ladder": {"escalate": 2}}}]},
        ),
        (
            "loop-key",
            "a loop-key function that throws falls back",
            {
                "steps": [
                    {
                        "op": "resolveLoopKey",
                        "loopKey": {"$js": "function", "throws": "x"},
                        "args": {"a": 1},
                    }
                ]
            },
        ),
    ],
}


def build_files() -> dict[str, VectorFile]:
    files = {}
    for family, items in TRANSCRIPTS.items():
        vectors = [
            build_vector(f"{family}/{name}", description, ["TEST-01"], [family], transcript)
            for name, description, transcript in items
        ]
        files[f"curated/{family}.json"] = VectorFile(
            "curated", family, f"runner test fixtures: {family}", vectors
        )
    return files


def write_vector_set(root: Path) -> Path:
    """Write the fixture files and their manifest under ``root``; return ``root``."""
    entries = []
    total = 0
    for path, file in build_files().items():
        target = root / path
        write_json_atomic(target, file.to_json())
        entries.append(
            {
                "path": path,
                "kind": file.kind,
                "family": file.family,
                "vectors": len(file.vectors),
                "sha256": hashlib.sha256(target.read_bytes()).hexdigest(),
            }
        )
        total += len(file.vectors)
    write_json_atomic(
        root / "manifest.json",
        {"format": 1, "generatorVersion": "test", "files": entries, "vectors": total},
    )
    return root
