"""Sub-agents: each sub-agent's conversation is a run of its own, linked to its session.

The fixture is one Claude Code session written the ways Claude Code writes
it: the session delegates to two sub-agents at once (two ``Task`` calls in
one message); sub-agent ``a1`` reads the same file three times with the
same result (a loop: observe at its round 2, block at its round 3 under the
default ladder, brief section 7), sub-agent ``b2`` greps two patterns and
answers. Newer Claude Code writes each sub-agent to its own
``agent-<id>.jsonl`` (every line a sidechain with its ``agentId``) and
mirrors its calls in ``agent_progress`` lines of the session; older Claude
Code interleaves the sub-agents' lines, as sidechains without an id, in the
session's own file. The counts expected follow from the script, not from
the replay's code.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from test_replay import replay, write_lines
from test_replay_fleet import fleet, objects

SESSION = "5e55a1on-0000-4000-8000-000000000001"

Line = dict[str, Any]


def _message(kind: str, message_id: str, blocks: list[Line]) -> Line:
    if kind == "user":
        return {"role": "user", "content": blocks}
    return {"id": message_id, "type": "message", "role": "assistant", "content": blocks}


def script(agent: str) -> list[tuple[str, str, list[Line]]]:
    """A conversation as (type, message id, blocks) steps: the session's, or a sub-agent's."""

    def use(i: int, name: str, value: Line) -> Line:
        return {"type": "tool_use", "id": f"{agent}-t{i}", "name": name, "input": value}

    def result(i: int, text: str) -> Line:
        return {"type": "tool_result", "tool_use_id": f"{agent}-t{i}", "content": text}

    if agent == "main":
        tasks: list[Line] = [
            {"type": "text", "text": "Delegating to two sub-agents."},
            {"type": "tool_use", "id": "task-a1", "name": "Task", "input": {"prompt": "read"}},
            {"type": "tool_use", "id": "task-b2", "name": "Task", "input": {"prompt": "grep"}},
        ]
        return [("user", "", [{"type": "text", "text": "Fix it."}]), ("assistant", "m0", tasks)]
    if agent == "a1":
        steps = [("user", "", [{"type": "text", "text": "Read the config."}])]
        for i in range(3):
            steps.append(("assistant", f"a1-m{i}", [use(i, "Read", {"file_path": "cfg"})]))
            steps.append(("user", "", [result(i, "same")]))
        return [*steps, ("assistant", "a1-end", [{"type": "text", "text": "Config read."}])]
    steps = [("user", "", [{"type": "text", "text": "Grep for it."}])]
    for i, pattern in enumerate(["foo", "bar"]):
        steps.append(("assistant", f"b2-m{i}", [use(i, "Grep", {"pattern": pattern})]))
        steps.append(("user", "", [result(i, f"{pattern}: 1 match")]))
    return [*steps, ("assistant", "b2-end", [{"type": "text", "text": "Found both."}])]


def closing() -> list[tuple[str, str, list[Line]]]:
    results = [
        {"type": "tool_result", "tool_use_id": f"task-{agent}", "content": f"{agent} done"}
        for agent in ("a1", "b2")
    ]
    return [("user", "", results), ("assistant", "m1", [{"type": "text", "text": "Fixed."}])]


def lines_of(steps: list[tuple[str, str, list[Line]]], agent: str, *, own_id: bool) -> list[Line]:
    """Claude Code lines, one per content block, chained by ``parentUuid``."""
    lines: list[Line] = []
    parent: str | None = None
    for n, (kind, message_id, blocks) in enumerate(steps):
        # an assistant message is written one block per line, a user message whole
        contents = [[block] for block in blocks] if kind == "assistant" else [blocks]
        for b, content in enumerate(contents):
            uuid = f"{agent}-{n}-{b}"
            line: Line = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION}
            line["isSidechain"] = agent != "main"
            if own_id and agent != "main":
                line["agentId"] = agent
            line["message"] = _message(kind, message_id, content)
            lines.append(line)
            parent = uuid
    return lines


def mirror(agent: str) -> list[Line]:
    """The session's ``agent_progress`` lines of a sub-agent: its calls and results only."""
    found = []
    for line in lines_of(script(agent), agent, own_id=True):
        blocks = line["message"]["content"]
        if line["type"] == "assistant" and blocks[0]["type"] == "text":
            continue  # the progress lines carry no text
        data = {"type": "agent_progress", "agentId": agent, "prompt": "", "message": line}
        found.append(
            {"type": "progress", "uuid": f"p-{line['uuid']}", "sessionId": SESSION}
            | {"isSidechain": False, "data": data, "parentToolUseID": f"task-{agent}"}
        )
    return found


