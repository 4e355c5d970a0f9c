"""Polling: identical arguments every round while the tool's result changes (MON-*, KEY-*).

The monitor never sees results, so a poll with identical arguments climbs
like any repeated call: observe at 2, block at 3 with the default ladder.
That is the documented limit; the remedy is the ``loopKey: false``
exemption, with which the engine records nothing.
"""

# ruff: noqa: E501  (scenario descriptions are one-line sentences)

from __future__ import annotations

from typing import Any

from ..steps import get_state, op, record, returns, scenario

FAMILY = "polling"
DESCRIPTION = (
    "polling with identical arguments: observe at 2, block at 3, and the loopKey false exemption"
)

ARGS = {"jobId": "job-42"}


def _polls(loop_key: Any, rounds: int) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for number in range(rounds):
        steps.append(
            op("resolveLoopKey", loopKey=loop_key, args=ARGS)
            if loop_key != "absent"
            else op("resolveLoopKey", args=ARGS)
        )
        if loop_key in ("absent", ["jobId"]):
            steps.append(record("check_job", ARGS, number))
        elif isinstance(loop_key, dict):
            steps.append(record("check_job", {"job": "job-42"}, number))
        steps.append(record("read", {"path": f"log-{number}"}, number))
    return [*steps, get_state()]


SCENARIOS: list[dict[str, Any]] = [
    scenario(
        "identical-arguments-block-at-three",
        "a job polled with identical arguments: no verdict, observe at 2, block at 3 (the documented limit)",
        ["KEY-05", "MON-26", "MON-34", "MON-35", "LAD-03"],
        _polls("absent", 4),
        tags=["polling"],
        option=True,
    ),
    scenario(
        "field-list-same-key",
        "a field list naming the unchanged argument gives the same identity: still blocks at 3",
        ["KEY-09", "KEY-11", "MON-34"],
        _polls(["jobId"], 3),
        tags=["polling"],
        option=True,
    ),
    scenario(
        "function-key-same-key",
        "a loop-key function returning a constant identity also climbs",
        ["KEY-12", "KEY-14", "MON-34"],
        _polls(returns({"job": "job-42"}), 3),
        tags=["polling"],
        option=True,
    ),
    scenario(
        "loop-key-false-exempt",
        "loopKey false: resolveLoopKey says exempt, the engine records nothing, no verdict and no state for the tool",
        ["KEY-06", "ENG-05"],
        _polls(False, 4),
        tags=["polling", "exempt"],
        option=True,
    ),
]
