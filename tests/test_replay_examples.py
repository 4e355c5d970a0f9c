"""The five example logs: their replays against the reference monitor driven here.

Each scenario below is the example read by hand: the monitor operations the
engine makes for it (engine-behaviour.md 2.1-2.3, 4.1), written as data.
The test drives :class:`~doomloop_kit.reference.DoomLoopMonitor` with them
directly and compares every round and text check with the replay's report;
a few facts from the briefs are also asserted literally. The docs page's
committed replays are checked to be current.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.conformance.cli import build_parser
from doomloop_kit.reference import DoomLoopMonitor, ToolCall, resolve_doom_loop_option
from doomloop_kit.replay.cli import run_with
from doomloop_kit.replay.driver import RoundResult, TextResult, replay
from doomloop_kit.replay.examples import EXAMPLES, by_name, outputs
from doomloop_kit.replay.options import options_from_args
from doomloop_kit.replay.readers import LogReader

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "guide" / "replay-examples"

Op = tuple[Any, ...]  # ("text", str) | ("round", [(tool, key)]) | ("run",) | ("run", state)


FAN_OUT_ORDERS = ("abc", "cab", "bca", "abc", "acb", "bac")


def _docs(n: int) -> list[tuple[str, Any]]:
    return [("read_doc", {"doc": f"design-{d}.md"}) for d in FAN_OUT_ORDERS[n]]


SCENARIOS: dict[str, list[Op]] = {
    "healthy-run": [
        ("text", "I'll look at the Makefile and the CI log first."),
        ("round", [("read_file", {"path": "Makefile"}), ("read_file", {"path": "ci.log"})]),
        ("round", [("grep", {"pattern": "jcs", "path": "pyproject.toml"})]),
        ("text", "The dependency is missing from pyproject.toml; adding it."),
        ("round", [("edit_file", {"path": "pyproject.toml", "insert": "jcs==0.2.1"})]),
        ("round", [("run", {"command": "make test"})]),
        (
            "text",
            "`make test` failed because `jcs` was not declared as a dependency. "
            "I added it to pyproject.toml and the suite now passes.",
        ),
    ],
    "repeated-fan-out": [
        *(("round", _docs(n)) for n in range(6)),
        ("text", "I could not read the design documents: the document server keeps timing out."),
    ],
    "polling-loop": [  # replayed with --loop-key job_status=job
        ("round", [("deploy", {"build": 42})]),
        ("round", [("job_status", {"job": "j-42"})]),
        ("round", [("job_status", {"job": "j-42"})]),
        ("round", [("job_status", '{"job": "j-42", "request_id": "r3"')]),  # malformed: raw
        *(("round", [("job_status", {"job": "j-42"})]) for _ in range(4)),
        ("text", "The deployment of build 42 is still pending."),
    ],
    "text-loop": [
        *(
            op
            for i in range(1, 5)
            for op in (
                ("text", "Let me search the test logs once more to find the flaky test."),
                ("round", [("search_logs", {"query": f"flaky attempt {i}"})]),
            )
        ),
        ("text", " ".join(["I am stuck."] * 12)),
    ],
    "resumed-run": [
        ("round", [("ci_status", {"branch": "main"})]),
        ("round", [("ci_status", {"branch": "main"})]),
        ("text", "The build on main is still running."),
        ("run",),
        ("round", [("ci_status", {"branch": "main"})]),
        ("round", [("ci_status", {"branch": "main"}), ("ci_log", {"branch": "main", "tail": 50})]),
        ("text", "The build failed in the lint step."),
        ("run", {"tools": {"ci_log": {"fingerprint": "0" * 64, "streak": 1}}}),
        ("round", [("ci_status", {"branch": "main"})]),
        ("text", "The build on main passes now."),
    ],
}


def drive(scenario: list[Op]) -> list[tuple[str, Any]]:
    """The reference's answers: ("round", [(tool, streak, action)]) / ("text", (streak, action))."""
    config = resolve_doom_loop_option(True).config
    assert config is not None
    monitor = DoomLoopMonitor(config)
    answers: list[tuple[str, Any]] = []
    round_number = 0
    for op in scenario:
        if op[0] == "run":
            state = op[1] if len(op) > 1 else json.loads(json.dumps(monitor.get_state()))
            monitor, round_number = DoomLoopMonitor(config, state), 0
        elif op[0] == "text":
            verdict = monitor.record_assistant_text(op[1])
            text = monitor.get_state().get("text")
            assert isinstance(text, dict)
            answers.append(("text", (text["streak"], verdict.action if verdict else None)))
        else:
            round_number += 1
            monitor.declare_round(round_number, [ToolCall(t, k) for t, k in op[1]])
            row = []
            for tool, key in op[1]:
                record = monitor.record_tool_call(tool, key, round_number)
                action = record.verdict.action if record.verdict else "proceed"
                row.append((tool, record.streak, action))
            answers.append(("round", row))
    return answers