def own_files(folder: Path, *, mirrors: bool = True) -> Path:
    """Newer Claude Code: the session (mirroring its sub-agents) and a file per sub-agent."""
    folder.mkdir()
    main = lines_of(script("main"), "main", own_id=True)
    progress = [*mirror("a1"), *mirror("b2")] if mirrors else []
    tail = lines_of(closing(), "end", own_id=True)
    for line in tail:
        line["isSidechain"] = False
    write_lines(folder / f"{SESSION}.jsonl", [*main, *progress, *tail])
    agents = folder / SESSION / "subagents"
    agents.mkdir(parents=True)
    for agent in ("a1", "b2"):
        write_lines(agents / f"agent-{agent}.jsonl", lines_of(script(agent), agent, own_id=True))
    return folder


def interleaved(folder: Path) -> Path:
    """Older Claude Code: the sub-agents' sidechain lines, interleaved, in the session's file."""
    folder.mkdir()
    main = lines_of(script("main"), "main", own_id=False)
    a1 = lines_of(script("a1"), "a1", own_id=False)
    b2 = lines_of(script("b2"), "b2", own_id=False)
    b2[0]["parentUuid"] = main[-1]["uuid"]  # a root may point into the session's chain
    mixed = [line for pair in itertools.zip_longest(a1, b2) for line in pair if line]
    tail = lines_of(closing(), "end", own_id=False)
    for line in tail:
        line["isSidechain"] = False
    write_lines(folder / f"{SESSION}.jsonl", [*main, *mixed, *tail])
    return folder


def runs_of(report: Path) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in objects(report) if o["type"] == "run"}


FIGURES = (
    *("rounds", "calls", "notExecuted", "textChecks", "firstFired", "firstFiredBy"),
    *("strongest", "streaks", "outcome"),
)


def test_sub_agents_count_the_same_in_both_layouts(tmp_path: Path) -> None:
    """One corpus written both ways gives the same fleet figures, run for run."""
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({SESSION: True}))
    figures = []
    for name, build in (("own", own_files), ("interleaved", interleaved)):
        report = tmp_path / f"{name}.jsonl"
        status, stdout, _ = fleet(
            str(build(tmp_path / name)), "--outcomes", str(labels), "--json", str(report)
        )
        assert status == 0
        summary = objects(report)[-1]
        runs = sorted(
            (json.dumps({k: run[k] for k in FIGURES}, sort_keys=True), run["parent"] is None)
            for run in runs_of(report).values()
        )
        figures.append((summary["all"], summary["byOutcome"], runs))
        assert "2 sub-agents" in stdout
    assert figures[0] == figures[1]
    everything, by_outcome, _ = figures[0]
    assert (everything["runs"], everything["subAgents"], everything["calls"]) == (3, 2, 2 + 3 + 2)
    assert everything["runsReaching"]["block"] == 1  # sub-agent a1's loop
    assert by_outcome["success"]["runs"] == 3  # the sub-agents take their session's label


def test_a_sub_agents_own_file_is_a_run_linked_to_its_session(tmp_path: Path) -> None:
    report = tmp_path / "fleet.jsonl"
    status, stdout, _ = fleet(str(own_files(tmp_path / "runs")), "--json", str(report))
    assert status == 0
    runs = runs_of(report)
    assert sorted(runs) == sorted([SESSION, f"{SESSION}/agent-a1", f"{SESSION}/agent-b2"])
    session, a1 = runs[SESSION], runs[f"{SESSION}/agent-a1"]
    assert (session["session"], session["parent"], session["calls"]) == (SESSION, None, 2)
    assert (a1["parent"], a1["subAgent"], a1["fromProgress"]) == (SESSION, "agent-a1", False)
    assert (a1["rounds"], a1["firstFired"], a1["textChecks"]) == (3, {"observe": 2, "block": 3}, 1)
    assert a1["fired"]["block"]["by"] == "Read" and a1["fired"]["block"]["round"] == 3
    summary = objects(report)[-1]
    assert (summary["progressDuplicatesLeftOut"], summary["subAgentsFromProgress"]) == (2, 0)
    assert "2 progress copies left out for their own files" in stdout


