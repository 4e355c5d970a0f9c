"""Engine scenarios that pin what the mutation job found unpinned (spec §15).

The engine's mutation job (``tests/mutation/run.py --package engine``) judges
each mutant of ``engine/`` by the engine vectors alone; a mutant no vector
kills is a behaviour no vector pins. Each entry here pins one such behaviour
with one fact, its expected value worked out by hand from the statement it
cites (the brief's section is ``rule``), in the format of :mod:`.brief`.
"""

from __future__ import annotations

from .brief import DONE, SAME, STUCK_20, WEB_SEARCH
from .build import JsonObject, call, fresh, repeated_calls, scenario, text, turn

PINS: list[JsonObject] = [
    {
        **scenario(
            "P-01",
            "A tool result is sent as JS JSON.stringify writes it: arrays, literals, "
            "an integer past 2^53 as its double, 1e-7 in exponent form",
            ["ENG-105"],
            [
                {
                    "kind": "request",
                    "dispatch": 1,
                    "at": "/input/-1/output",
                    "equals": '{"list":[1,2.5,true,false,null,"x"],"big":9007199254740992,'
                    '"edge":9007199254740992,"tiny":1e-7}',
                }
            ],
            tools=[
                {
                    "name": "lookup",
                    "result": {
                        "list": [1, 2.5, True, False, None, "x"],
                        "big": 9007199254740993,
                        "edge": 9007199254740992,
                        "tiny": 1e-7,
                    },
                }
            ],
            doomLoop=True,
            runs=[fresh([turn(call("lookup", {}, "c1")), DONE])],
        ),
        "rule": "3.4",
    },
    {
        **scenario(
            "P-02",
            "A handler's block on a text verdict is applied as observe",
            ["ENG-94"],
            [{"kind": "applied", "equals": ["observe"]}],
            hooks=[{"returns": {"overrideAction": "block"}}],
            doomLoop=True,
            runs=[fresh([turn(text(STUCK_20))])],
        ),
        "rule": "5.3.3",
    },
    {
        **scenario(
            "P-03",
            "A handler registered for another tool is not run; one registered for the "
            "looping tool is",
            ["ENG-91"],
            [{"kind": "applied", "equals": ["observe", "observe", "observe"]}],
            tools=[WEB_SEARCH],
            hooks=[
                {"tool": "other", "returns": {"overrideAction": "stop"}},
                {"tool": "web_search", "returns": {"overrideAction": "observe"}},
            ],
            doomLoop=True,
            runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        ),
        "rule": "5.1",
    },
    {
        **scenario(
            "P-04",
            "A handler whose payload condition does not hold is not run",
            ["ENG-91", "ENG-93"],
            [{"kind": "applied", "equals": ["observe", "steer", "steer"]}],
            tools=[WEB_SEARCH],
            hooks=[{"when": {"action": "block"}, "returns": {"overrideAction": "steer"}}],
            doomLoop=True,
            runs=[fresh([*repeated_calls("web_search", SAME, 4), DONE])],
        ),
        "rule": "5.1, 5.3.1",
    },
]
