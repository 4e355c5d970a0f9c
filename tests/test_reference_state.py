"""getState and restore (STATE-*), and the tool verdict messages (MSG-*).

Expected blobs are derived by hand from brief section 6 (getState, restore)."""

from __future__ import annotations

import json

import pytest
from doomloop_kit.reference import DoomLoopMonitor, ToolCall, resolve_doom_loop_option
from doomloop_kit.reference.messages import round_identity_summary

F = "f" * 64


def monitor(option: object = True, state: object = None) -> DoomLoopMonitor:
    config = resolve_doom_loop_option(option).config
    assert config is not None
    return DoomLoopMonitor(config) if state is None else DoomLoopMonitor(config, state)


def restored(blob: object) -> dict[str, object]:
    m = monitor()
    m.restore(blob)
    return m.get_state()


def tool(entry: object) -> dict[str, object]:
    return restored({"tools": {"t": entry}})


@pytest.mark.parametrize(
    ("streak", "expected"),
    [(2.7, 2), (1, 1), (0, 1), (-5, 1), (10**9, 1_000_000), (1_000_000.5, 1_000_000)],
)
def test_streak_is_floored_and_clamped(streak: object, expected: int) -> None:
    assert tool({"fingerprint": F, "streak": streak}) == {
        "tools": {"t": {"fingerprint": F, "streak": expected}}
    }


@pytest.mark.parametrize(
    "entry",
    [
        {"fingerprint": F, "streak": "3"},
        {"fingerprint": F, "streak": True},
        {"fingerprint": F, "streak": 10**400},
        {"fingerprint": F},
        {"fingerprint": 5, "streak": 1},
        [F, 1],
        "junk",
        None,
    ],
)
def test_invalid_entries_are_skipped(entry: object) -> None:
    assert tool(entry) == {"tools": {}}


def test_round_fingerprints_sorted_duplicates_kept_counts_rebuilt() -> None:
    state = tool({"fingerprint": "b", "streak": 2, "roundFingerprints": ["b", "a", "b"]})
    assert state == {
        "tools": {
            "t": {
                "fingerprint": "b",
                "streak": 2,
                "roundFingerprints": ["a", "b", "b"],
                # two keys against three members: the counts say more than the round
                "callStreaks": {"b": 2, "a": 2},
            }
        }
    }


@pytest.mark.parametrize("members", [["a"], ["a", 1], "ab", {"0": "a", "1": "b"}])
def test_unusable_round_fingerprints(members: object) -> None:
    state = tool({"fingerprint": F, "streak": 2, "roundFingerprints": members})
    assert state == {"tools": {"t": {"fingerprint": F, "streak": 2}}}


def test_call_streaks_keep_finite_numbers_at_least_one() -> None:
    state = tool({"fingerprint": F, "streak": 3, "callStreaks": {"x": 2.5, "y": 0, "z": "3", F: 3}})
    assert state == {"tools": {"t": {"fingerprint": F, "streak": 3, "callStreaks": {"x": 2, F: 3}}}}
    arrays = tool({"fingerprint": F, "streak": 1, "callStreaks": [4, "x"]})
    assert arrays["tools"] == {"t": {"fingerprint": F, "streak": 1, "callStreaks": {"0": 4}}}


def test_blob_level_rules() -> None:
    blob = {
        "tools": [{"fingerprint": F, "streak": 1}],
        "text": {"fingerprint": "t", "streak": 2.5},
        "escalationsUsed": 2.9,
        "stopVerdict": {"junk": True},
        "pendingSteer": ["x"],
        "unknown": 1,
    }
    assert restored(blob) == {
        "tools": {"0": {"fingerprint": F, "streak": 1}},
        "text": {"fingerprint": "t", "streak": 2.5},
        "escalationsUsed": 2,
    }
    assert restored({"escalationsUsed": -1, "text": {"fingerprint": "t"}}) == {"tools": {}}
    names = restored({"tools": {"__proto__": {"fingerprint": F, "streak": 1}}})
    assert list(names["tools"]) == ["__proto__"]  # type: ignore[call-overload]


@pytest.mark.parametrize("blob", [None, [], "x", 3, True])
def test_non_object_blob_changes_nothing(blob: object) -> None:
    m = monitor()
    m.record_tool_call("t", {}, 0)
    before = m.get_state()
    assert m.restore(blob) is False
    assert m.get_state() == before
    # the run-local round survives too: the same round still collapses duplicates
    assert m.record_tool_call("t", {}, 0).duplicate_in_round


def test_constructor_with_state_is_construct_then_restore() -> None:
    blob = {"tools": {"t": {"fingerprint": F, "streak": 4}}, "escalationsUsed": 1}
    assert monitor(state=blob).get_state() == blob
    assert monitor(state={"tools": "nope"}).get_state() == {"tools": {}}


