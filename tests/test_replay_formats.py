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


def claude_stream(results: list[str]) -> list[dict[str, Any]]:
    """``claude -p --output-format stream-json``: an init record, the messages, a result."""
    common = {"session_id": "s1", "parent_tool_use_id": None}
    records: list[dict[str, Any]] = [
        {"type": "system", "subtype": "init", "session_id": "s1", "tools": ["Bash"], "uuid": "i"}
    ]
    for i, result in enumerate(results):
        use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "ls"}}
        message = {"id": f"msg_{i}", "type": "message", "role": "assistant", "content": [use]}
        records.append({"type": "assistant", "message": message, **common, "uuid": f"a{i}"})
        answer = {"type": "tool_result", "tool_use_id": f"t{i}", "content": result}
        user = {"role": "user", "content": [answer]}
        records.append({"type": "user", "message": user, **common, "uuid": f"u{i}"})
    records.append({"type": "result", "subtype": "success", "is_error": False, "session_id": "s1"})
    return records


def codex_exec(results: list[str]) -> list[dict[str, Any]]:
    """``codex exec --json``: each command an item started, then completed with its output."""
    records: list[dict[str, Any]] = [
        {"type": "thread.started", "thread_id": "019a"},
        {"type": "turn.started"},
    ]
    for i, result in enumerate(results):
        item = {"id": f"item_{2 * i}", "type": "command_execution", "command": "bash -lc make"}
        records.append({"type": "item.completed", "item": {"id": f"r{i}", "type": "reasoning"}})
        records.append({"type": "item.started", "item": {**item, "status": "in_progress"}})
        done = {**item, "aggregated_output": result, "exit_code": 1, "status": "completed"}
        records.append({"type": "item.completed", "item": done})
    message = {"id": "item_last", "type": "agent_message", "text": "The build fails."}
    records.append({"type": "item.completed", "item": message})
    records.append({"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}})
    return records


def mini_swe_agent_v2(results: list[str]) -> list[dict[str, Any]]:
    """mini-swe-agent 2: its fence, the actions it recorded, a closing exit message."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Reply with one ```mswea_bash_command block."},
        {"role": "user", "content": "Please solve this issue: fix the parser."},
    ]
    for result in results:
        command = "pytest -x tests/test_parser.py"
        content = f"Run the tests.\n\n```mswea_bash_command\n{command}\n```"
        extra = {"actions": [{"command": command}], "cost": 0.0}
        messages.append({"role": "assistant", "content": content, "extra": extra})
        messages.append({"role": "user", "content": f"<returncode>1</returncode>\n{result}"})
    messages.append({"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}})
    return messages


def mini_swe_agent_tools(results: list[str]) -> dict[str, Any]:
    """mini-swe-agent 2 with tool calling: chat tool calls and tool messages."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the parser."}]
    for i, result in enumerate(results):
        arguments = json.dumps({"command": "pytest -x tests/test_parser.py"})
        call: dict[str, Any] = {"id": f"call_{i}", "type": "function"}
        call["function"] = {"name": "bash", "arguments": arguments}
        actions = [{"command": "pytest -x tests/test_parser.py", "tool_call_id": f"call_{i}"}]
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [call],
                "extra": {"actions": actions},
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": result})
    messages.append({"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}})
    info = {"mini_version": "2.1.0", "exit_status": "Submitted"}
    return {"info": info, "messages": messages, "trajectory_format": "mini-swe-agent-1.1"}


def swe_agent_tool_calls(results: list[str]) -> dict[str, Any]:
    """SWE-agent with function calling: the trajectory, and the history's tool calls."""
    steps: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "SETTING: ...", "agent": "main"},
        {"role": "user", "content": "Fix the parser.", "agent": "main"},
    ]
    for i, result in enumerate(results):
        action = 'find_file "parser.py"'
        steps.append({"thought": "Search.", "action": action, "observation": result})
        call: dict[str, Any] = {"id": f"call_{i}", "type": "function"}
        call["function"] = {"name": "find_file", "arguments": '{"file_name": "parser.py"}'}
        history.append(
            {"role": "assistant", "content": "Search.", "thought": "Search.", "action": action}
            | {"tool_calls": [call], "agent": "main", "message_type": "action"}
        )
        history.append({"role": "tool", "content": result, "tool_call_ids": [f"call_{i}"]})
    return {"trajectory": steps, "history": history, "info": {"exit_status": "submitted"}}


