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


def _first_run_outside(scenario: Mapping[str, Any]) -> int | None:
    """The index of the first run the reference refuses as outside the domain (ENG-151),
    which its error names; None when there is none, or when the scenario is malformed or
    the reference fails on it otherwise (the comparison's business, not cut)."""
    try:
        run_scenario(Scenario.from_json(scenario))
    except OutsideDomain as outside:
        return outside.run
    except Exception:  # malformed, or a failure of the reference: the comparison's business
        return None
    return None


def in_domain_prefix(scenario: Mapping[str, Any]) -> Prefix:
    """The scenario cut before its first run outside the domain (ENG-151)."""
    first = _first_run_outside(scenario)
    if first is None:
        return Prefix(scenario, 0)
    runs = list(scenario["runs"])
    kept = {**scenario, "runs": runs[:first]} if first else None
    return Prefix(kept, len(runs) - first)
