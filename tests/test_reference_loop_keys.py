"""Loop-key resolution (KEY-*), expectations from brief section 2."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from doomloop_kit.reference import UNDEFINED, resolve_loop_key_material

ARGS = {"command": "ls", "cwd": "/tmp", "n": 1}


def kind_and_key(loop_key: object) -> tuple[str, object]:
    resolution = resolve_loop_key_material(loop_key, ARGS)
    assert (resolution.kind == "fallback") == (resolution.warning is not None)
    if resolution.kind == "fallback":
        assert resolution.warning
        assert resolution.key_material is ARGS
    return resolution.kind, resolution.key_material


def raises(args: Mapping[str, object]) -> object:
    raise KeyError("boom")


@pytest.mark.parametrize(
    ("loop_key", "expected"),
    [
        (UNDEFINED, ("key", ARGS)),
        (False, ("exempt", UNDEFINED)),
        (["command", "cwd"], ("key", {"command": "ls", "cwd": "/tmp"})),
        (["cwd", 7, None, "missing", "cwd"], ("key", {"cwd": "/tmp"})),
        ([], ("fallback", ARGS)),
        (["missing", 1], ("fallback", ARGS)),
        (["toString", "constructor"], ("fallback", ARGS)),  # own members only (DIV)
        (lambda args: args["command"], ("key", "ls")),
        (lambda args: None, ("exempt", UNDEFINED)),
        (lambda args: UNDEFINED, ("fallback", ARGS)),
        (raises, ("fallback", ARGS)),
        (None, ("fallback", ARGS)),
        (True, ("fallback", ARGS)),
        ("command", ("fallback", ARGS)),
        (3, ("fallback", ARGS)),
    ],
)
def test_resolution(loop_key: object, expected: tuple[str, object]) -> None:
    assert kind_and_key(loop_key) == expected


def test_wire_shape() -> None:
    assert resolve_loop_key_material(False, ARGS).to_json() == {"kind": "exempt"}
    fallback = resolve_loop_key_material([], ARGS).to_json()
    assert set(fallback) == {"kind", "keyMaterial", "warning"}
