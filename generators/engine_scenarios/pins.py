"""Engine scenarios that pin what the mutation job found unpinned (spec §15).

The engine's mutation job (``tests/mutation/run.py --package engine``) judges
each mutant of ``engine/`` by the engine vectors alone; a mutant no vector
kills is a behaviour no vector pins. Each entry here pins one such behaviour
with one fact, its expected value taken from the brief's rule (cited as
``rule``), in the format of :mod:`.brief`.
"""

from __future__ import annotations

from .build import JsonObject

PINS: list[JsonObject] = []
