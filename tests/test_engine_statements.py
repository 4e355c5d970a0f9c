"""Engine rules of the brief that its §8 table leaves without a scenario (spec §15).

Each case runs one scenario of generators/engine_scenarios/statements.py;
its facts restate the brief rule it cites, not the engine's output.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import pytest

from doomloop_kit.engine import run_scenario
from doomloop_kit.generators.engine_scenarios.facts import FactFailure, check_fact
from doomloop_kit.generators.engine_scenarios.statements import STATEMENTS


@pytest.mark.parametrize(
    "entry", STATEMENTS, ids=lambda entry: str(cast(Mapping[str, object], entry["scenario"])["id"])
)
def test_statement_scenario(entry: Mapping[str, object]) -> None:
    transcript = run_scenario(cast(Mapping[str, object], entry["scenario"])).to_json()
    failures = []
    for fact in cast(list[Mapping[str, object]], entry["facts"]):
        try:
            check_fact(transcript, fact)
        except FactFailure as failure:
            failures.append(str(failure))
    assert not failures, "\n".join(failures)
