"""The runs of a drawn scenario that are inside the engine level's domain (ENG-151).

The reference refuses a scenario as soon as one of its runs leaves the
domain (``bad-scenario``), though its earlier runs are comparable. Fuzzing
therefore compares the scenario cut before that run: :func:`in_domain_prefix`.
A malformed scenario (ENG-23) is not cut: both sides must refuse it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from doomloop_kit.engine import OutsideDomain, Scenario, run_scenario


@dataclass(frozen=True)
class Prefix:
    """A scenario's runs inside the domain: ``scenario`` (None when its first run
    already leaves it) and how many runs were dropped."""

    scenario: Mapping[str, Any] | None
    dropped: int


def outside_domain(scenario: Mapping[str, Any]) -> bool:
    """Whether the reference refuses a run of a well-formed scenario as outside the
    domain (ENG-151); a malformed scenario, or one the reference fails on otherwise,
    is not outside (the comparison reports it)."""
    try:
        run_scenario(Scenario.from_json(scenario))
    except OutsideDomain:
        return True
    except Exception:  # malformed, or a failure of the reference: the comparison's business
        return False
    return False


def in_domain_prefix(scenario: Mapping[str, Any]) -> Prefix:
    """The scenario cut before its first run outside the domain (ENG-151)."""
    if not outside_domain(scenario):
        return Prefix(scenario, 0)
    runs = list(scenario["runs"])
    for kept in range(len(runs) - 1, 0, -1):
        prefix = {**scenario, "runs": runs[:kept]}
        if not outside_domain(prefix):
            return Prefix(prefix, len(runs) - kept)
    return Prefix(None, len(runs))
