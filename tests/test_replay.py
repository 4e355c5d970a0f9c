"""doomloop-kit replay: readers, bad input, the engine's order, the sweep, --port.

Expected values come from the briefs' facts (engine-behaviour.md scenario
ids are cited) or from the reference monitor driven directly in the test,
never from the replay's own output.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.conformance.cli import build_parser, main
from doomloop_kit.reference import fingerprint_tool_call
from doomloop_kit.replay import jsonstream
from doomloop_kit.replay.cli import run_with
from doomloop_kit.replay.examples import by_name
from doomloop_kit.replay.sweep import parse_grid
from doomloop_kit.vectorset.files import load_vector_file

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_HARNESS = f"{sys.executable} -m doomloop_kit.conformance.harnesses.python_reference"
MUTANT = f"{sys.executable} {ROOT / 'tests' / 'harnesses' / 'mutants.py'} stop-below-block"


# -- helpers ---------------------------------------------------------------------


def write_lines(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def replay(tmp_path: Path, log: Path, *options: str) -> tuple[int, str, str, list[dict[str, Any]]]:
    """Run the command in-process; (status, stdout, stderr, report objects)."""
    report = tmp_path / "report.jsonl"
    report.unlink(missing_ok=True)
    args = build_parser().parse_args(["replay", str(log), "--json", str(report), *options])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = run_with(args, out)
    objects = []
    if report.exists():
        objects = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return status, out.getvalue(), err.getvalue(), objects


def rounds_of(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o["type"] == "round"]


def actions(objects: list[dict[str, Any]]) -> list[list[str]]:
    return [[call["action"] for call in r["calls"]] for r in rounds_of(objects)]


def response(calls: list[tuple[str, Any]], text: str = "") -> dict[str, Any]:
    return {
        "kind": "response",
        "text": text,
        "calls": [{"name": name, "arguments": args} for name, args in calls],
    }


# -- reading the log ------------------------------------------------------------


def test_json_array_document_gives_each_value_its_line(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    log.write_text('[\n {"role": "user",\n  "content": "x"},\n\n {"role": "assistant"}\n]\n')
    found = [(v.line, v.value) for v in jsonstream.read_values(log)]
    assert found == [(2, {"role": "user", "content": "x"}), (5, {"role": "assistant"})]


def test_wrapped_document_streams_its_array_member(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    log.write_text('{"model": "m",\n "input": [\n  {"type": "reasoning"},\n  {"type": "x"}\n ]}')
    assert [v.line for v in jsonstream.read_values(log)] == [3, 4]


def test_a_long_document_is_read_across_chunks(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    values = [{"role": "user", "content": "y" * 1000, "n": 123456789 + i} for i in range(300)]
    log.write_text("[\n" + ",\n".join(json.dumps(v) for v in values) + "\n]")
    found = list(jsonstream.read_values(log))
    assert [v.value for v in found] == values
    assert [v.line for v in found] == list(range(2, 302))


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (
            '{"role": "user"}\n{"role": "assistant"}\n{"oops": 1}\n',
            3,
            "a chat log holds messages with a string `role`",
        ),
        ('{"oops": 1}\n', 1, "in none of the formats the replay reads (tried: chat, anthropic"),
        (
            '{"role": "user"}\n\n{"role": "assistant", "content": "a"\n{"role": "user"}\n',
            3,
            "not JSON",
        ),
        ('[\n {"role": "assistant"},\n {"role": NaN}\n]', 3, "not JSON"),
        ('{"role": "assistant"}\n{"type": "function_call", "name": "x"}\n', 2, "cannot mix"),
        ('{"role": "assistant", "tool_calls": [{"function": {}}]}\n', 1, "function.name"),
        ('{"kind": "response", "calls": [{"arguments": "{}"}]}\n', 1, "needs a string `name`"),
        ("[1, 2]\n", 1, "in none of the formats"),
    ],
)
def test_bad_input_names_the_line_and_writes_nothing(
    tmp_path: Path, text: str, line: int, fragment: str
) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(text, encoding="utf-8")
    status, _, stderr, objects = replay(tmp_path, log, "--html", str(tmp_path / "page.html"))
    assert status == 2
    assert f"{log}:{line}: " in stderr and fragment in stderr
    assert objects == [] and not (tmp_path / "page.html").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.jsonl"]  # no temporary file left


def test_a_result_without_its_call_is_a_warning_naming_the_line(tmp_path: Path) -> None:
    log = write_lines(
        tmp_path / "log.jsonl",
        [
            {"role": "tool", "tool_call_id": "lost", "content": "x"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "a", "content": "ok"},
            {"role": "tool", "tool_call_id": "a", "content": "again"},
        ],
    )
    status, stdout, _, objects = replay(tmp_path, log)
    assert status == 0
    notices = [o for o in objects if o["type"] == "notice"]
    assert [n["line"] for n in notices] == [1, 4]
    assert "warning: line 4: a tool result for call 'a'" in stdout
    assert len(rounds_of(objects)) == 1


def test_malformed_arguments_are_their_own_key_material(tmp_path: Path) -> None:
    """ENG-04, engine brief 2.2.3 and 9.14: even an exempt tool records malformed calls."""
    raw = '{"path": "a"'
    call = {"id": "c", "type": "function", "function": {"name": "read", "arguments": raw}}
    log = write_lines(tmp_path / "log.jsonl", [{"role": "assistant", "tool_calls": [call]}] * 3)
    status, stdout, _, objects = replay(tmp_path, log, "--exempt", "read")
    assert status == 0
    calls = [r["calls"][0] for r in rounds_of(objects)]
    assert {c["fingerprint"] for c in calls} == {fingerprint_tool_call("read", raw)}
    assert [c["identity"] for c in calls] == ["malformed"] * 3
    assert [c["action"] for c in calls] == ["proceed", "observe", "block"]
    assert "read:3!~" in stdout


def test_empty_argument_text_reads_as_an_empty_object(tmp_path: Path) -> None:
    """Engine brief 2.2.3: blank argument text is {} and not malformed."""
    call = {"id": "c", "type": "function", "function": {"name": "ping", "arguments": "  "}}
    log = write_lines(tmp_path / "log.jsonl", [{"role": "assistant", "tool_calls": [call]}])
    _, _, _, objects = replay(tmp_path, log)
    assert rounds_of(objects)[0]["calls"][0]["fingerprint"] == fingerprint_tool_call("ping", {})


# -- the engine's order ---------------------------------------------------------


def test_in_round_duplicates_share_the_first_decision(tmp_path: Path) -> None:
    """R-02: noisy {} in rounds 1 and 2, three times in round 3: one block, three blocked."""
    log = write_lines(
        tmp_path / "log.jsonl",
        [
            response([("noisy", {})]),
            response([("noisy", {})]),
            response([("noisy", {})] * 3),
        ],
    )
    _, stdout, _, objects = replay(tmp_path, log)
    assert actions(objects) == [["proceed"], ["observe"], ["block"] * 3]
    third = rounds_of(objects)[2]["calls"]
    assert ["verdict" in c for c in third] == [True, False, False]
    assert [c["duplicateInRound"] for c in third] == [False, True, True]
    assert "noisy:3!" in stdout and "noisy:3!=x2" in stdout


def test_a_wide_identical_fan_out_is_one_piece_of_evidence(tmp_path: Path) -> None:
    """R-01: six identical calls in one response: no detection."""
    log = write_lines(tmp_path / "log.jsonl", [response([("search", {"q": "x"})] * 6)])
    _, _, _, objects = replay(tmp_path, log)
    assert actions(objects) == [["proceed"] * 6]


def test_loop_key_fields_catch_a_nonce(tmp_path: Path) -> None:
    """R-15 / R-16: a nonce hides repetition; a field-list loop key finds it."""
    polls = [response([("poll", {"key": "same", "request_id": f"r{i}"})]) for i in range(3)]
    log = write_lines(tmp_path / "log.jsonl", polls)
    assert actions(replay(tmp_path, log)[3]) == [["proceed"]] * 3
    _, _, _, objects = replay(tmp_path, log, "--loop-key", "poll=key")
    assert actions(objects) == [["proceed"], ["observe"], ["block"]]
    assert {r["calls"][0]["identity"] for r in rounds_of(objects)} == {"loop key"}


def test_exempt_tools_are_never_recorded(tmp_path: Path) -> None:
    """R-13: loopKey false, five identical polls, no detection."""
    log = write_lines(tmp_path / "log.jsonl", [response([("poll", {"id": 1})])] * 5)
    _, stdout, _, objects = replay(tmp_path, log, "--exempt", "poll")
    assert actions(objects) == [["exempt"]] * 5
    assert "fingerprint" not in rounds_of(objects)[0]["calls"][0]
    assert "poll:-" in stdout


def test_unhashable_arguments_are_left_unchecked(tmp_path: Path) -> None:
    """Engine brief 2.3.4: no fingerprint, no retry identity -> detection skipped."""
    log = tmp_path / "log.jsonl"
    call = {"name": "f", "arguments": '{"x": 1e400}'}  # JSON.parse gives Infinity
    write_lines(log, [{"kind": "response", "calls": [call]}])
    _, _, _, objects = replay(tmp_path, log)
    call = rounds_of(objects)[0]["calls"][0]
    assert call["action"] == "skipped" and "non-finite" in " ".join(call["notes"])


def test_text_is_checked_before_the_round_of_its_response(tmp_path: Path) -> None:
    """Engine brief 4.1: the response checkpoint's text check precedes the round."""
    responses = [response([("f", {"i": i})], "same") for i in range(2)]
    log = write_lines(tmp_path / "log.jsonl", responses)
    _, _, _, objects = replay(tmp_path, log)
    kinds = [o["type"] for o in objects if o["type"] in ("text", "round")]
    assert kinds == ["text", "round", "text", "round"]
    texts = [o for o in objects if o["type"] == "text"]
    assert [t["streak"] for t in texts] == [1, 2] and texts[1]["action"] == "observe"


