"""The observable run, as immutable records with a JSON form (ENG-156).

A :class:`Transcript` holds one :class:`RunTranscript` per run of a
scenario: every dispatch's request, the hook events, the tool bodies that
ran, the warnings (informative, ENG-108), the run's end and the persisted
state. ``to_json()`` gives the shape engine vectors compare.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from doomloop_kit.reference import UNDEFINED


def _frozen_json(value: object) -> object:
    """A private deep copy: records never share mutable JSON with the engine.

    The copy is plain JSON as JS ``JSON.stringify`` writes it (ENG-105): a
    non-finite number (arguments like ``1e400`` parse to Infinity) becomes
    ``null``, so a transcript can always be written and compared.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {key: _frozen_json(member) for key, member in value.items()}
    if isinstance(value, list | tuple):
        return [_frozen_json(member) for member in value]
    return value


@dataclass(frozen=True)
class Dispatch:
    """One request to the model and the id of the response it got (ENG-19).

    ``kind`` is ``initial``, ``follow-up``, ``resume`` or ``final``;
    ``response_id`` is None when the scripted model was exhausted (ENG-20).
    """

    index: int
    kind: str
    request: dict[str, object]
    response_id: str | None

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "kind": self.kind,
            "request": _frozen_json(self.request),
            "responseId": self.response_id,
        }


@dataclass(frozen=True)
class HookEvent:
    """One hook emission; ``applied_action`` is set for ``DoomLoopDetected`` (ENG-98).

    ``slot`` places an event of a concurrent batch (ENG-138): the batch's
    number in the run (from 1) and the emitting call's position in the batch
    (from 0); None for every other event. It is not part of the JSON form:
    it gives the partial order the events are compared by (:meth:`RunTranscript.event_order`).
    """

    hook: str
    payload: dict[str, object]
    applied_action: str | None = None
    slot: tuple[int, int] | None = None

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {"hook": self.hook, "payload": _frozen_json(self.payload)}
        if self.applied_action is not None:
            result["appliedAction"] = self.applied_action
        return result


@dataclass(frozen=True)
class Execution:
    """A tool body that ran, with the arguments the model issued (ENG-140).

    ``batch`` is the number of the concurrent batch it ran in (ENG-138), None
    in a sequential batch; like an event's slot it is not part of the JSON form.
    """

    call_id: str
    name: str
    arguments: object
    round: int
    batch: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "callId": self.call_id,
            "name": self.name,
            "arguments": _frozen_json(self.arguments),
            "round": self.round,
        }


@dataclass(frozen=True)
class RunEnd:
    """How a run ended (ENG-86, ENG-87, ENG-20).

    ``status`` is the persisted status (None without a state accessor, UNDEFINED
    when the state the store holds has no ``status``: left out of the JSON, ENG-191);
    ``reason`` the ``SessionEnd`` reason the run reached (also when no hook
    could observe it; None when it failed before ``SessionStart``);
    ``stop_verdict`` what ``getDoomLoopVerdict()`` gives (ENG-101).
    """

    status: object
    reason: str | None
    final_response_id: str | None
    final_text: str | None
    stop_verdict: object
    error: dict[str, object] | None = None

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {}
        if self.status is not UNDEFINED:
            result["status"] = _frozen_json(self.status)
        result |= {
            "reason": self.reason,
            "finalResponseId": self.final_response_id,
            "finalText": self.final_text,
            "stopVerdict": _frozen_json(self.stop_verdict),
        }
        if self.error is not None:
            result["error"] = dict(self.error)
        return result


@dataclass(frozen=True)
class RunTranscript:
    """Everything one run made observable (ENG-156)."""

    index: int
    decision_resume: bool
    config: object
    config_warnings: tuple[str, ...]
    dispatches: tuple[Dispatch, ...]
    events: tuple[HookEvent, ...]
    executions: tuple[Execution, ...]
    warnings: tuple[str, ...]
    loop_key_invocations: dict[str, int]
    end: RunEnd
    state: object

    def detections(self) -> tuple[HookEvent, ...]:
        """The ``DoomLoopDetected`` events, in order."""
        return tuple(event for event in self.events if event.hook == "DoomLoopDetected")

    def event_order(self) -> dict[str, list[object]]:
        """The partial order of the run (ENG-139): ``events``, one slot per event
        (``[batch, call]`` inside a concurrent batch, else None), and ``executions``,
        one batch number per execution (None in a sequential batch)."""
        return {
            "events": [None if event.slot is None else list(event.slot) for event in self.events],
            "executions": [execution.batch for execution in self.executions],
        }

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "decisionResume": self.decision_resume,
            "config": _frozen_json(self.config),
            "configWarnings": list(self.config_warnings),
            "dispatches": [dispatch.to_json() for dispatch in self.dispatches],
            "events": [event.to_json() for event in self.events],
            "executions": [execution.to_json() for execution in self.executions],
            "warnings": list(self.warnings),
            "loopKeyInvocations": dict(sorted(self.loop_key_invocations.items())),
            "end": self.end.to_json(),
            "state": _frozen_json(self.state),
        }


@dataclass(frozen=True)
class Transcript:
    """The observable runs of one scenario, in order."""

    scenario_id: str
    runs: tuple[RunTranscript, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, object]:
        return {"scenario": self.scenario_id, "runs": [run.to_json() for run in self.runs]}

    def event_order(self) -> list[dict[str, list[object]]]:
        """The partial order of every run's events (ENG-139): an engine vector's ``order``."""
        return [run.event_order() for run in self.runs]
