"""A differential campaign of engine scenarios against the SDK (issue 30, item 3).

Where ``conformance fuzz`` stops at the first difference, a campaign runs a
fixed number of drawn scenarios on a harness (the SDK's run loop behind
``../shared/sdk/sdk-engine-harness.mjs``), judges each against the reference
exactly as ``conformance fuzz --port`` does (:class:`~.differential.Fuzzer`:
the transcript comparison of engine vectors, ENG-139), and goes on past every
difference: each is classified (:mod:`.sdk_differences`: a known difference
of the SDK, or a new class), counted, and the first scenario of each class is
shrunk to a minimal one.

Determinism: a campaign is a list of *chunks* (family, seed, scenarios); each
chunk draws with Hypothesis from its seed alone, generation only, so the same
chunks on the same harness and kit give the same report. A class first seen
in a chunk is shrunk by drawing the chunk again with shrinking on, failing
only on that class: the draw is the same up to its first scenario of the
class, and Hypothesis shrinks from there, keeping the class.

Not compared, and counted apart: scenarios whose first run leaves the domain
(ENG-151; a later run leaving it cuts the scenario before that run, which is
compared), and scenarios with no SDK counterpart
(:func:`~doomloop_kit.generators.engine_edges.without_sdk_counterpart`).
"""

from __future__ import annotations

import argparse
import contextlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from doomloop_kit.generators import build, fuzz_families
from doomloop_kit.generators.engine_edges import without_sdk_counterpart
from doomloop_kit.generators.reproducible import seed_only
from doomloop_kit.vectorset.files import ABSENT, feature_vocabulary
from hypothesis import given
from hypothesis import seed as hypothesis_seed

from . import reduction
from .differential import PORT, Fuzzer, ReferenceFailed, Side, drawing
from .sdk_differences import KNOWN, Classification, Observation, Scenario, classify
from .supervisor import HarnessOptions, Supervisor

SDK_HARNESS: Final = "node ../shared/sdk/sdk-engine-harness.mjs"
"""The SDK's run loop behind its protocol harness, from the kit's root (../shared/sdk)."""


@dataclass(frozen=True)
class Chunk:
    """``scenarios`` scenarios of one family drawn from one seed."""

    family: str
    seed: int
    scenarios: int


def chunks(families: Iterable[str], seeds: Iterable[int], total: int) -> list[Chunk]:
    """``total`` scenarios spread evenly over families and seeds (the first chunks take
    the remainder), seed by seed."""
    names, numbers = list(families), list(seeds)
    count = len(names) * len(numbers)
    share, extra = divmod(total, count)
    planned = [
        Chunk(family, seed, share + (index < extra))
        for index, (seed, family) in enumerate((s, f) for s in numbers for f in names)
    ]
    return [chunk for chunk in planned if chunk.scenarios > 0]


@dataclass
class FamilyTally:
    """What a campaign ran of one family."""

    scenarios: int = 0
    shapes: Counter[str] = field(default_factory=Counter)
    compared: int = 0
    differing: int = 0
    outside_domain: int = 0
    """Scenarios whose first run leaves the domain (ENG-151): not compared."""
    cut: int = 0
    """Scenarios compared up to a later run that leaves the domain."""
    no_counterpart: int = 0


@dataclass
class DifferenceClass:
    """One class of differences: how often, where, and its minimal scenario."""

    classification: Classification
    count: int = 0
    families: Counter[str] = field(default_factory=Counter)
    shrunk: bool = False


@dataclass(frozen=True)
class Observed:
    """One scenario run on both sides: its first difference (None: they agree) and the
    scenario compared (cut before a run outside the domain; None when its first run is
    outside, so nothing was compared)."""

    difference: Observation | None
    compared: Scenario | None


class _Found(AssertionError):
    """The class being shrunk showed (Hypothesis shrinks while it keeps showing)."""