def test_server_items_never_block(tmp_path: Path) -> None:
    """Engine brief 2.6.1 and R-17: server records use allowBlock false; stop still wins."""
    item = {
        "type": "web_search_call",
        "id": "ws",
        "status": "completed",
        "action": {"type": "search", "query": "same query"},
    }
    records: list[Any] = []
    for i in range(4):
        records.append(
            {"type": "message", "role": "user", "content": "go"}
            if i
            else {"role": "user", "content": "go"}
        )
        records.append({**item, "id": f"ws{i}"})
        records.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"answer {i}"}],
            }
        )
    log = write_lines(tmp_path / "log.jsonl", records)
    _, _, _, objects = replay(tmp_path, log, "--option", '{"ladder": {"block": 3, "stop": 4}}')
    servers = [o["calls"][0] for o in objects if o["type"] == "server"]
    assert [c["tool"] for c in servers] == ["server:web_search_call"] * 4
    assert [c["action"] for c in servers] == ["proceed", "observe", "observe", "stop"]


def test_a_resume_keeps_streaks_and_restarts_rounds(tmp_path: Path) -> None:
    """I-18: two identical calls, a fresh turn, one more: block at 3."""
    log = write_lines(
        tmp_path / "log.jsonl",
        [
            response([("web_search", {"q": "x"})]),
            response([("web_search", {"q": "x"})]),
            {"kind": "resume"},
            response([("web_search", {"q": "x"})]),
            {"kind": "resume", "state": {"tools": {}}},
            response([("web_search", {"q": "x"})]),
        ],
    )
    _, _, _, objects = replay(tmp_path, log)
    assert actions(objects) == [["proceed"], ["observe"], ["block"], ["proceed"]]
    runs = [(r["run"], r["runRound"]) for r in rounds_of(objects)]
    assert runs == [(1, 1), (1, 2), (2, 1), (3, 1)]


