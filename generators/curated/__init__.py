"""Curated scenarios: hand-written inputs, one module per family.

Each module defines ``FAMILY`` (the file name), ``DESCRIPTION`` (one line)
and ``SCENARIOS``: a list of dicts with ``name``, ``description`` (the fact
the scenario pins), ``spec`` (statement ids), ``tags`` and the transcript
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
    "text",
    "config",
    "loop_keys",
    "restore",
    "polling",
    "escalation",
    "wire",
    "wire_errors",
    "texts",
    "edges",
    "sharing",
    "memo",
    "gaps",
    "numbers",
)
"""Module names, in the order their files are listed in the manifest."""


def modules() -> list[ModuleType]:
    return [import_module(f"{__name__}.{name}") for name in MODULES]
