"""The reference monitor's fingerprint memo (MON-60) and the protocol operations
that reach it (PROT-36..PROT-38), in process."""

from __future__ import annotations

from typing import Any

import pytest
from doomloop_kit.reference import (
    DoomLoopMonitor,
    ToolCall,
    fingerprint_tool_call,
    resolve_doom_loop_option,
)
from doomloop_kit.vectorset import oracle, vocabulary


def _monitor() -> DoomLoopMonitor:
    config = resolve_doom_loop_option(True).config
    assert config is not None
    return DoomLoopMonitor(config)


def test_same_object_keeps_its_first_fingerprint_after_a_change() -> None:
    monitor = _monitor()
    args: dict[str, Any] = {"path": "a"}
    monitor.declare_round(0, [ToolCall("read", args)])
    args["path"] = "b"
    record = monitor.record_tool_call("read", args, 0)
    # independent: the fingerprint of the declared value, computed afresh from a new object
    assert record.fingerprint == fingerprint_tool_call("read", {"path": "a"})
    assert record.fingerprint != fingerprint_tool_call("read", {"path": "b"})


def test_equal_copy_and_other_tool_are_fingerprinted_afresh() -> None:
    monitor = _monitor()
    args: dict[str, Any] = {"path": "a"}
    monitor.record_tool_call("read", args, 0)
    args["path"] = "b"
    assert monitor.record_tool_call("read", dict(args), 1).fingerprint == fingerprint_tool_call(
        "read", {"path": "b"}
    )
    assert monitor.record_tool_call("write", args, 1).fingerprint == fingerprint_tool_call(
        "write", {"path": "b"}
    )


def test_primitives_and_failures_are_not_memoised() -> None:
    monitor = _monitor()
    args: dict[str, Any] = {"n": float("nan")}
    with pytest.raises(Exception, match="non-finite"):
        monitor.record_tool_call("read", args, 0)
    args["n"] = 1
    assert monitor.record_tool_call("read", args, 0).fingerprint == fingerprint_tool_call(
        "read", {"n": 1}
    )
    assert monitor.record_tool_call("read", "x", 1).fingerprint == fingerprint_tool_call(
        "read", "x"
    )


def _session() -> tuple[DoomLoopMonitor, Any]:
    monitor = oracle.create_monitor({"option": True})
    return monitor, lambda request: oracle.MONITOR_OPS[request["op"]](monitor, request)


def test_set_member_assigns_like_js() -> None:
    monitor, call = _session()
    call({"op": "bindObject", "name": "k", "value": {"a": [1, {"b": 2}]}})
    call({"op": "setMember", "name": "k", "path": ["a", 1, "b"], "value": {"$js": "undefined"}})
    call({"op": "setMember", "name": "k", "path": ["a", 2], "value": "new"})
    call({"op": "setMember", "name": "k", "path": ["c"], "value": {"$js": "bound", "name": "k"}})
    held = oracle.bindings(monitor)["k"]
    assert isinstance(held, dict) and held["c"] is held
    assert held["a"][2] == "new" and "b" in held["a"][1]


@pytest.mark.parametrize(
    "request_",
    [
        {"op": "bindObject", "name": "k", "value": 3},
        {"op": "bindObject", "name": "", "value": {}},
        {"op": "setMember", "name": "nope", "path": ["a"], "value": 1},
        {"op": "setMember", "name": "k", "path": [], "value": 1},
        {"op": "setMember", "name": "k", "path": ["missing", "x"], "value": 1},
        {"op": "setMember", "name": "k", "path": ["a", 5], "value": 1},
        {"op": "setMember", "name": "k", "path": ["a", True], "value": 1},
        {"op": "setMember", "name": "k", "path": ["a", "0"], "value": 1},
        {
            "op": "recordToolCall",
            "toolName": "t",
            "keyMaterial": {"$js": "bound", "name": "x"},
            "round": 0,
        },
    ],
)
def test_bad_identity_requests_are_bad_requests(request_: dict[str, Any]) -> None:
    monitor, call = _session()
    call({"op": "bindObject", "name": "k", "value": {"a": [0]}})
    with pytest.raises(vocabulary.OpError) as raised:
        call(request_)
    assert raised.value.code == "bad-request"
    assert oracle.bindings(monitor)["k"] == {"a": [0]}  # nothing half-done


def test_bound_is_refused_in_function_ops() -> None:
    with pytest.raises(vocabulary.OpError) as raised:
        oracle.FUNCTION_OPS["canonicalize"]({"value": {"$js": "bound", "name": "k"}})
    assert raised.value.code == "bad-request"
