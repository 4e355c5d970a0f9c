"""The worked example of spec §15.8: one scenario of two runs, shown and explained there.

A fan-out of two reads repeated until the ladder blocks it, a call of an
approval tool that pauses the run, and a decision resume that approves it.
``tests/test_engine_example.py`` checks that the JSON the spec page shows is
this vector's scenario, transcript and order.
"""

from __future__ import annotations

from .builders import JsonObject, call, decide, fresh, scenario, text, turn


def _reads(first: int) -> JsonObject:
    """The same fan-out: read a.py and read b.py, with fresh call ids."""
    return turn(
        call("read", {"path": "a.py"}, f"c{first}"), call("read", {"path": "b.py"}, f"c{first + 1}")
    )


WORKED_EXAMPLE: JsonObject = scenario(
    "worked-example",
    "A repeated fan-out of two reads is observed in round 2 and blocked in round 3; a call "
    "of an approval tool then pauses the run, and a decision resume approves it",
    ["ENG-31", "ENG-35", "ENG-53", "ENG-61", "ENG-79", "ENG-138", "ENG-139", "ENG-163", "ENG-164"],
    [
        {"kind": "applied", "equals": ["observe", "observe", "block", "block"]},
        {"kind": "end", "at": "/status", "equals": "awaiting_approval"},
        {"kind": "dispatches", "run": 1, "kinds": ["resume"]},
        {"kind": "end", "run": 1, "at": "/finalText", "equals": "Deployed."},
    ],
    tools=[{"name": "read"}, {"name": "deploy", "kind": "approval"}],
    doomLoop=True,
    runs=[
        fresh(
            [_reads(1), _reads(3), _reads(5), turn(call("deploy", {}, "d1"))],
            user="Fix the build.",
        ),
        decide([turn(text("Deployed."))], approve=["d1"]),
    ],
)
