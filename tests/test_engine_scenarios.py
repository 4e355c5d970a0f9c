"""The 58 engine scenarios of the brief's §8 over the reference engine (spec §15).

Each case runs one scenario of generators/curated/engine/brief.py and
checks every fact the brief's table says it pins; the facts and their
expected values are written in that module from the brief, not taken from
the engine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import pytest
from doomloop_kit.generators.curated.engine.brief import SCENARIOS
from doomloop_kit.generators.curated.engine.facts import failed_facts

SPEC = Path(__file__).resolve().parent.parent / "spec"
BRIEF_IDS = (
    [f"I-{n:02d}" for n in range(1, 22)]
    + [f"E-{n:02d}" for n in range(1, 17)]
    + [f"R-{n:02d}" for n in range(1, 22)]
)


def _entries() -> list[Mapping[str, object]]:
    return [cast(Mapping[str, object], entry) for entry in SCENARIOS]


def _name(entry: Mapping[str, object]) -> str:
    return str(cast(Mapping[str, object], entry["scenario"])["id"])


@pytest.mark.parametrize("entry", _entries(), ids=_name)
def test_scenario_pins_its_facts(entry: Mapping[str, object]) -> None:
    failures = failed_facts(entry)
    assert not failures, "\n".join(failures)


def test_every_brief_scenario_is_present_once() -> None:
    briefs = [str(entry["brief"]) for entry in _entries()]
    assert sorted(set(briefs)) == sorted(BRIEF_IDS)
    assert len(BRIEF_IDS) == 58


def test_every_cited_statement_exists() -> None:
    anchors = set()
    for path in SPEC.glob("*.md"):
        anchors.update(re.findall(r'<a id="([A-Z]+-\d+)"></a>', path.read_text()))
    for entry in _entries():
        cited = cast(list[str], entry["spec"])
        assert cited, entry["brief"]
        assert set(cited) <= anchors, (entry["brief"], set(cited) - anchors)


def test_scenarios_are_plain_json_data() -> None:
    """What a vector file will store: no code, no tuples, nothing JSON cannot carry."""
    from doomloop_kit.generators.curated.engine.pins import PINS
    from doomloop_kit.generators.curated.engine.statements import STATEMENTS

    for entry in [*SCENARIOS, *STATEMENTS, *PINS]:
        assert json.loads(json.dumps(entry)) == entry
