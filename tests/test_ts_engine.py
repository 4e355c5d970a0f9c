"""The TypeScript port's engine (ports/typescript/src/engine) against the reference engine.

Every brief scenario (generators/curated/engine/brief.py) is run through the
built TS harness over the protocol's ``runScenario`` (protocol 1.2, feature
``engine``) and its transcript compared with the reference engine's by the
kit's transcript rule (:func:`~doomloop_kit.vectorset.transcripts.compare_transcripts`):
events and executions by the reference run's partial order (ENG-139),
``warnings`` not at all (ENG-108), ``end.error`` by its kind (ENG-141). A run
the reference refuses as outside the engine level's domain (ENG-151) and a
malformed scenario (ENG-23) must be answered ``bad-scenario``.

``python tests/test_ts_engine.py DUMP.json`` writes the reference pairs
``[{scenario, transcript}]`` for inspection.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.engine import OutsideDomain, ScenarioError, run_scenario
from doomloop_kit.generators.curated.engine.brief import SCENARIOS
from doomloop_kit.jsvalue.jsjson import stringify
from doomloop_kit.vectorset.transcripts import compare_transcripts

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "ports" / "typescript" / "dist" / "harness.js"

SCENARIO_IDS = [str(entry["scenario"]["id"]) for entry in SCENARIOS]  # type: ignore[index]

# One fact per entry: the part of the format ENG-23 names (spec §15.1.4).
MALFORMED: dict[str, object] = {
    "not-an-object": [],
    "unknown-member": {"id": "x", "runs": [], "colour": 1},
    "unknown-tool-kind": {"id": "x", "tools": [{"name": "t", "kind": "magic"}], "runs": []},
    "unknown-loop-key-function": {
        "id": "x",
        "tools": [{"name": "t", "loopKey": {"function": "guess"}}],
        "runs": [],
    },
    "item-without-type": {"id": "x", "runs": [{"input": "hi", "model": [{"output": [{}]}]}]},
    "call-without-call-id": {
        "id": "x",
        "runs": [
            {
                "input": "hi",
                "model": [{"output": [{"type": "function_call", "name": "t", "arguments": "{}"}]}],
            }
        ],
    },
    "run-without-input-or-decisions": {"id": "x", "runs": [{"model": []}]},
    "runs-missing": {"id": "x"},
    "duplicate-tool-names": {"id": "x", "tools": [{"name": "t"}, {"name": "t"}], "runs": []},
    "non-integer-step-count": {"id": "x", "request": {"stopWhenSteps": 1.5}, "runs": []},
}


def reference_pairs() -> list[dict[str, object]]:
    """The scenario and reference transcript of every brief entry."""
    return [
        {"scenario": entry["scenario"], "transcript": run_scenario(entry["scenario"]).to_json()}  # type: ignore[arg-type]
        for entry in SCENARIOS
    ]


def _serve(requests: list[dict[str, object]]) -> list[dict[str, Any]]:
    assert HARNESS.is_file(), f"{HARNESS} is missing: run make port-typescript"
    lines = "".join(json.dumps(request) + "\n" for request in requests)
    done = subprocess.run(
        ["node", str(HARNESS)],
        input=lines,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    responses = [json.loads(line) for line in done.stdout.split("\n") if line]  # not U+2028
    assert len(responses) == len(requests), done.stderr[-2000:]
    return responses


def ts_difference(scenario: object, response: dict[str, Any]) -> str | None:
    """The first difference between the TS answer and the reference's run of ``scenario``
    (None: none): a transcript by the reference's partial order (ENG-139), or
    ``bad-scenario`` for a run outside the domain (ENG-151)."""
    try:
        transcript = run_scenario(copy.deepcopy(scenario))  # type: ignore[arg-type]
    except OutsideDomain:
        if response.get("error", {}).get("code") == "bad-scenario":
            return None
        return f"outside the domain: expected bad-scenario, got {response}"
    if "result" not in response:
        return f"expected a transcript, got {response}"
    expected = json.loads(stringify(transcript.to_json()))  # as JSON.stringify writes it
    found = compare_transcripts(expected, response["result"], transcript.event_order())
    return None if not found else str(found[0])


@pytest.fixture(scope="module")
def served() -> dict[str, dict[str, Any]]:
    requests: list[dict[str, object]] = [{"id": 0, "op": "hello", "protocol": 1}]
    requests += [
        {"id": index + 1, "op": "runScenario", "scenario": entry["scenario"]}
        for index, entry in enumerate(SCENARIOS)
    ]
    offset = len(requests)
    requests += [
        {"id": offset + index, "op": "runScenario", "scenario": scenario}
        for index, scenario in enumerate(MALFORMED.values())
    ]
    responses = _serve(requests)
    assert "engine" in responses[0]["result"]["features"]
    named = dict(zip(SCENARIO_IDS, responses[1:offset], strict=True))
    named.update(zip(MALFORMED, responses[offset:], strict=True))
    return named


@pytest.mark.parametrize("scenario_id", SCENARIO_IDS)
def test_transcript_equals_the_reference(
    served: dict[str, dict[str, Any]], scenario_id: str
) -> None:
    """ENG-14, ENG-15: the same observable run as the reference engine."""
    entry = next(e for e in SCENARIOS if e["scenario"]["id"] == scenario_id)  # type: ignore[index]
    difference = ts_difference(entry["scenario"], served[scenario_id])
    assert difference is None, f"{scenario_id}: {difference}"


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_scenario_is_bad_scenario(served: dict[str, dict[str, Any]], name: str) -> None:
    """ENG-23: the reference rejects it, and the TS harness answers bad-scenario."""
    with pytest.raises(ScenarioError):
        run_scenario(MALFORMED[name])  # type: ignore[arg-type]
    assert served[name].get("error", {}).get("code") == "bad-scenario", served[name]


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(reference_pairs(), indent=1) + "\n", encoding="utf-8")


# -- random scenarios: both engines must agree beyond the brief ------------------------

# Drawn edges: options on every rung, malformed/blank/non-object/huge/-0 arguments,
# every loopKey form, every tool kind, duplicate call ids, server items, text
# repetition, decisions naming unknown ids, hooks, forced tool choices, stopWhen,
# loaded state with junk. Left out on purpose: field lists naming inherited
# members (a JS module declares js-inherited-members, the reference does not:
# KEY-23), arguments that parse to non-finite numbers (a transcript is plain
# JSON), and non-string output_text parts (not pinned by the spec).
_OPTIONS: list[object] = [
    True,
    False,
    {"ladder": {"observe": 1, "steer": 2, "block": 3, "stop": 4}},
    {
        "ladder": {"observe": 1, "steer": False, "escalate": 2, "block": 5, "stop": 8},
        "escalation": {"model": "frontier", "advisor": True},
    },
    {
        "ladder": {"observe": 1, "escalate": 2, "block": False, "stop": 3},
        "escalation": {"advisor": {"effort": "high"}, "maxEscalations": 1},
    },
    {"ladder": {"stop": 2}},
    {"text": False},
    {"ladder": {"steer": 1, "block": 2, "stop": False}},
    {"escalation": {"model": "m"}},
]
_ARGUMENTS = [
    '{"q":"a"}',
    '{"q":" A "}',
    '{"q":"b"}',
    "",
    "  ",
    "{",
    "null",
    "5",
    '"x"',
    "[1]",
    '{"q":1152921504606846977}',
    '{"q":-0}',
    '{"__proto__":{"a":1}}',
    '{"command":" ls ","cwd":"/"}',
    "NaN",
]
_LOOP_KEYS: list[object] = [
    None,
    False,
    ["q"],
    [],
    ["zz"],
    {"function": "project", "fields": {"q": ["trim", "lower"]}},
    {"function": "returns", "value": "k"},
    {"function": "returns", "value": None},
    {"function": "returns-undefined"},
    {"function": "throws", "message": "boom"},
    {"function": "resolution-fails", "message": "nope"},
    "str",
]
_KINDS = ["executable"] * 5 + ["approval", "hitl", "manual"]
_HOOKS: list[dict[str, object]] = [
    {"returns": {"overrideAction": "steer"}},
    {"returns": {"overrideAction": "stop"}},
    {"returns": {"overrideAction": "escalate"}},
    {"returns": {"overrideAction": "bogus"}},
    {"tool": "a", "returns": {"overrideAction": "block"}},
    {"fails": "hook down"},
    {"returns": None},
    {"when": {"streak": 2}, "returns": {"overrideAction": "block"}},
]
_STATES: list[dict[str, object]] = [
    {"status": "awaiting_approval", "messages": [], "doomLoop": 5},
    {
        "doomLoop": {
            "tools": {"a": {"fingerprint": "x", "streak": 3}},
            "pendingSteer": ["hi", 1],
            "stopVerdict": {"message": "m"},
        },
        "extra": 1,
    },
    {"status": "complete", "messages": [], "consumedForcedToolChoiceKey": "required"},
]


def _item(draw: random.Random, names: list[str], call_id: str) -> dict[str, object]:
    roll = draw.random()
    if roll < 0.15:
        said = draw.choice(["done", "I am stuck. " * 8, "same", ""])
        return {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": said}],
        }
    if roll < 0.25:
        kind = draw.choice(["web_search_call", "reasoning", "file_search_call"])
        return {"type": kind, "id": "ws", "action": {"query": draw.choice("xy")}, "status": "done"}
    return {
        "type": "function_call",
        "name": draw.choice(names) if names and draw.random() < 0.9 else "unknown",
        "arguments": draw.choice(_ARGUMENTS) if draw.random() < 0.4 else '{"q":"a"}',  # repeats
        "callId": draw.choice([call_id, call_id, "dup"]),
    }


def _tool(draw: random.Random, name: str) -> dict[str, object]:
    tool: dict[str, object] = {"name": name, "kind": draw.choice(_KINDS)}
    loop_key = draw.choice(_LOOP_KEYS)
    if loop_key is not None:
        tool["loopKey"] = loop_key
    if draw.random() < 0.15:
        tool["fails"] = "broken"
    if draw.random() < 0.15:
        tool["result"] = draw.choice([None, 1, "s", {"big": [1, 2]}])
    return tool


def _run(draw: random.Random, names: list[str], first_id: int, resume: bool) -> dict[str, object]:
    call_id = first_id
    model = []
    for _ in range(draw.randint(0, 8)):
        items = []
        for _ in range(draw.randint(0, 3)):
            call_id += 1
            items.append(_item(draw, names, f"c{call_id}"))
        model.append({"output": items})
    run: dict[str, object] = {"model": model}
    if resume:
        ids = [f"c{i}" for i in range(1, first_id + 1)] + ["dup", "ghost"]
        run["approve"] = draw.sample(ids, draw.randint(0, 2))
        run["reject"] = draw.sample(ids, draw.randint(0, 2))
    if not resume or not (run["approve"] or run["reject"]):
        run["input"] = draw.choice(["go", [{"role": "user", "content": "go"}]])
    if draw.random() < 0.15:
        run["doomLoop"] = draw.choice(_OPTIONS)
    return run


def random_scenario(draw: random.Random, number: int) -> dict[str, object]:
    """One scenario of the random family (seeded: the same draws give the same scenario)."""
    names = draw.sample(["a", "b", "c", "d"], draw.randint(0, 4))
    runs = []
    for index in range(draw.randint(1, 3)):
        runs.append(_run(draw, names, 10 * index, index > 0 and draw.random() < 0.6))
    scenario: dict[str, object] = {
        "id": f"random-{number}",
        "tools": [_tool(draw, name) for name in names],
        "runs": runs,
    }
    if draw.random() < 0.85:
        scenario["doomLoop"] = draw.choice(_OPTIONS)
    if draw.random() < 0.3:
        scenario["request"] = {
            "toolChoice": draw.choice(["auto", "required", {"type": "function", "name": "a"}]),
            "toolChoiceFromDispatch": draw.randint(0, 2),
            "stopWhenSteps": draw.randint(0, 3),
            "allowFinalResponse": draw.random() < 0.7,
        }
    if draw.random() < 0.3:
        scenario["hooks"] = draw.sample(_HOOKS, draw.randint(1, 2))
    if draw.random() < 0.1:
        scenario["stateAccessor"] = False
    if draw.random() < 0.15:
        scenario["initialState"] = draw.choice(_STATES)
    return scenario


def test_random_scenarios_agree_with_the_reference() -> None:
    """ENG-14: 200 seeded random scenarios give the reference engine's transcripts
    (or, outside the domain, bad-scenario as the reference refuses them)."""
    draw = random.Random(15)
    scenarios = [random_scenario(draw, number) for number in range(200)]
    requests: list[dict[str, object]] = [
        {"id": index, "op": "runScenario", "scenario": scenario}
        for index, scenario in enumerate(scenarios)
    ]
    differences = []
    for scenario, response in zip(scenarios, _serve(requests), strict=True):
        found = ts_difference(scenario, response)
        if found is not None:
            differences.append(f"{scenario['id']}: {found}")
    assert differences == [], differences[:5]