def test_get_state_omits_implied_call_streaks_and_is_a_copy() -> None:
    m = monitor()
    m.declare_round(0, [ToolCall("t", {"p": p}) for p in "ab"])
    m.record_tool_call("t", {"p": "a"}, 0)
    partial = m.get_state()["tools"]["t"]  # type: ignore[index]
    assert "callStreaks" in partial  # one of two members recorded so far
    m.record_tool_call("t", {"p": "b"}, 0)
    state = m.get_state()
    entry = state["tools"]["t"]  # type: ignore[index]
    assert set(entry) == {"fingerprint", "streak", "roundFingerprints"}
    entry["roundFingerprints"].append("x")
    assert len(m.get_state()["tools"]["t"]["roundFingerprints"]) == 2  # type: ignore[index]
    assert json.loads(json.dumps(state)) == state


def test_restored_set_without_call_streaks_keeps_fan_out_evidence() -> None:
    # A writer that persisted roundFingerprints but not callStreaks (review of the fan-out change).
    m = monitor()
    m.declare_round(0, [ToolCall("t", {"p": p}) for p in "abc"])
    records = [m.record_tool_call("t", {"p": p}, 0) for p in "abc"]
    members = sorted(r.fingerprint for r in records)
    resumed = monitor(
        state={
            "tools": {"t": {"fingerprint": members[0], "streak": 2, "roundFingerprints": members}}
        }
    )
    resumed.declare_round(5, [ToolCall("t", {"p": p}) for p in "abc"])
    actions = [resumed.record_tool_call("t", {"p": p}, 5) for p in "abc"]
    assert [(r.streak, r.verdict and r.verdict.action) for r in actions] == [(3, "block")] * 3


def test_messages() -> None:
    m = monitor()
    for round_number in range(2):
        m.declare_round(round_number, [ToolCall("read", {"p": p}) for p in "abcde"])
        records = [m.record_tool_call("read", {"p": p}, round_number) for p in "abcde"]
    verdict = records[0].verdict
    assert verdict is not None
    summary = round_identity_summary(sorted(r.fingerprint for r in records))
    assert summary.endswith("+2 more\u2026") and summary.count("+") == 3
    assert verdict.message == (
        'Doom loop suspected: tool "read" was invoked in 2 consecutive rounds with the same set '
        f"of 5 parallel calls (round identity {summary}). Reissuing the same fan-out will not "
        "change the results. Take a different approach, or explain why repetition is required."
    )
    assert round_identity_summary(["a" * 64, "b" * 64]) == "aaaaaaaa+bbbbbbbb\u2026"

    single = monitor()
    for round_number in range(2):
        record = single.record_tool_call("read", {"p": 1}, round_number)
    assert record.verdict is not None
    assert record.verdict.message == (
        'Doom loop suspected: this exact "read" call has been repeated across consecutive '
        "rounds. Repeating it will not change the result. Take a different approach, or "
        "explain why repetition is required."
    )
    declared = monitor()
    for round_number in range(2):
        declared.declare_round(round_number, [ToolCall("read", {"p": 1})])
        record = declared.record_tool_call("read", {"p": 1}, round_number)
    assert record.verdict is not None
    assert record.verdict.message == (
        'Doom loop suspected: tool "read" was invoked in 2 consecutive rounds with identical '
        f"arguments (fingerprint {record.fingerprint[:16]}\u2026). Repeating the call will not "
        "change the result. Take a different approach, or explain why repetition is required."
    )


def test_escalation_budget() -> None:
    m = monitor(
        {
            "ladder": {"escalate": 2, "observe": False},
            "escalation": {"model": "big", "maxEscalations": 1},
        }
    )
    assert m.can_escalate()
    m.record_tool_call("t", {}, 0)
    assert m.record_tool_call("t", {}, 1).verdict.action == "escalate"  # type: ignore[union-attr]
    m.consume_escalation()
    assert not m.can_escalate()
    assert m.record_tool_call("t", {}, 2).verdict.action == "block"  # type: ignore[union-attr]
    m.consume_escalation()  # unconditional
    assert m.get_state()["escalationsUsed"] == 2
    fresh = monitor()
    assert not fresh.can_escalate()


def test_monitor_logs_are_the_sdks() -> None:
    """Brief §9.4: the two logs and their console.warn arguments (MON-62, STATE-34)."""
    from doomloop_kit.reference import DoomLoopMonitor, ToolCall, resolve_doom_loop_option
    from doomloop_kit.reference.canonical import CanonicalizationError

    calls: list[tuple[object, ...]] = []
    config = resolve_doom_loop_option(True).config
    assert config is not None
    monitor = DoomLoopMonitor(config, warn=lambda *args: calls.append(args))
    monitor.declare_round(7, [ToolCall("read", {"n": float("nan")}), ToolCall("read", 1)])
    ((text, error),) = calls
    assert text == (
        '[DoomLoop] could not fingerprint a "read" call while declaring round 7; '
        "excluding it from the round set:"
    )
    assert isinstance(error, CanonicalizationError)
    calls.clear()
    assert not monitor.restore([1])
    assert calls == [("[DoomLoop] Ignoring invalid persisted doom-loop state",)]
    calls.clear()
    assert monitor.restore({"tools": 5})
    assert calls == []
