"""Curated vectors: hand-written inputs, one module per monitor family, and the
engine's in :mod:`.engine`.

Each monitor module defines ``FAMILY`` (the name of its vector file, which may
differ from the module's: ``text_repetition`` writes ``text.json``,
``sdk_texts`` ``texts.json``), ``DESCRIPTION`` (one line) and ``SCENARIOS``,
each made by :func:`doomloop_kit.generators.steps.scenario`: its ``name``,
the fact it pins, the statement ids it cites, its tags and the transcript
members ``option`` / ``initialState`` / ``steps``. Expected results are never
written here: :mod:`doomloop_kit.generators.build` computes them with the
reference when the files are regenerated.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

MODULES = (
    "facts",
    "upstream",
    "canonical",
    "text_repetition",
    "config",
    "loop_keys",
    "restore",
    "polling",
    "escalation",
    "wire",
    "wire_errors",
    "sdk_texts",
    "edges",
    "sharing",
    "memo",
    "gaps",
    "numbers",
)
"""Module names, in the order their files are listed in the manifest."""


def modules() -> list[ModuleType]:
    return [import_module(f"{__name__}.{name}") for name in MODULES]