class Campaign:
    """Runs chunks on one harness and gathers their tallies and difference classes."""

    def __init__(self, side: Side, *, shrink: bool = True) -> None:
        self.side = side
        self.shrink = shrink
        """Whether a class's first scenario is shrunk (else the first one is kept)."""
        self.max_checks = 300
        """Checks of the JSON reduction after Hypothesis's shrinking, per class."""
        self.fuzzer = Fuzzer(argparse.Namespace(), side, None)
        self.families: dict[str, FamilyTally] = {}
        self.classes: dict[str, DifferenceClass] = {}

    # -- one scenario ---------------------------------------------------------------------

    def observe(self, family: str, scenario: Scenario) -> Observed:
        """Run one scenario on the harness, judged against the reference."""
        transcript = dict(build.engine_transcript(scenario))
        try:
            prepared = self.fuzzer.prepare(family, "campaign", transcript)
            if prepared is None:
                return Observed(None, None)
            transcript, vector = prepared
            finding = self.fuzzer.check_prepared(family, "campaign", transcript, vector)
        except ReferenceFailed as failed:
            answer = self.fuzzer.answer(self.side, family, transcript)
            found = Observation("the reference", f"fails: {failed}", ABSENT, answer)
            return Observed(found, scenario)
        compared: Scenario = fuzz_families.scenario_of(transcript)
        if finding is None:
            return Observed(None, compared)
        outcome = finding.outcome
        if outcome.wrong_answer is not None:
            wrong = outcome.wrong_answer
            found = Observation(wrong.path, wrong.reason, wrong.expected, wrong.actual)
            return Observed(found, compared)
        error = outcome.error
        text = "no answer" if error is None else f"{error.cause}: {error.message}"
        return Observed(Observation("the harness", text), compared)

    def classified(self, family: str, scenario: Scenario) -> Classification | None:
        """The class of the scenario's difference, or None when the sides agree."""
        observed = self.observe(family, scenario)
        if observed.difference is None or observed.compared is None:
            return None
        return classify(
            observed.compared, observed.difference, lambda s: self.observe(family, s).difference
        )

    def _tally(self, family: str, shape: str, scenario: Scenario) -> None:
        tally = self.families.setdefault(family, FamilyTally())
        tally.scenarios += 1
        tally.shapes[shape] += 1
        if without_sdk_counterpart(scenario):
            tally.no_counterpart += 1
            return
        observed = self.observe(family, scenario)
        if observed.compared is None:
            tally.outside_domain += 1
            return
        tally.compared += 1
        tally.cut += observed.compared is not scenario
        if observed.difference is None:
            return
        tally.differing += 1
        classification = classify(
            observed.compared, observed.difference, lambda s: self.observe(family, s).difference
        )
        entry = self.classes.get(classification.key)
        if entry is None:
            entry = self.classes[classification.key] = DifferenceClass(classification)
        entry.count += 1
        entry.families[family] += 1

    # -- a chunk ----------------------------------------------------------------------------

    def run(self, chunk: Chunk) -> None:
        """Draw and judge a chunk's scenarios, then shrink the classes it found first (a
        class that several known differences explain together keeps its first scenario)."""
        before = set(self.classes)

        def each(pair: tuple[str, Any]) -> None:
            shape, transcript = pair
            self._tally(chunk.family, shape, fuzz_families.scenario_of(transcript))

        _draw(chunk, each)
        for key, entry in self.classes.items():
            if key not in before and self.shrink and len(entry.classification.known) <= 1:
                self._shrink(chunk, key)

    def _shrink(self, chunk: Chunk, key: str) -> None:
        """Replace the class's scenario by a minimal one of the same class: Hypothesis
        shrinks the chunk's first scenario of the class, then :func:`.reduction.reduce`
        deletes what else it can."""
        smallest: list[Classification] = []

        def each(pair: tuple[str, Any]) -> None:
            scenario = fuzz_families.scenario_of(pair[1])
            if without_sdk_counterpart(scenario):
                return
            found = self.classified(chunk.family, scenario)
            if found is not None and found.key == key:
                smallest.append(found)  # the last one is the smallest
                raise _Found(key)

        # _Found, or Hypothesis's own error for a flaky class: keep what showed
        with contextlib.suppress(Exception):
            _draw(chunk, each)
        entry = self.classes[key]
        start = smallest[-1] if smallest else entry.classification

        def same(scenario: Any) -> bool:
            found = self.classified(chunk.family, scenario)
            return found is not None and found.key == key

        reduced = reduction.reduce(start.scenario, same, max_checks=self.max_checks)
        entry.classification = self.classified(chunk.family, reduced) or start
        entry.shrunk = True

    # -- the report -------------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """The campaign's figures as plain JSON (no clock: the caller adds the time)."""
        hello = self.side.supervisor.hello
        families = {
            name: {
                "scenarios": tally.scenarios,
                "compared": tally.compared,
                "differing": tally.differing,
                "outsideDomain": tally.outside_domain,
                "cutBeforeOutsideDomain": tally.cut,
                "noSdkCounterpart": tally.no_counterpart,
                "shapes": dict(sorted(tally.shapes.items())),
            }
            for name, tally in self.families.items()
        }
        classes = sorted(self.classes.values(), key=lambda c: (-c.count, c.classification.key))
        seen = {name for entry in classes for name in entry.classification.known}
        return {
            "harness": None if hello is None else hello["implementation"],
            "scenarios": sum(t.scenarios for t in self.families.values()),
            "compared": sum(t.compared for t in self.families.values()),
            "differing": sum(t.differing for t in self.families.values()),
            "families": families,
            "classes": [_class_json(entry) for entry in classes],
            "knownUnseen": [k.key for k in KNOWN if k.key not in seen],
        }


