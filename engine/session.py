"""Running a whole scenario: its runs in order over carried state (ENG-156, ENG-16).

This is the engine's entry point for tests, vector generation and the log
replayer: :func:`run_scenario` takes a :class:`~.scenario.Scenario` or its
JSON form and returns the :class:`~.transcript.Transcript`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from .errors import OutsideDomain
from .run import Run
from .scenario import Scenario
from .transcript import RunTranscript, Transcript


def _stored(state: object) -> Mapping[str, object] | None:
    """What the accessor hands back: the saved JSON, decoded afresh (ENG-121)."""
    if not isinstance(state, Mapping):
        return None
    decoded: Mapping[str, object] = json.loads(json.dumps(state))
    return decoded


def run_scenario(scenario: Scenario | Mapping[str, object]) -> Transcript:
    """Run every run of the scenario; raises :class:`~.errors.ScenarioError` for bad data."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_json(scenario)
    stored: object = scenario.initial_state if scenario.state_accessor else None
    runs: list[RunTranscript] = []
    for index, spec in enumerate(scenario.runs):
        try:
            transcript = Run(scenario, spec, index, _stored(stored)).execute()
        except OutsideDomain as error:  # the runs before it stay observable (ENG-151)
            error.run, error.before = index, Transcript(scenario.id, tuple(runs))
            raise
        if scenario.state_accessor and transcript.state is not None:
            stored = transcript.state
        runs.append(transcript)
    return Transcript(scenario.id, tuple(runs))