def replayed(name: str) -> tuple[list[tuple[str, Any]], str]:
    """The replay's entries as the same answers, and its timeline."""
    example = by_name(name)
    report = io.StringIO()
    args = build_parser().parse_args(["replay", f"example:{name}", *example.arguments])
    answers: list[tuple[str, Any]] = []
    for entry in replay(LogReader(example.path), options_from_args(args)):
        if isinstance(entry, RoundResult):
            answers.append(("round", [(c.tool, c.streak, c.action) for c in entry.calls]))
        elif isinstance(entry, TextResult):
            answers.append(("text", (entry.streak, entry.action)))
    run_with(args, report)
    return answers, report.getvalue()


def test_every_example_has_a_scenario() -> None:
    assert sorted(SCENARIOS) == sorted(example.name for example in EXAMPLES)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_example_replays_as_the_reference_answers(name: str) -> None:
    answers, timeline = replayed(name)
    assert answers == drive(SCENARIOS[name])
    rounds = [row for kind, row in answers if kind == "round"]
    for number, row in enumerate(rounds, start=1):  # the timeline shows the same streaks
        line = next(t for t in timeline.splitlines() if t.startswith(f"R{number} "))
        for tool, streak, _ in row:
            assert f"{tool}:{streak}" in line


def test_brief_facts_on_the_examples() -> None:
    """Facts stated by the briefs, independent of any implementation."""
    actions = {
        name: [[a for _, _, a in row] for kind, row in replayed(name)[0] if kind == "round"]
        for name in SCENARIOS
    }
    # a rotated 3-call set repeats as one identity (monitor brief section 7); default ladder
    assert actions["repeated-fan-out"] == [
        ["proceed"] * 3,
        ["observe"] * 3,
        ["block"] * 3,
        ["block"] * 3,
        ["block"] * 3,
        ["stop"] * 3,
    ]
    # nothing repeats in the healthy run
    assert {a for row in actions["healthy-run"] for a in row} == {"proceed"}
    # streaks survive a fresh turn (I-18); a state without the tool forgets it
    assert actions["resumed-run"] == [
        ["proceed"],
        ["observe"],
        ["block"],
        ["block", "proceed"],
        ["proceed"],
    ]
    # identical filler text with varying calls climbs the text streak (I-11); the last
    # response repeats one 3-token block 12 times: the within-response detector
    texts = [v for kind, v in replayed("text-loop")[0] if kind == "text"]
    assert texts == [(1, None), (2, "observe"), (3, "observe"), (4, "observe"), (1, "stop")]


def test_docs_show_the_current_replays() -> None:
    """docs/guide/replay-examples/ is what `python -m doomloop_kit.replay.examples` writes."""
    expected = outputs()
    assert sorted(p.name for p in DOCS.iterdir()) == sorted(expected)
    for name, text in expected.items():
        assert (DOCS / name).read_text(encoding="utf-8") == text, (
            f"{name} is stale: run python -m doomloop_kit.replay.examples {DOCS}"
        )
    page = (ROOT / "docs" / "guide" / "replay.md").read_text(encoding="utf-8")
    for name in expected:
        if name.endswith(".html"):
            assert f"(replay-examples/{name})" in page
        else:
            assert f'--8<-- "docs/guide/replay-examples/{name}"' in page