def _class_json(entry: DifferenceClass) -> dict[str, Any]:
    """A class as JSON; ``reference`` and ``sdk`` (the values at the first difference)
    are left out where that side has nothing."""
    found = entry.classification
    known = {k.key: k for k in KNOWN}
    data: dict[str, Any] = {
        "key": found.key,
        "known": list(found.known),
        "titles": [known[name].title for name in found.known],
        "count": entry.count,
        "families": dict(sorted(entry.families.items())),
        "shrunk": entry.shrunk,
        "where": found.observation.where,
        "reason": found.observation.reason,
    }
    for name, value in (("reference", found.observation.reference), ("sdk", found.observation.sdk)):
        if value is not ABSENT:
            data[name] = value
    data["scenario"] = found.scenario
    return data


def _draw(chunk: Chunk, each: Callable[[tuple[str, Any]], None]) -> None:
    """Draw the chunk's scenarios from its seed and pass each to ``each``; Hypothesis
    shrinks the first failure of ``each`` (raised again here). A pass without failure
    draws the same scenarios whether it may shrink or not."""

    @drawing(chunk.scenarios)
    @hypothesis_seed(chunk.seed)
    @given(fuzz_families.draws(chunk.family))
    def drawn(pair: tuple[str, Any]) -> None:
        each(pair)

    with seed_only():
        drawn()


def start(command: str, warn: Callable[[str], None] = lambda text: None) -> Side:
    """The harness of a campaign, started (raises what the supervisor raises)."""
    options = HarnessOptions(command, max_restarts=20)
    supervisor = Supervisor(options, feature_vocabulary(), warn)
    side = Side(PORT, supervisor)
    supervisor.start()
    return side


def run_campaign(command: str, plan: Iterable[Chunk], *, shrink: bool = True) -> dict[str, Any]:
    """Run every chunk of ``plan`` on the harness ``command``; the report (JSON)."""
    side = start(command)
    try:
        campaign = Campaign(side, shrink=shrink)
        for chunk in plan:
            campaign.run(chunk)
        return campaign.report()
    finally:
        side.supervisor.stop()


def summary(report: Mapping[str, Any]) -> str:
    """One line: scenarios, compared, differing, classes."""
    classes = report["classes"]
    new = sum(1 for entry in classes if not entry["known"])
    return (
        f"{report['scenarios']} scenarios, {report['compared']} compared, "
        f"{report['differing']} differing: {len(classes)} classes ({new} new)"
    )
