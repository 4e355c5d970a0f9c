"""Each agent log format, on small fixtures written here in that format.

Every fixture is the same story told in a format's own words: a user asks,
the agent calls one tool three times with the same arguments and gets the
same result each time (a loop), then answers. Under the default ladder
(observe 2, block 3: monitor brief section 7) the rounds are proceed,
observe, block, and the closed streak's results are identical. A polling
variant changes the result each time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_replay import actions, replay, rounds_of, write_lines

LOOP = [["proceed"], ["observe"], ["block"]]


def chat(results: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [{"role": "user", "content": "Is the flight on time?"}]
    for i, result in enumerate(results):
        call: dict[str, Any] = {"id": f"c{i}", "type": "function"}
        call["function"] = {"name": "flight_status", "arguments": '{"flight": "LX8"}'}
        records.append({"role": "assistant", "content": None, "tool_calls": [call]})
        records.append({"role": "tool", "tool_call_id": f"c{i}", "content": result})
    records.append({"role": "assistant", "content": "It is delayed."})
    return records


def anthropic(results: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [{"role": "user", "content": "Is the flight on time?"}]
    for i, result in enumerate(results):
        use = {"type": "tool_use", "id": f"t{i}", "name": "flight_status"}
        records.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {**use, "input": {"flight": "LX8"}},
                ],
            }
        )
        block = {"type": "tool_result", "tool_use_id": f"t{i}", "content": result}
        records.append({"role": "user", "content": [block]})
    records.append({"role": "assistant", "content": [{"type": "text", "text": "Delayed."}]})
    return records


def claude_code(results: list[str]) -> list[dict[str, Any]]:
    """Two lines per model message (text, then tool_use), as Claude Code writes them."""
    common = {"sessionId": "s1", "cwd": "/repo", "version": "2.0.0"}
    records: list[dict[str, Any]] = [
        {**common, "type": "user", "uuid": "u0", "message": {"role": "user", "content": "go"}}
    ]
    for i, result in enumerate(results):
        message = {"id": f"msg_{i}", "role": "assistant", "model": "claude"}
        text = {"type": "text", "text": "Checking the status."}
        use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "ls"}}
        for n, block in enumerate((text, use)):
            line = {**message, "content": [block]}
            records.append({**common, "type": "assistant", "uuid": f"a{i}{n}", "message": line})
        answer = {"type": "tool_result", "tool_use_id": f"t{i}", "content": result}
        user = {"role": "user", "content": [answer]}
        records.append({**common, "type": "user", "uuid": f"r{i}", "message": user})
    records.append({"type": "summary", "summary": "Checked a flight", "leafUuid": "r2"})
    return records


def codex(results: list[str]) -> list[dict[str, Any]]:
    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2025-10-29T00:59:38.317Z", "type": kind, "payload": payload}

    records = [
        line("session_meta", {"id": "019a", "cwd": "/repo", "cli_version": "0.46.0"}),
        line("turn_context", {"model": "gpt-5-codex"}),
        line("response_item", {"type": "message", "role": "user", "content": []}),
    ]
    for i, result in enumerate(results):
        arguments = json.dumps({"command": ["bash", "-lc", "make test"]})
        call = {"type": "function_call", "name": "shell", "arguments": arguments}
        records.append(line("event_msg", {"type": "agent_reasoning", "text": "think"}))
        records.append(line("response_item", {"type": "reasoning", "summary": []}))
        records.append(line("response_item", {**call, "call_id": f"call_{i}"}))
        output = {"type": "function_call_output", "call_id": f"call_{i}", "output": result}
        records.append(line("response_item", output))
    message: dict[str, Any] = {"type": "message", "role": "assistant", "content": []}
    message["content"] = [{"type": "output_text", "text": "Tests fail."}]
    records.append(line("response_item", message))
    return records


def mini_swe_agent(results: list[str]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You can run one bash command per response."},
        {"role": "user", "content": "<pr_description>Fix the parser.</pr_description>"},
    ]
    for result in results:
        content = "THOUGHT: run the tests.\n\n```bash\npytest -x tests/test_parser.py\n```"
        messages.append({"role": "assistant", "content": content})
        messages.append({"role": "user", "content": f"<returncode>1</returncode>\n{result}"})
    return {
        "info": {"exit_status": "Submitted", "mini_version": "1.14.0"},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "repo__repo-1",
    }


def swe_agent(results: list[str]) -> dict[str, Any]:
    steps = [
        {
            "response": "Let me search.",
            "thought": "Let me search.",
            "action": 'find_file "parser.py"\n',
            "observation": result,
            "state": "{}",
        }
        for result in results
    ]
    return {"environment": "swe_main", "trajectory": steps, "history": [], "info": {}}


def tau_bench(results: list[str]) -> list[dict[str, Any]]:
    return [
        {"task_id": 7, "reward": 0.0, "info": {}, "traj": chat(results), "trial": 0},
        {"task_id": 7, "reward": 1.0, "info": {}, "traj": chat(["a", "b"]), "trial": 1},
    ]


FIXTURES: dict[str, tuple[Any, str]] = {
    "chat": (chat, "jsonl"),
    "anthropic": (anthropic, "json"),
    "claude-code": (claude_code, "jsonl"),
    "codex": (codex, "jsonl"),
    "mini-swe-agent": (mini_swe_agent, "traj.json"),
    "swe-agent": (swe_agent, "traj"),
    "tau-bench": (tau_bench, "json"),
}


def write(tmp_path: Path, name: str, results: list[str]) -> Path:
    build, suffix = FIXTURES[name]
    data = build(results)
    path = tmp_path / f"run.{suffix}"
    if suffix == "jsonl":
        return write_lines(path, data)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_format_is_detected_and_replayed(tmp_path: Path, name: str) -> None:
    log = write(tmp_path, name, ["on time"] * 3)
    status, stdout, _, objects = replay(tmp_path, log)
    assert status == 0
    assert objects[-1]["format"] == name
    assert actions(objects)[:3] == LOOP
    streaks = [o for o in objects if o["type"] == "streak"]
    assert [(s["results"], s["identical"], s["repeats"]) for s in streaks][:1] == [
        ("identical", 2, 2)
    ]
    assert "results identical (a loop)" in stdout


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_changed_results_are_polling(tmp_path: Path, name: str) -> None:
    log = write(tmp_path, name, ["boarding", "delayed", "departed"])
    _, _, _, objects = replay(tmp_path, log)
    first = next(o for o in objects if o["type"] == "streak")
    assert (first["results"], first["changed"]) == ("changed", 2)


def test_parallel_tool_uses_of_one_claude_code_message_are_one_round(tmp_path: Path) -> None:
    """Claude Code writes one line per content block; one message id is one response."""
    common = {"sessionId": "s", "type": "assistant"}
    lines = [
        {**common, "uuid": f"a{i}", "message": {"id": "msg_1", "role": "assistant", "content": [b]}}
        for i, b in enumerate(
            {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file": f"f{i}"}}
            for i in range(3)
        )
    ]
    log = write_lines(tmp_path / "s.jsonl", lines)
    _, _, _, objects = replay(tmp_path, log)
    assert [len(r["calls"]) for r in rounds_of(objects)] == [3]


def test_tau_bench_runs_are_separate_conversations(tmp_path: Path) -> None:
    log = write(tmp_path, "tau-bench", ["x"] * 3)
    _, stdout, _, objects = replay(tmp_path, log)
    conversations = [o for o in objects if o["type"] == "conversation"]
    assert [(c["id"], c["outcome"]) for c in conversations] == [("7.0", 0.0), ("7.1", 1.0)]
    assert actions(objects) == [*LOOP, ["proceed"], ["observe"]]  # a fresh monitor for 7.1
    assert "conversation 7.1, outcome 1.0" in stdout


@pytest.mark.parametrize(
    ("records", "line", "fragment"),
    [
        (  # an OpenAI marker, then an Anthropic one
            [
                {"role": "tool", "tool_call_id": "x", "content": "ok"},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]},
            ],
            2,
            "a anthropic message in a log read as chat (formats cannot mix)",
        ),
        (  # Claude Code lines, then a Responses item
            [
                {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "go"}},
                {"kind": "response"},
            ],
            2,
            "a doomloop record in a log read as claude-code",
        ),
        (
            [{"timestamp": "t", "type": "session_meta", "payload": {}}, {"foo": 1}],
            2,
            "tried: chat, anthropic, responses, codex, claude-code, mini-swe-agent, swe-agent, "
            "tau-bench, doomloop",
        ),
    ],
)
def test_mixed_and_unknown_formats_name_the_line(
    tmp_path: Path, records: list[Any], line: int, fragment: str
) -> None:
    log = write_lines(tmp_path / "bad.jsonl", records)
    status, _, stderr, objects = replay(tmp_path, log)
    assert status == 2 and f"{log}:{line}: " in stderr and fragment in stderr
    assert objects == []


def test_a_truncated_trajectory_names_its_line(tmp_path: Path) -> None:
    log = write(tmp_path, "swe-agent", ["x"] * 3)
    text = log.read_text(encoding="utf-8")
    log.write_text(text[: len(text) // 2], encoding="utf-8")
    status, _, stderr, _ = replay(tmp_path, log)
    assert status == 2 and "not JSON" in stderr and f"{log}:" in stderr
