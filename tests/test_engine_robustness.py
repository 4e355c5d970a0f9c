"""Any well-formed scenario runs to an end: no traceback, no hang (ENG-17, ENG-20..ENG-23).

Hypothesis draws scenarios over the whole engine domain (every tool kind and
loop-key form, malformed and duplicate calls, server items, handlers,
ladders, fresh turns and decisions naming real and unknown calls) and
checks properties that hold for every run whatever the verdicts.
"""

from __future__ import annotations

import json

from doomloop_kit.engine import OutsideDomain, run_scenario
from doomloop_kit.generators.curated.engine.builders import call, text, turn
from hypothesis import given, reject, settings
from hypothesis import strategies as st

NAMES = ["read", "risky", "confirm", "ask", "ghost"]
KINDS = {"read": "executable", "risky": "approval", "confirm": "hitl", "ask": "manual"}
LOOP_KEYS = st.sampled_from(
    [
        None,
        False,
        ["q"],
        [],
        {"function": "project", "fields": {"q": ["trim", "lower"]}},
        {"function": "returns", "value": None},
        {"function": "returns-undefined"},
        {"function": "throws", "message": "bug"},
        {"function": "resolution-fails", "message": "boom"},
    ]
)
RAW_ARGS = st.sampled_from(['{"q":"a"}', '{"q":"A "}', '{"q":"b"}', "{}", "", "{oops", "5", "null"])
CALL_IDS = st.sampled_from(["c1", "c2", "c3", "c4"])


@st.composite
def responses(draw: st.DrawFn) -> dict[str, object]:
    items: list[dict[str, object]] = []
    if draw(st.booleans()):
        items.append(text(draw(st.sampled_from(["same", "I am stuck. " * 8, "other", ""]))))
    if draw(st.booleans()):
        items.append({"type": "web_search_call", "action": {"query": draw(st.sampled_from("ab"))}})
    for _ in range(draw(st.integers(0, 3))):
        items.append(call(draw(st.sampled_from(NAMES)), draw(RAW_ARGS), draw(CALL_IDS)))
    return turn(*items)


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, object]:
    tools = []
    for name, kind in KINDS.items():
        tool: dict[str, object] = {"name": name, "kind": kind}
        loop_key = draw(LOOP_KEYS)
        if loop_key is not None:
            tool["loopKey"] = loop_key
        if draw(st.booleans()):
            tool["fails"] = "tool failed"
        tools.append(tool)
    ladder = {
        rung: draw(st.sampled_from([False, 1, 2, 3]))
        for rung in ("observe", "steer", "escalate", "block", "stop")
    }
    option = {
        "ladder": ladder,
        "escalation": draw(st.sampled_from([{}, {"model": "big"}, {"advisor": True}])),
    }
    runs: list[dict[str, object]] = []
    for _ in range(draw(st.integers(1, 3))):
        model = draw(st.lists(responses(), max_size=6))
        if draw(st.booleans()):
            runs.append(
                {"input": "go", "model": model, "doomLoop": draw(st.sampled_from([option, False]))}
            )
        else:
            ids = draw(st.lists(CALL_IDS, min_size=1, max_size=2))
            runs.append({"approve": ids[:1], "reject": ids[1:], "model": model})
    hooks = draw(
        st.lists(
            st.sampled_from(
                [
                    {"returns": {"overrideAction": "stop"}},
                    {"returns": {"overrideAction": "escalate"}},
                    {"fails": "x"},
                ]
            ),
            max_size=2,
        )
    )
    steps = draw(st.sampled_from([None, 1, 2]))  # None: no stopWhen, the member left out
    request = {} if steps is None else {"stopWhenSteps": steps}
    return {
        "id": "drawn",
        "tools": tools,
        "hooks": hooks,
        "request": request,
        "runs": runs,
        "doomLoop": option,
    }


@settings(max_examples=300)
@given(scenarios())
def test_every_drawn_scenario_runs_to_a_defined_end(scenario: dict[str, object]) -> None:
    try:
        transcript = run_scenario(scenario).to_json()
    except OutsideDomain:
        reject()  # ENG-151: a pending call decided twice
    assert transcript["scenario"] == "drawn"
    runs = transcript["runs"]
    assert isinstance(runs, list)
    for run in runs:
        end = run["end"]
        assert end["status"] in {
            "in_progress",
            "complete",
            "awaiting_approval",
            "awaiting_hitl",
            "awaiting_client_tools",
        }
        assert end["reason"] in {"complete", "doom_loop", "error", "max_turns"}
        # ENG-99: at most one SessionEnd, and only after SessionStart.
        hooks = [event["hook"] for event in run["events"]]
        assert hooks.count("SessionEnd") <= hooks.count("SessionStart") <= 1
        # ENG-140: a Post* hook follows the PreToolUse of its call and a body that ran.
        posts = [e for e in run["events"] if e["hook"].startswith("PostToolUse")]
        assert len(posts) <= len(run["executions"])
        for post in posts:
            before = run["events"][: run["events"].index(post)]
            assert any(
                e["hook"] == "PreToolUse" and e["payload"]["callId"] == post["payload"]["callId"]
                for e in before
            )
        # ENG-121: the persisted state is plain JSON.
        assert json.loads(json.dumps(run["state"])) == run["state"]
        # ENG-19: every answered dispatch consumed the next scripted response.
        answered = [d["responseId"] for d in run["dispatches"] if d["responseId"] is not None]
        assert answered == [f"resp_{i + 1}" for i in range(len(answered))]
