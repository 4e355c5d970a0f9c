"""The monitor a replay drives: the reference, optionally writing a transcript.

:class:`Session` is one conversation's monitor across runs: ``resume``
builds the next run's monitor from the saved state as the engine does
(ENG-12, ENG-13). :class:`RecordingSession` also writes every operation as a
vector step (spec/vectors.md#step), so that the same replay can be sent to a
port's harness.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from doomloop_kit.reference import (
    CallRecord,
    DetectorKind,
    DoomLoopMonitor,
    ResolvedConfig,
    ToolCall,
    Verdict,
    wire,
)


class Session:
    """The reference monitor of one conversation."""

    def __init__(self, config: ResolvedConfig) -> None:
        self.config = config
        self.monitor = DoomLoopMonitor(config)

    def declare_round(self, round: int, calls: Sequence[tuple[str, object]]) -> None:
        """MON-07: the calls a round will record."""
        self.monitor.declare_round(round, [ToolCall(name, key) for name, key in calls])

    def record_tool_call(
        self, name: str, key: object, round: int, *, allow_block: bool, detector: DetectorKind
    ) -> CallRecord:
        """MON-14: raises CanonicalizationError for unhashable key material."""
        return self.monitor.record_tool_call(
            name, key, round, allow_block=allow_block, detector=detector
        )

    def record_assistant_text(self, text: str) -> Verdict | None:
        """MON-41."""
        return self.monitor.record_assistant_text(text)

    def text_streak(self) -> float:
        """The cross-step text streak now (0 when there is none)."""
        text = self.monitor.get_state().get("text")
        return float(text["streak"]) if isinstance(text, dict) else 0.0

    def resume(self) -> None:
        """A new run restores what the last one saved, through JSON text (ENG-12)."""
        blob = json.loads(json.dumps(wire.encode(self.monitor.get_state())))
        self.monitor = DoomLoopMonitor(self.config, wire.decode(blob))

    def restore(self, state: object) -> None:
        """A new run that starts from a given persisted blob (MON-06)."""
        self.monitor = DoomLoopMonitor(self.config, state)


class RecordingSession(Session):
    """A session that also writes its operations as vector steps (without expectations).

    ``labels[i]`` says where in the log step ``i`` came from. The steps are
    kept in memory: a vector carries its whole history.
    """

    def __init__(self, config: ResolvedConfig) -> None:
        super().__init__(config)
        self.steps: list[dict[str, Any]] = []
        self.labels: list[str] = []
        self.label = "start"

    def _step(self, step: dict[str, Any]) -> None:
        self.steps.append(step)
        self.labels.append(self.label)

    def declare_round(self, round: int, calls: Sequence[tuple[str, object]]) -> None:
        self._step(
            {
                "op": "declareRound",
                "round": round,
                "calls": [{"toolName": n, "keyMaterial": wire.encode(k)} for n, k in calls],
            }
        )
        super().declare_round(round, calls)

    def record_tool_call(
        self, name: str, key: object, round: int, *, allow_block: bool, detector: DetectorKind
    ) -> CallRecord:
        self._step(
            {
                "op": "recordToolCall",
                "toolName": name,
                "keyMaterial": wire.encode(key),
                "round": round,
                "options": {"allowBlock": allow_block, "detector": detector},
            }
        )
        return super().record_tool_call(
            name, key, round, allow_block=allow_block, detector=detector
        )

    def record_assistant_text(self, text: str) -> Verdict | None:
        self._step({"op": "recordAssistantText", "text": text})
        return super().record_assistant_text(text)

    def resume(self) -> None:
        self._step({"op": "resume"})
        super().resume()

    def restore(self, state: object) -> None:
        # An empty blob first, so that a blob that is not an object leaves a
        # fresh monitor, as constructing one would (STATE-13).
        self._step({"op": "restore", "state": {}})
        self._step({"op": "restore", "state": wire.encode(state)})
        super().restore(state)