def test_options_that_cannot_be_used_are_clear_errors(tmp_path: Path) -> None:
    log = write_lines(tmp_path / "log.jsonl", [response([("f", {})])])
    assert replay(tmp_path, log, "--option", "false")[0] == 2
    status, _, stderr, _ = replay(tmp_path, log, "--option", "{nope")
    assert status == 2 and "--option" in stderr
    status, _, stderr, _ = replay(tmp_path, log, "--loop-key", "nofields")
    assert status == 2 and "TOOL=FIELD" in stderr


# -- the sweep --------------------------------------------------------------------


def test_grid_syntax() -> None:
    assert parse_grid("observe=2..4,block=3|false") == {"observe": [2, 3, 4], "block": [3, False]}
    for bad in ("observe=4..2", "nope=1", "block=x", "block=1,block=2"):
        with pytest.raises(ValueError):
            parse_grid(bad)


def test_sweep_of_the_repeated_fan_out(capsys: pytest.CaptureFixture[str]) -> None:
    """The same 3-call set for six rounds has streak k at round k (section 7 facts), so a
    rung with threshold t first fires at round t unless a stronger rung already wins, and
    every call from round min(block, stop) on is not executed."""
    assert main(["replay", "example:repeated-fan-out", "--sweep", "observe=2..4,block=3..6"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == [
        "observe",
        "block",
        "first",
        "observe",
        "first",
        "block",
        "first",
        "stop",
        "blocked",
    ]
    rows = [line.split() for line in lines[2:]]
    assert len(rows) == 12
    for observe in (2, 3, 4):
        for block in (3, 4, 5, 6):
            row = next(r for r in rows if r[:2] == [str(observe), str(block)])
            first_observe = str(observe) if observe < block else "-"
            first_block = str(block) if block < 6 else "-"
            blocked = 3 * (6 - min(block, 6) + 1)
            assert row[2:6] == [first_observe, first_block, "6", str(blocked)], row


# -- against a port ----------------------------------------------------------------


def test_port_agreeing_with_the_reference(tmp_path: Path) -> None:
    for example in ("repeated-fan-out", "polling-loop", "resumed-run", "text-loop"):
        status, stdout, stderr, _ = replay(
            tmp_path,
            by_name(example).path,
            *by_name(example).arguments,
            "--port",
            REFERENCE_HARNESS,
            "--out",
            str(tmp_path / "found"),
        )
        assert status == 0, stdout + stderr
        assert "agrees with the reference" in stdout
    assert not (tmp_path / "found").exists()


def test_port_difference_is_found_and_written_as_a_vector(tmp_path: Path) -> None:
    """The mutant checks block before stop; the fan-out's streak first reaches stop (6) at
    round 6, line 35 of the log: that is the first difference."""
    out = tmp_path / "found"
    status, stdout, stderr, _ = replay(
        tmp_path, by_name("repeated-fan-out").path, "--port", MUTANT, "--out", str(out)
    )
    assert status == 1, stdout + stderr
    assert "first differs at round 6 (line 35)" in stdout
    path = out / "curated" / "fuzz-replay.json"
    vector_file = load_vector_file(path)  # schema-checked
    [vector] = vector_file.vectors
    assert vector.id.startswith("fuzz-replay/repeated-fan-out-")
    ops = [step.op for step in vector.steps]
    assert ops.count("declareRound") == 6 and ops[-1] == "recordToolCall"
    assert vector.steps[-1].expected_result["verdict"]["action"] == "stop"

    from doomloop_kit.conformance.execute import run_vector
    from doomloop_kit.conformance.outcomes import Status
    from doomloop_kit.conformance.protocol import Connection

    for command, expected in ((REFERENCE_HARNESS, Status.PASSED), (MUTANT, Status.FAILED)):
        harness = Connection(command)
        try:
            harness.start()
            assert run_vector(harness, vector, str(path)).status == expected
        finally:
            harness.close()


def test_unusable_port(tmp_path: Path) -> None:
    status, stdout, _, _ = replay(tmp_path, by_name("healthy-run").path, "--port", "exit 3")
    assert status == 2 and "unusable" in stdout


def test_a_response_without_calls_ends_the_run(tmp_path: Path) -> None:
    """I-18 in chat form: the next user turn is a new run on the saved state."""
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": "web_search", "arguments": '{"q": "x"}'},
    }
    turn = [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "tool_call_id": "c"}]
    log = write_lines(
        tmp_path / "log.jsonl",
        [
            {"role": "user", "content": "one"},
            *turn,
            *turn,
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "two"},
            *turn,
        ],
    )
    _, stdout, _, objects = replay(tmp_path, log)
    assert actions(objects) == [["proceed"], ["observe"], ["block"]]
    assert [(r["run"], r["runRound"]) for r in rounds_of(objects)] == [(1, 1), (1, 2), (2, 1)]
    assert "-- line 8: new turn, run 2 starts from the saved state --" in stdout


