"""Every fact of brief section 7, the upstream test-suite's pinned scenarios.

The expected actions are the brief's table, transcribed by hand; they are the
independent source, not the reference's output.
"""

from __future__ import annotations

import json

import pytest
from doomloop_kit.jsvalue.values import JsBigInt
from doomloop_kit.reference import DoomLoopMonitor, ToolCall, resolve_doom_loop_option


def monitor() -> DoomLoopMonitor:
    config = resolve_doom_loop_option(True).config
    assert config is not None
    return DoomLoopMonitor(config)


def run_rounds(
    rounds: list[list[str]], *, declared: bool = True, m: DoomLoopMonitor | None = None
) -> list[list[tuple[str | None, int | float]]]:
    """(action, streak) of every call of `read({path: X})`, round by round."""
    m = m or monitor()
    out: list[list[tuple[str | None, int | float]]] = []
    for index, paths in enumerate(rounds):
        if declared:
            m.declare_round(index, [ToolCall("read", {"path": p}) for p in paths])
        row: list[tuple[str | None, int | float]] = []
        for p in paths:
            record = m.record_tool_call("read", {"path": p}, index)
            row.append((record.verdict.action if record.verdict else None, record.streak))
        out.append(row)
    return out


def actions(rounds: list[list[str]], *, declared: bool = True) -> list[list[str | None]]:
    return [[a for a, _ in row] for row in run_rounds(rounds, declared=declared)]


N = None


@pytest.mark.parametrize(
    ("rounds", "expected"),
    [
        pytest.param(
            [["a", "b", "c"]] * 3,
            [[N, N, N], ["observe"] * 3, ["block"] * 3],
            id="repeated-fan-out",
        ),
        pytest.param(
            [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]],
            [[N, N, N], ["observe"] * 3, ["block"] * 3],
            id="permuted-fan-out",
        ),
        pytest.param(
            [["a", "b"], ["a", "b"], ["a", "z"], ["a", "z"]],
            [[N, N], ["observe", "observe"], ["block", N], ["block", "observe"]],
            id="member-changes",
        ),
        pytest.param(
            [["a", "b", "c"], ["a", "b"]], [[N, N, N], ["observe", "observe"]], id="subset"
        ),
        pytest.param(
            [["a", "b"], ["a", "b"], ["a", "b", "c"]],
            [[N, N], ["observe", "observe"], ["block", "block", N]],
            id="superset",
        ),
        pytest.param(
            [["a", "b"], ["a", "b"], ["c", "a", "b"]],
            [[N, N], ["observe", "observe"], [N, "block", "block"]],
            id="superset-permuted",
        ),
        pytest.param(
            [["a"], ["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"]],
            [[N], ["observe", N], ["block", "observe", N], ["block", "block", "observe", N]],
            id="expanding",
        ),
        pytest.param([["a"]] * 4, [[N], ["observe"], ["block"], ["block"]], id="single-call"),
    ],
)
def test_declared_round_tables(rounds: list[list[str]], expected: list[list[str | None]]) -> None:
    assert actions(rounds) == expected


def test_undeclared_fan_out_streaks() -> None:
    result = run_rounds([["a", "b"], ["a", "b"]], declared=False)
    assert result == [[(N, 1), (N, 1)], [("observe", 2), ("observe", 2)]]


def test_undeclared_per_call_streaks() -> None:
    result = run_rounds([["b", "a"], ["b", "c"], ["b", "d"]], declared=False)
    assert [[s for _, s in row] for row in result] == [[1, 1], [2, 1], [3, 1]]
    assert result[2][0][0] == "block"


def test_in_round_duplicate() -> None:
    m = monitor()
    m.record_tool_call("read", {"path": "a"}, 0)
    first = m.record_tool_call("read", {"path": "a"}, 1)
    second = m.record_tool_call("read", {"path": "a"}, 1)
    assert not first.duplicate_in_round
    assert second.duplicate_in_round
    assert second.streak == first.streak == 2


def test_resume_continues_streak() -> None:
    m = monitor()
    run_rounds([["a"], ["a"]], m=m)
    blob = json.loads(json.dumps(m.get_state()))
    resumed = DoomLoopMonitor(m.config, blob)
    record = resumed.record_tool_call("read", {"path": "a"}, 0)
    assert record.streak == 3


def test_unhashable_declared_call() -> None:
    m = monitor()
    for index in range(3):
        m.declare_round(
            index, [ToolCall("read", {"path": "a"}), ToolCall("read", {"n": JsBigInt(1)})]
        )
        member = m.record_tool_call("read", {"path": "a"}, index)
        fallback = m.record_tool_call("read", {"raw": '{"n": 1n}'}, index)
        assert member.streak == index + 1
        if index == 0:
            assert fallback.streak == 1
            assert fallback.verdict is None
