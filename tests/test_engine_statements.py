"""Engine rules of the brief that its §8 table leaves without a scenario (spec §15).

Each case runs one scenario of generators/engine_scenarios/statements.py or
pins.py (what the engine mutation job found unpinned); its facts restate the
brief rule it cites, not the engine's output.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import pytest
from doomloop_kit.generators.engine_scenarios.facts import failed_facts
from doomloop_kit.generators.engine_scenarios.pins import PINS
from doomloop_kit.generators.engine_scenarios.statements import STATEMENTS


@pytest.mark.parametrize(
    "entry",
    [*STATEMENTS, *PINS],
    ids=lambda entry: str(cast(Mapping[str, object], entry["scenario"])["id"]),
)
def test_statement_scenario(entry: Mapping[str, object]) -> None:
    failures = failed_facts(entry)
    assert not failures, "\n".join(failures)