def tau_bench(results: list[str]) -> list[dict[str, Any]]:
    return [
        {"task_id": 7, "reward": 0.0, "info": {}, "traj": chat(results), "trial": 0},
        {"task_id": 7, "reward": 1.0, "info": {}, "traj": chat(["a", "b"]), "trial": 1},
    ]


FIXTURES: dict[str, tuple[Any, str]] = {
    "chat": (chat, "jsonl"),
    "anthropic": (anthropic, "json"),
    "claude-code": (claude_code, "jsonl"),
    "claude-stream": (claude_stream, "jsonl"),
    "codex": (codex, "jsonl"),
    "codex-exec": (codex_exec, "jsonl"),
    "mini-swe-agent": (mini_swe_agent, "traj.json"),
    "mini-swe-agent v2": (mini_swe_agent_v2, "traj.json"),
    "mini-swe-agent v2 tool calls": (mini_swe_agent_tools, "traj.json"),
    "swe-agent": (swe_agent, "traj"),
    "swe-agent tool calls": (swe_agent_tool_calls, "traj"),
    "tau-bench": (tau_bench, "json"),
}
"""Fixture name -> builder and file suffix; the format is the name's first word."""


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
    assert objects[-1]["format"] == name.split()[0]
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
        (  # after the first record, the log's own reader says what is missing
            [{"timestamp": "t", "type": "session_meta", "payload": {}}, {"foo": 1}],
            2,
            "a Codex rollout line without a `type`",
        ),
        (
            [{"foo": 1}],
            1,
            "tried: chat, anthropic, responses, codex, codex-exec, claude-code, claude-stream, "
            "mini-swe-agent, swe-agent, tau-bench, doomloop",
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


# -- the shapes of real logs ----------------------------------------------------------


def calls_of(objects: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(call["tool"], call.get("callId")) for r in rounds_of(objects) for call in r["calls"]]


def test_swe_agent_calls_are_named_by_the_recorded_tool_calls(tmp_path: Path) -> None:
    log = write(tmp_path, "swe-agent tool calls", ["none", "none"])
    _, _, _, objects = replay(tmp_path, log)
    assert calls_of(objects) == [("find_file", "call_0"), ("find_file", "call_1")]


def test_swe_agent_actions_are_read_with_its_command_set(tmp_path: Path) -> None:
    """A command of SWE-agent's set is a call of that name; any other command line is
    run by bash, as SWE-agent runs it; the framework's exit_* marker is no call."""
    actions = ["open parser.py", "python reproduce.py", "edit 3:3\nx = 1\nend_of_edit"]
    actions += ["python reproduce.py", "exit_cost"]
    steps = [{"thought": "t", "action": a, "observation": f"o{i}"} for i, a in enumerate(actions)]
    log = tmp_path / "run.traj"
    log.write_text(json.dumps({"trajectory": steps, "history": [], "info": {}}, indent=1))
    status, _, _, objects = replay(tmp_path, log)
    assert status == 0
    assert [name for name, _ in calls_of(objects)] == ["open", "bash", "edit", "bash"]
    # MON-38: records of other tools never change a tool's entry, so the edit between
    # the two runs of the script does not end bash's streak (and the results changed)
    assert [c["streak"] for r in rounds_of(objects) for c in r["calls"]] == [1, 1, 1, 2]
    assert [o["results"] for o in objects if o["type"] == "streak"] == ["changed"]


def test_a_swe_agent_history_without_trajectory_is_the_log(tmp_path: Path) -> None:
    data = swe_agent_tool_calls(["a", "a", "a"])
    del data["trajectory"]
    log = tmp_path / "demo.traj"
    log.write_text(json.dumps(data, indent=1), encoding="utf-8")
    _, _, _, objects = replay(tmp_path, log)
    assert objects[-1]["format"] == "swe-agent"
    assert actions(objects) == LOOP
    assert [o["identical"] for o in objects if o["type"] == "streak"] == [2]


def test_a_bare_mini_swe_agent_v2_trajectory_is_not_read_as_chat(tmp_path: Path) -> None:
    """Current mini-swe-agent writes a bare message list and its own fence: no info
    document, and no ```bash block, yet every command is a call."""
    messages = mini_swe_agent_v2(["x", "y"])
    for message in messages:
        message.pop("extra", None)
    log = tmp_path / "local.json"  # not even named .traj.json: the fence says it
    log.write_text(json.dumps(messages, indent=1), encoding="utf-8")
    _, _, _, objects = replay(tmp_path, log)
    assert objects[-1]["format"] == "mini-swe-agent"
    assert calls_of(objects) == [("bash", "step-1"), ("bash", "step-2")]


def test_mini_swe_agent_on_the_responses_api(tmp_path: Path) -> None:
    """Version 2 on the Responses API stores whole response objects and output items."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix it."}]
    for i in range(3):
        call = {"type": "function_call", "call_id": f"c{i}", "name": "bash"}
        call["arguments"] = '{"command": "make"}'
        messages.append({"object": "response", "output": [{"type": "reasoning"}, call]})
        messages.append({"type": "function_call_output", "call_id": f"c{i}", "output": "E"})
    data = {"info": {"mini_version": "2.0.0"}, "messages": messages}
    log = tmp_path / "run.traj.json"
    log.write_text(json.dumps(data, indent=1), encoding="utf-8")
    _, _, _, objects = replay(tmp_path, log)
    assert actions(objects) == LOOP
    assert calls_of(objects) == [("bash", "c0"), ("bash", "c1"), ("bash", "c2")]


def test_a_codex_exec_stream_is_not_a_list_of_server_tools(tmp_path: Path) -> None:
    """Its events once read as Responses items of unknown types: server:thread.started."""
    log = write_lines(tmp_path / "exec.jsonl", codex_exec([])[:2])
    status, _, _, objects = replay(tmp_path, log)
    assert (status, objects[-1]["format"], objects[-1]["calls"]) == (0, "codex-exec", 0)
    assert "server:" not in json.dumps(objects)


def test_parallel_codex_exec_commands_are_one_round(tmp_path: Path) -> None:
    started: list[dict[str, Any]] = [
        {"type": "item.started", "item": {"id": f"i{n}", "type": "command_execution", "command": c}}
        for n, c in enumerate(["ls", "pwd"])
    ]
    done = [
        {"type": "item.completed", "item": {**s["item"], "aggregated_output": "", "exit_code": 0}}
        for s in started
    ]
    log = write_lines(tmp_path / "exec.jsonl", [{"type": "turn.started"}, *started, *done])
    _, _, _, objects = replay(tmp_path, log)
    assert [len(r["calls"]) for r in rounds_of(objects)] == [2]


@pytest.mark.parametrize(
    ("records", "line", "kind"),
    [
        ([*codex_exec(["a"])[:3], {"type": "thread.renamed", "name": "x"}], 4, "'thread.renamed'"),
        (
            [*claude_code(["a"])[:3], {"type": "new-bookkeeping", "sessionId": "s1"}],
            4,
            "'new-bookkeeping'",
        ),
        ([{"type": "message", "role": "assistant"}, {"type": "response.created"}], 2, ""),
        ([{"role": "user", "content": "go"}, {"role": "narrator", "content": "x"}], 2, ""),
    ],
)
def test_a_record_of_an_unknown_type_is_a_problem_never_a_call(
    tmp_path: Path, records: list[dict[str, Any]], line: int, kind: str
) -> None:
    log = write_lines(tmp_path / "log.jsonl", records)
    status, stdout, stderr, objects = replay(tmp_path, log, "--quiet")
    assert status == 2  # input was left out; the rest is replayed and reported
    assert f"{log}:{line}: " in stderr and kind in stderr and "left out" in stderr
    assert [o["line"] for o in objects if o["type"] == "problem"] == [line]
    assert objects[-1]["type"] == "summary" and objects[-1]["skipped"] == 1
    assert "server:" not in json.dumps(objects)
    assert "problems: 1 records left out" in stdout  # --quiet keeps the count


def test_a_cut_last_line_is_a_warning_and_the_run_stands(tmp_path: Path) -> None:
    """A live or crashed session ends mid-line: the lines before it are the run."""
    log = write_lines(tmp_path / "session.jsonl", claude_code(["a"] * 3))
    text = log.read_text(encoding="utf-8")
    log.write_text(text + '{"type": "assistant", "message": {"id": "m', encoding="utf-8")
    status, stdout, _, objects = replay(tmp_path, log, "--quiet")
    assert status == 0
    assert actions(objects)[:3] == LOOP
    cut = text.count("\n") + 1
    notices = [o for o in objects if o["type"] == "notice"]
    assert [(n["line"], "the last line is cut short" in n["message"]) for n in notices] == [
        (cut, True)
    ]
    assert "warnings: 1" in stdout


def test_a_cut_line_before_the_last_is_still_an_error(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    log.write_text('{"role": "user", "content": "a"}\n{"role": "assi\n{"role": "user"}\n')
    status, _, stderr, _ = replay(tmp_path, log)
    assert status == 2 and f"{log}:2: not JSON" in stderr
