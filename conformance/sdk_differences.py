"""Differences between the SDK's run loop and the reference that are known (issue 30).

Each :class:`KnownDifference` names one behaviour where the SDK 0.9.0 and the
reference engine disagree and that is decided (or being decided) elsewhere,
with a *neutraliser*: a rewrite of a scenario that removes what triggers the
difference and nothing the comparison cares about otherwise (a loaded
``unsentToolResults: []`` goes, a ``when`` value ``true`` becomes the string
``"true"``, ...). :func:`classify` tells whether a difference found on a scenario
is explained by known differences: it is, when the neutralised scenario
shows no difference (and then by a smallest set of them whose neutralisers
together remove it, found by leaving each out in turn); otherwise it is a
new class, named by the first difference left on the neutralised scenario.
The campaign (:mod:`.campaign`) counts each class and keeps a minimal
scenario for it.

When the spec, the reference and the ports adopt a decision, its difference
disappears and its entry goes, so that the difference coming back is a new
class that fails the bounded campaign of ``make test``; an entry whose
difference never shows in a campaign is reported as unseen. Decided, and
gone: R1 (ENG-157), R2 (ENG-174), R3 (ENG-175), R4 (ENG-106) and the
message-content rule (ENG-177) of issue 30; the campaign's N1, a null option
(ENG-176), N5, a ``when`` filter by JSON equality (ENG-183), and N7, a stop
verdict object without a string message (ENG-106), adopted; N2, N3, N4, N6 and
N8 (ENG-151 (d)) and H1 (ENG-151 (e)) declared outside the domain, where the
campaign counts them as not compared.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

Scenario = dict[str, Any]
"""A scenario in the format of spec §15.1.4, as plain JSON."""


@dataclass(frozen=True)
class KnownDifference:
    """One known difference: its key, what the SDK does, and its neutraliser."""

    key: str
    title: str
    source: str
    """Where it is reported and decided (issue, statement)."""
    neutralise: Callable[[Scenario], None]
    """Rewrites a scenario (a private copy) in place so that it cannot trigger this."""


KNOWN: Final[tuple[KnownDifference, ...]] = ()
"""The differences known and not yet decided: none. Every class the campaigns of issue
30 found is decided -- adopted (R1-R4, N1, N5, N7) or declared outside the domain
(N2, N3, N4, N6, N8: a loaded state the SDK never writes, ENG-151 (d); H1: pending calls
its state cannot tell apart, ENG-151 (e)) -- so any difference is a new class."""


def neutralised(scenario: Mapping[str, Any], known: KnownDifference) -> Scenario | None:
    """``scenario`` without the trigger of ``known``; None when it has none."""
    copied = copy.deepcopy(dict(scenario))
    known.neutralise(copied)
    return None if copied == scenario else copied


# -- classification ------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """A difference between the two sides on one scenario: its first difference."""

    where: str
    """``run R, dispatch D, /pointer`` (or a harness error, or a failure of the reference)."""
    reason: str
    reference: Any = None
    sdk: Any = None

    @property
    def signature(self) -> str:
        """The class of a new difference: where and why, without run, dispatch and array
        indices, numbers or quoted values."""
        where = re.sub(r"run \d+, ", "", self.where)
        where = re.sub(r"dispatch \d+", "dispatch", where)
        where = re.sub(r"/\d+(?=/|$)", "/*", where)
        reason = re.split(r"[;(]", self.reason, maxsplit=1)[0].strip()
        reason = re.sub(r'"[^"]*"', "…", re.sub(r"\d+", "N", reason))
        return f"{where}: {reason}"


@dataclass(frozen=True)
class Classification:
    """A difference's class: the known differences that explain it, or a new one."""

    key: str
    """``R1``, ``R1+R3`` (known), or ``new: <signature>``."""
    known: tuple[str, ...]
    scenario: Scenario
    """The scenario that shows it (for a new class, the neutralised one)."""
    observation: Observation


Observe = Callable[[Scenario], Observation | None]
"""Runs a scenario on both sides: its first difference, or None when they agree."""


def classify(
    scenario: Scenario,
    found: Observation,
    observe: Observe,
    table: Sequence[KnownDifference] = KNOWN,
) -> Classification:
    """The class of the difference ``found`` on ``scenario`` (module docstring), among the
    known differences of ``table``."""
    plain = copy.deepcopy(scenario)
    applicable: list[KnownDifference] = []
    for known in table:  # in order: a neutraliser may leave work for a later one
        before = copy.deepcopy(plain)
        known.neutralise(plain)
        if plain != before:
            applicable.append(known)
    if not applicable:
        return Classification(f"new: {found.signature}", (), scenario, found)
    left = observe(plain)
    if left is not None:
        return Classification(f"new: {left.signature}", (), plain, left)
    needed = list(applicable)
    for known in applicable:  # keep only the neutralisers the agreement needs
        if len(needed) > 1 and observe(_neutralised_by(scenario, needed, known)) is None:
            needed.remove(known)
    names = tuple(k.key for k in needed)
    return Classification("+".join(names), names, scenario, found)


def _neutralised_by(
    scenario: Scenario, chosen: list[KnownDifference], left_out: KnownDifference
) -> Scenario:
    """``scenario`` rewritten by the neutralisers of ``chosen`` but ``left_out``, in order."""
    copied = copy.deepcopy(scenario)
    for known in chosen:
        if known is not left_out:
            known.neutralise(copied)
    return copied
