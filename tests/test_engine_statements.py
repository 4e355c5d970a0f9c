"""Engine rules of the brief that its §8 table leaves without a scenario (spec §15).

Each case runs one scenario of generators/curated/engine/statements.py or
pins.py (what the engine mutation job found unpinned); its facts restate the
brief rule it cites, not the engine's output.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import pytest
from doomloop_kit.generators.curated.engine.facts import failed_facts
from doomloop_kit.generators.curated.engine.pins import PINS
from doomloop_kit.generators.curated.engine.statements import STATEMENTS


@pytest.mark.parametrize(
    "entry",
    [*STATEMENTS, *PINS],
    ids=lambda entry: str(cast(Mapping[str, object], entry["scenario"])["id"]),
)
def test_statement_scenario(entry: Mapping[str, object]) -> None:
    failures = failed_facts(entry)
    assert not failures, "\n".join(failures)
