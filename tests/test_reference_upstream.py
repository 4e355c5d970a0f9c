"""The SDK's own fingerprint vectors (shared/upstream), reproduced exactly (FP-*, CAN-*)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from doomloop_kit.reference import (
    MAX_CANONICALIZE_DEPTH,
    CanonicalizationError,
    JsBigInt,
    canonicalize,
    fingerprint_key_material,
    fingerprint_tool_call,
)

UPSTREAM = (
    Path(__file__).resolve().parents[2] / "shared" / "upstream" / "doom-loop-fingerprints.json"
)
VECTORS = json.loads(UPSTREAM.read_text(encoding="utf-8"))


@pytest.mark.parametrize("vector", VECTORS["toolCallVectors"], ids=lambda v: v["name"])
def test_tool_call_vector(vector: dict[str, object]) -> None:
    assert canonicalize(vector["keyMaterial"]) == vector["jcs"]
    assert (
        fingerprint_tool_call(str(vector["toolName"]), vector["keyMaterial"])
        == vector["fingerprint"]
    )


@pytest.mark.parametrize("vector", VECTORS["keyMaterialVectors"], ids=lambda v: v["name"])
def test_key_material_vector(vector: dict[str, object]) -> None:
    assert canonicalize(vector["keyMaterial"]) == vector["jcs"]
    assert fingerprint_key_material(vector["keyMaterial"]) == vector["fingerprint"]


def _circular() -> object:
    value: dict[str, object] = {}
    value["self"] = value
    return value


def _nested(depth: int) -> object:
    value: object = "leaf"
    for _ in range(depth):
        value = [value]
    return value


# The upstream file names the rejected cases without data; these are our inputs for them.
REJECTED_INPUTS = {
    "bigint": {"n": JsBigInt(10)},
    "NaN / Infinity": {"n": math.nan},
    "circular reference": _circular(),
    "nesting > 64 levels": _nested(MAX_CANONICALIZE_DEPTH + 1),
}


@pytest.mark.parametrize("vector", VECTORS["rejected"], ids=lambda v: v["name"])
def test_rejected_vector(vector: dict[str, object]) -> None:
    key_material = REJECTED_INPUTS[str(vector["name"])]
    with pytest.raises(CanonicalizationError):
        canonicalize(key_material)
    with pytest.raises(CanonicalizationError):
        fingerprint_tool_call("tool", key_material)


def test_every_rejected_case_has_an_input() -> None:
    assert {v["name"] for v in VECTORS["rejected"]} == set(REJECTED_INPUTS)
