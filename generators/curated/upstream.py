"""The upstream fingerprint vectors (shared/upstream/doom-loop-fingerprints.json), in our format.

Each upstream entry becomes one vector under our own name. The inputs are
transcribed below; the upstream digest and canonical text are kept only as
a cross-check (:func:`check`), never as the expectation, which the reference
computes. The four ``rejected`` entries become canonicalization-error steps
with the tagged values.
"""

from __future__ import annotations

from typing import Any

from ..steps import INFINITY, NAN, NEG_INFINITY, bigint, nest, op, ref, scenario

FAMILY = "upstream"
DESCRIPTION = "the upstream package's own fingerprint vectors, converted to this format"

TOOL_CALLS: list[tuple[str, str, str, Any, str, str]] = [
    # (our name, what it pins, toolName, keyMaterial, upstream canonical text, upstream digest)
    (
        "tool-call-basic",
        "a plain two-member object under a tool name",
        "bash",
        {"command": "ls -la", "cwd": "/tmp"},
        '{"command":"ls -la","cwd":"/tmp"}',
        "c3430466c9a1a7c11c8e23328fcf3057189c44d86839527ac6e61bb4574410d4",
    ),
    (
        "tool-call-member-order",
        "member order does not change the fingerprint (same as tool-call-basic)",
        "bash",
        {"cwd": "/tmp", "command": "ls -la"},
        '{"command":"ls -la","cwd":"/tmp"}',
        "c3430466c9a1a7c11c8e23328fcf3057189c44d86839527ac6e61bb4574410d4",
    ),
    (
        "tool-call-empty-object",
        "an empty object is a valid identity",
        "list_tasks",
        {},
        "{}",
        "b84a3e324e9dc95335f72cfee5e5898465349be72cb1348fe7927c49c8d65d92",
    ),
    (
        "tool-call-non-ascii",
        "non-ASCII and astral characters are written literally and hashed as UTF-8",
        "web_search",
        {"query": "caf\u00e9 \U0001f389"},
        '{"query":"caf\u00e9 \U0001f389"}',
        "a8bd7e02e874cd1d68db436c3228a42ed2d656ddd30d3195db0e72378479b160",
    ),
    (
        "tool-call-zero",
        "zero is written 0 (the upstream entry for negative zero, as JSON carries it)",
        "calc",
        {"value": 0},
        '{"value":0}',
        "2c0292f2f8e9099f2879c189b8bd0d61fdc24dea98f06ec1d96f17f8ccb86f7d",
    ),
    (
        "tool-call-1e21",
        "1e21 takes the exponent form 1e+21",
        "calc",
        {"value": 1e21},
        '{"value":1e+21}',
        "53f17cc32c78fee57f8e6aba17c4d5f75ca2aa5a1d06d359880c584993dcaaff",
    ),
    (
        "tool-call-nested",
        "nested objects are sorted, arrays keep their order, null is kept",
        "query",
        {"filter": {"tags": ["b", "a"], "depth": 2}, "sort": None},
        '{"filter":{"depth":2,"tags":["b","a"]},"sort":null}',
        "b42e583c626c3b2bcbd5adf86b7099d784ef15398f2e0c530262372e73850f4e",
    ),
    (
        "tool-call-lone-surrogate",
        "a lone surrogate in key material is escaped as \\ud800",
        "echo",
        {"s": "\ud800"},
        '{"s":"\\ud800"}',
        "9d901512fe3c9139d48aeaec555bc91c5b8069950bc17a6d014c85bf03c0d8eb",
    ),
    (
        "tool-call-no-normalisation",
        "no Unicode normalisation: decomposed e + U+0301 stays as it is",
        "echo",
        {"s": "e\u0301"},
        '{"s":"e\u0301"}',
        "a281d1b32556677dee1b6039b78cde21229a6777874c6dc8eafc4bff64058568",
    ),
    (
        "tool-call-string-key",
        "a bare string is valid key material",
        "web_search",
        "openrouter agent sdk",
        '"openrouter agent sdk"',
        "dd066597b3c639cd2c905159c3ee5bda98c29add4deef7d20f723583c1e7e177",
    ),
]

KEY_MATERIALS: list[tuple[str, str, Any]] = [
    (
        "key-material-phrase",
        "a bare phrase as key material (cross-step text identity)",
        "I am stuck.",
    ),
    (
        "key-material-normalised-text",
        "the whitespace-normalised text of a cross-step streak",
        "Retrying the same plan.",
    ),
]

REJECTED: list[tuple[str, str, list[Any]]] = [
    (
        "rejected-bigint",
        "a bigint has no canonical form: canonicalization fails",
        [{"n": bigint(10)}],
    ),
    (
        "rejected-non-finite",
        "NaN and +/-Infinity have no canonical form",
        [{"x": NAN}, {"x": INFINITY}, {"x": NEG_INFINITY}],
    ),
    (
        "rejected-circular",
        "a value that contains itself cannot be canonicalized",
        [{"self": ref(1)}],
    ),
    ("rejected-too-deep", "nesting past 64 levels fails", [nest(65, 0)]),
]


def _tool_vector(name: str, pins: str, tool: str, key: Any) -> dict[str, Any]:
    return scenario(
        name,
        f"upstream tool-call vector: {pins}",
        ["FP-02", "FP-08", "CAN-01"],
        [
            op("canonicalize", value=key),
            op("fingerprintToolCall", toolName=tool, keyMaterial=key),
        ],
        tags=["upstream", "fingerprint"],
    )


SCENARIOS: list[dict[str, Any]] = (
    [_tool_vector(name, pins, tool, key) for name, pins, tool, key, _, _ in TOOL_CALLS]
    + [
        scenario(
            name,
            f"upstream key-material vector: {pins}",
            ["FP-01", "FP-08"],
            [
                op("canonicalize", value=key),
                op("fingerprintKeyMaterial", keyMaterial=key),
            ],
            tags=["upstream", "fingerprint"],
        )
        for name, pins, key in KEY_MATERIALS
    ]
    + [
        scenario(
            name,
            f"upstream rejected entry: {pins}; both fingerprints fail too",
            ["CAN-35", "FP-09", "FP-08"],
            [
                s
                for value in values
                for s in (
                    op("canonicalize", value=value),
                    op("fingerprintKeyMaterial", keyMaterial=value),
                    op("fingerprintToolCall", toolName="tool", keyMaterial=value),
                )
            ],
            tags=["upstream", "rejected"],
        )
        for name, pins, values in REJECTED
    ]
)


def check() -> list[str]:
    """Differences between the reference and the transcribed upstream digests (empty = none)."""
    from doomloop_kit.vectorset import oracle

    problems = []
    for name, _, tool, key, text, digest in TOOL_CALLS:
        got_text = oracle.FUNCTION_OPS["canonicalize"]({"value": key})
        got = oracle.FUNCTION_OPS["fingerprintToolCall"]({"toolName": tool, "keyMaterial": key})
        if got_text != text or got != digest:
            problems.append(name)
    return problems