def test_a_session_alone_reads_its_sub_agents_from_its_progress_lines(tmp_path: Path) -> None:
    folder = own_files(tmp_path / "runs")
    report = tmp_path / "fleet.jsonl"
    status, stdout, _ = fleet(str(folder / f"{SESSION}.jsonl"), "--fleet", "--json", str(report))
    assert status == 0
    runs = runs_of(report)
    a1 = runs[f"{SESSION}/agent-a1"]
    assert (a1["fromProgress"], a1["rounds"], a1["textChecks"]) == (True, 3, 0)  # no text
    assert a1["firstFired"] == {"observe": 2, "block": 3}
    assert objects(report)[-1]["subAgentsFromProgress"] == 2
    assert "2 read from its session's progress lines, without text" in stdout


def test_without_sub_agents_nothing_is_lost_and_no_empty_run_appears(tmp_path: Path) -> None:
    """A sub-agent's own file alone: one run, the sub-agent's (no 0-call session run)."""
    folder = own_files(tmp_path / "runs", mirrors=False)
    agent = folder / SESSION / "subagents" / "agent-a1.jsonl"
    report = tmp_path / "fleet.jsonl"
    fleet(str(agent), "--fleet", "--json", str(report))
    assert list(runs_of(report)) == [f"{SESSION}/agent-a1"]


def test_one_session_replayed_alone_shows_each_sub_agent(tmp_path: Path) -> None:
    log = interleaved(tmp_path / "runs") / f"{SESSION}.jsonl"
    status, stdout, _, found = replay(tmp_path, log)
    assert status == 0
    threads = [(o["name"], o["first"]) for o in found if o["type"] == "thread" and o["line"]]
    assert ("sidechain-1", True) in threads and ("sidechain-2", True) in threads
    assert "== line 5: sub-agent sidechain-1 of session" in stdout
    assert "sub-agents: 2, each replayed with its own monitor" in stdout
    rounds: dict[str | None, list[int]] = {}
    thread = None
    for entry in found:
        thread = entry["name"] if entry["type"] == "thread" else thread
        if entry["type"] == "round":
            rounds.setdefault(thread, []).append(entry["round"])
    assert rounds == {None: [1], "sidechain-1": [1, 2, 3], "sidechain-2": [1, 2]}
    assert found[-1]["firstFired"] == {"observe": "sidechain-1:2", "block": "sidechain-1:3"}


def test_claude_p_stream_sub_agents_are_their_task_calls(tmp_path: Path) -> None:
    def record(kind: str, blocks: list[Line], task: str | None, n: int) -> Line:
        message = _message(kind, f"m{n}", blocks)
        return {"type": kind, "message": message, "parent_tool_use_id": task, "session_id": "s"}

    task = {"type": "tool_use", "id": "toolu_T", "name": "Task", "input": {"prompt": "look"}}
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s"},
        record("assistant", [task], None, 0),
    ]
    for n in range(1, 4):
        use = {"type": "tool_use", "id": f"u{n}", "name": "LS", "input": {"path": "."}}
        lines.append(record("assistant", [use], "toolu_T", n))
        result = {"type": "tool_result", "tool_use_id": f"u{n}", "content": "a b"}
        lines.append(record("user", [result], "toolu_T", n))
    log = write_lines(tmp_path / "stream.jsonl", lines)
    report = tmp_path / "fleet.jsonl"
    fleet(str(log), "--fleet", "--json", str(report))
    runs = runs_of(report)
    sub = runs["s/task-toolu_T"]
    assert (sub["parent"], sub["calls"], sub["firstFired"]) == ("s", 3, {"observe": 2, "block": 3})
    assert runs["stream"]["calls"] == 1
