"""The replay goes through the reference engine: its argument parsing and its consequences.

Expected values come from the engine brief (engine-behaviour.md sections
cited) and from the reference monitor driven directly, not from the
replay's own output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.engine.identity import Malformed, parse_arguments
from doomloop_kit.reference import (
    DoomLoopMonitor,
    ToolCall,
    fingerprint_tool_call,
    resolve_doom_loop_option,
)
from test_replay import actions, replay, response, rounds_of, write_lines


def calls_with_text(raw: str, times: int = 1) -> list[dict[str, Any]]:
    call = {"id": "c", "type": "function", "function": {"name": "ping", "arguments": raw}}
    return [{"role": "assistant", "tool_calls": [call]}] * times


@pytest.mark.parametrize(
    ("raw", "malformed"),
    [
        ("\u001c", True),  # JS trim keeps U+001C: JSON.parse fails
        ("\u0085", True),  # NEL is not JS whitespace
        ("\ufeff", False),  # JS trim removes the BOM: {} (ENG-38)
        ("\u3000\t", False),  # IDEOGRAPHIC SPACE and TAB are trimmed
    ],
)
def test_arguments_are_parsed_as_the_engine_parses_them(
    tmp_path: Path, raw: str, malformed: bool
) -> None:
    """ENG-38 (brief 10.10): JS whitespace, not Python's str.strip (the drift of issue 24)."""
    log = write_lines(tmp_path / "log.jsonl", calls_with_text(raw))
    _, _, _, objects = replay(tmp_path, log)
    call = rounds_of(objects)[0]["calls"][0]
    assert (call["identity"] == "malformed") is malformed
    assert call["fingerprint"] == fingerprint_tool_call("ping", raw if malformed else {})


@pytest.mark.parametrize("raw", ["\u00a0{}\u2028", ' {"a": 1}\ufeff', "[1, 2]", "null", "7"])
def test_the_replay_follows_the_engine_parser(tmp_path: Path, raw: str) -> None:
    """One parser: whatever the engine's parse_arguments says, the replay records."""
    log = write_lines(tmp_path / "log.jsonl", calls_with_text(raw))
    _, _, _, objects = replay(tmp_path, log)
    call = rounds_of(objects)[0]["calls"][0]
    parsed = parse_arguments(raw)
    if isinstance(parsed, Malformed):
        assert call["identity"] == "malformed"
        assert call["fingerprint"] == fingerprint_tool_call("ping", raw)
    else:
        assert call["identity"] == "arguments"
        key = {} if parsed is None else parsed
        assert call["fingerprint"] == fingerprint_tool_call("ping", key)


def test_without_engine_the_log_is_fed_as_recorded(tmp_path: Path) -> None:
    """No halting: the rounds after a stop are replayed and marked halted."""
    log = write_lines(tmp_path / "log.jsonl", [response([("poll", {"j": 1})])] * 8)
    _, stdout, _, objects = replay(tmp_path, log)
    assert len(rounds_of(objects)) == 8
    assert [r["halted"] for r in rounds_of(objects)] == [False] * 6 + [True] * 2
    assert not [o for o in objects if o["type"] == "engine"]
    assert "later lines are what-if" in stdout


def test_engine_halts_at_the_stop_gate(tmp_path: Path) -> None:
    """Brief 3.5.3 / 7.3 step 11: the round that arms stop is the run's last."""
    log = write_lines(tmp_path / "log.jsonl", [response([("poll", {"j": 1})])] * 8)
    _, stdout, _, objects = replay(tmp_path, log, "--engine")
    assert actions(objects) == [["proceed"], ["observe"], *[["block"]] * 3, ["stop"]]
    engine = [o for o in objects if o["type"] == "engine"]
    assert [(e["kind"], e.get("count")) for e in engine] == [("halt", 0), ("not-replayed", 2)]
    assert "the rest of the run is not replayed" in stdout


def test_a_text_stop_seals_the_calls_of_its_response(tmp_path: Path) -> None:
    """Gate A (brief 7.3 step 2): the response checkpoint armed stop: no round runs."""
    option = '{"ladder": {"observe": false, "block": false, "stop": 2}}'
    records = [response([("f", {"i": i})], "the very same words") for i in range(3)]
    log = write_lines(tmp_path / "log.jsonl", records)
    _, _, _, objects = replay(tmp_path, log, "--engine", "--option", option)
    assert len(rounds_of(objects)) == 1
    halt = [o for o in objects if o["type"] == "engine" and o["kind"] == "halt"]
    assert halt == [{"type": "engine", "kind": "halt", "line": 2, "afterRound": 1, "count": 1}]


def test_engine_injects_steer_before_the_next_dispatch(tmp_path: Path) -> None:
    """Brief 3.2.1/3.2.3: the verdict message, flushed after the round."""
    option = '{"ladder": {"observe": false, "steer": 2, "block": false, "stop": false}}'
    log = write_lines(tmp_path / "log.jsonl", [response([("poll", {"j": 1})])] * 3)
    _, _, _, objects = replay(tmp_path, log, "--engine", "--option", option)
    steers = [o for o in objects if o["type"] == "engine" and o["kind"] == "steer"]
    config = resolve_doom_loop_option(json.loads(option)).config
    assert config is not None
    monitor = DoomLoopMonitor(config)
    messages = []
    for round in (1, 2, 3):
        monitor.declare_round(round, [ToolCall("poll", {"j": 1})])
        record = monitor.record_tool_call("poll", {"j": 1}, round)
        if record.verdict is not None:
            messages.append(record.verdict.message)
    assert [s["message"] for s in steers] == messages and len(messages) == 2
    assert [s["afterRound"] for s in steers] == [2, 3]


def test_engine_spends_the_escalation_budget(tmp_path: Path) -> None:
    """Brief 3.3.3 and 3.3.8: one unit per escalated dispatch; then escalate is no longer
    resolved (MON-52) and the weaker rung applies."""
    option = json.dumps(
        {
            "ladder": {"observe": 2, "escalate": 3, "block": False, "stop": False},
            "escalation": {"model": "big-model", "maxEscalations": 1},
        }
    )
    log = write_lines(tmp_path / "log.jsonl", [response([("poll", {"j": 1})])] * 6)
    _, _, _, plain = replay(tmp_path, log, "--option", option)
    assert actions(plain) == [["proceed"], ["observe"], *[["escalate"]] * 4]
    _, _, _, objects = replay(tmp_path, log, "--engine", "--option", option)
    assert actions(objects) == [["proceed"], ["observe"], ["escalate"], *[["observe"]] * 3]
    escalated = [o for o in objects if o["type"] == "engine" and o["kind"] == "escalate"]
    assert [e["afterRound"] for e in escalated] == [3]