def test_arguments_too_deep_to_read_are_left_unchecked(tmp_path: Path) -> None:
    """JS would parse them and the canonical form would refuse them (depth > 64)."""
    deep = "[" * 5000 + "]" * 5000
    log = write_lines(
        tmp_path / "log.jsonl", [{"kind": "response", "calls": [{"name": "f", "arguments": deep}]}]
    )
    _, _, _, objects = replay(tmp_path, log)
    assert actions(objects) == [["skipped"]]
    log.write_text('{"kind": "user"}\n' + deep + "\n")  # read (as JS reads it), not a record
    status, _, stderr, _ = replay(tmp_path, log)
    assert status == 2 and f"{log}:2: a doomloop log holds records with a string `kind`" in stderr
    deeper = "[" * 10_001 + "]" * 10_001  # past the bound every input has (PROT-45)
    log.write_text('{"kind": "user"}\n' + deeper + "\n")
    status, _, stderr, _ = replay(tmp_path, log)
    assert status == 2 and f"{log}:2: nested deeper than 10,000 levels" in stderr


def test_non_function_tool_calls_are_left_out_with_a_warning(tmp_path: Path) -> None:
    custom = {"id": "x", "type": "custom", "custom": {"name": "shell", "input": "ls"}}
    plain = {"id": "y", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    message = {"role": "assistant", "tool_calls": [custom, plain]}
    log = write_lines(tmp_path / "log.jsonl", [message])
    status, stdout, _, objects = replay(tmp_path, log)
    assert status == 0 and "warning: line 1: tool call 0 is a 'custom' call" in stdout
    assert [[c["tool"] for c in r["calls"]] for r in rounds_of(objects)] == [["f"]]


def test_the_reader_forgets_the_oldest_unanswered_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from doomloop_kit.replay import events as events_module
    from doomloop_kit.replay import readers
    from doomloop_kit.replay.formats import common

    monkeypatch.setattr(common, "MAX_PENDING", 3)
    records: list[Any] = [
        {"kind": "response", "calls": [{"name": "f", "id": f"c{i}"}]} for i in range(5)
    ]
    records += [{"kind": "result", "id": "c4"}, {"kind": "result", "id": "c0"}]
    log = write_lines(tmp_path / "log.jsonl", records)
    reader = readers.LogReader(log)
    events = list(reader)
    assert [e.line for e in events if isinstance(e, events_module.Notice)] == [7]


def test_sweep_takes_no_output_files(tmp_path: Path) -> None:
    status, _, stderr, _ = replay(tmp_path, by_name("healthy-run").path, "--sweep", "block=3")
    assert status == 2 and "--sweep prints a table only" in stderr


def test_the_page_cannot_be_broken_by_the_log(tmp_path: Path) -> None:
    """Tool names and messages go into a script element: they must not end it."""
    name = "</script><h1>x</h1>"
    log = write_lines(tmp_path / "log.jsonl", [response([(name, {})])] * 2)
    status, _, _, _ = replay(tmp_path, log, "--html", str(tmp_path / "page.html"))
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert status == 0 and name not in page and page.count("</script>") == 4


def test_an_output_file_that_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    target = tmp_path / "a-file" / "page.html"  # a missing folder would be created
    log = by_name("healthy-run").path
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "doomloop_kit.conformance.cli",
            "replay",
            str(log),
            "--html",
            str(target),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        done.returncode == 2 and f"{target}: a part of the path is not a directory" in done.stderr
    )
