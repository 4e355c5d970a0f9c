"""The reference engine's detection, fed a recorded log instead of a live model.

A replay does not copy the engine: it builds, for each run, the engine's own
objects -- :class:`~doomloop_kit.engine.detection.Detection` (rounds,
declarations, the per-call checkpoint, the response checkpoint),
:class:`~doomloop_kit.engine.actions.Actions` (hooks, applied actions, the
steer queue, the escalation latch, the armed stop) and
:class:`~doomloop_kit.engine.identity.IdentityResolver` -- and parses
arguments with :func:`~doomloop_kit.engine.identity.parse_arguments`. Its
monitor is the reference monitor with a window on what the engine asked of
it (:class:`ObservedMonitor`), so the report can show streaks and
fingerprints, and, for ``--port``, every operation as a vector step.

Every tool the log calls is a configured, executable client tool
(:class:`_Replayed`), with no hooks; ``--loop-key`` and ``--exempt`` give
tools their ``loopKey``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from doomloop_kit.engine.actions import Actions
from doomloop_kit.engine.detection import Decision, Detection
from doomloop_kit.engine.hooks import Hooks
from doomloop_kit.engine.identity import Call as EngineCall
from doomloop_kit.engine.identity import IdentityResolver, parse_arguments
from doomloop_kit.engine.scenario import Scenario, ToolSpec
from doomloop_kit.jsvalue import wire
from doomloop_kit.reference import (
    MAX_CANONICALIZE_DEPTH,
    CallRecord,
    DetectorKind,
    DoomLoopMonitor,
    ResolvedConfig,
    ToolCall,
    Verdict,
)

from .events import Call, Response
from .options import LoopKey

_EXECUTABLE: Final = ToolSpec("")


@dataclass(frozen=True)
class _Replayed(Scenario):
    """The replay's scenario: its declared loop keys, and every other tool executable."""

    def tool(self, name: str) -> ToolSpec:
        found = super().tool(name)
        return _EXECUTABLE if found is None else found


@dataclass(frozen=True)
class Attempt:
    """One ``recordToolCall`` the engine made: the record, or None when unhashable."""

    tool: str
    record: CallRecord | None


class ObservedMonitor(DoomLoopMonitor):
    """The reference monitor, keeping what the engine recorded since the last look.

    With ``steps``, every operation is also written as a vector step
    (spec/vectors.md#step), without expectations.
    """

    def __init__(self, config: ResolvedConfig, steps: list[dict[str, Any]] | None) -> None:
        super().__init__(config)
        self.steps = steps
        self.attempts: list[Attempt] = []
        self.text_verdict: Verdict | None = None
        self.text_checked = False
        self.text_failure: Exception | None = None
        """Why the last text check failed (the engine skips it: ENG-111), until taken."""

    def declare_round(self, round: float, calls: Iterable[ToolCall]) -> list[str]:
        calls = list(calls)
        if self.steps is not None:
            self.steps.append(
                {
                    "op": "declareRound",
                    "round": round,
                    "calls": [
                        {"toolName": c.tool_name, "keyMaterial": wire.encode(c.key_material)}
                        for c in calls
                    ],
                }
            )
        return super().declare_round(round, calls)

    def record_tool_call(
        self,
        tool_name: str,
        key_material: object,
        round: float,
        *,
        allow_block: bool = True,
        detector: DetectorKind = "tool-fingerprint",
    ) -> CallRecord:
        if self.steps is not None:
            self.steps.append(
                {
                    "op": "recordToolCall",
                    "toolName": tool_name,
                    "keyMaterial": wire.encode(key_material),
                    "round": round,
                    "options": {"allowBlock": allow_block, "detector": detector},
                }
            )
        try:
            record = super().record_tool_call(
                tool_name, key_material, round, allow_block=allow_block, detector=detector
            )
        except Exception:
            self.attempts.append(Attempt(tool_name, None))
            raise
        self.attempts.append(Attempt(tool_name, record))
        return record

    def record_assistant_text(self, text: str) -> Verdict | None:
        if self.steps is not None:
            self.steps.append({"op": "recordAssistantText", "text": text})
        before = self._text
        try:
            self.text_verdict = super().record_assistant_text(text)
        except Exception as error:  # the engine skips the check; the replay must say so
            self.text_failure = error
            raise
        self.text_checked = self._text is not before  # blank text changes nothing (MON-41)
        return self.text_verdict

    def take_text_failure(self) -> Exception | None:
        failure, self.text_failure = self.text_failure, None
        return failure

    def consume_escalation(self) -> None:
        if self.steps is not None:
            self.steps.append({"op": "consumeEscalation"})
        super().consume_escalation()

    def text_streak(self) -> float:
        """The cross-step text streak now (0 when there is none)."""
        text = self._text
        return 0.0 if text is None else float(text.streak)

    def take_attempts(self) -> list[Attempt]:
        attempts, self.attempts = self.attempts, []
        return attempts


def _too_deep() -> object:
    """A value the canonical form refuses as too deep (CAN-20), as JS would parse such text."""
    value: list[object] = []
    for _ in range(MAX_CANONICALIZE_DEPTH + 1):
        value = [value]
    return value


def engine_call(call: Call, call_id: str) -> tuple[EngineCall, str | None]:
    """The engine's view of a call: arguments parsed by the engine (ENG-37, ENG-38).

    Returns the call and a note when its argument text is nested too deeply
    for Python to parse (JS parses it; the canonical form then refuses it).
    """
    note = None
    if call.parsed or not (call.arguments is None or isinstance(call.arguments, str)):
        raw, arguments = "", call.arguments
    else:
        raw = call.arguments or ""
        try:
            arguments = parse_arguments(raw)
        except RecursionError:
            arguments = _too_deep()
            note = "arguments nested too deeply to fingerprint"
    item = {"type": "function_call", "callId": call_id, "name": call.name, "arguments": raw}
    return EngineCall(call_id, call.name, raw, arguments, item), note


def output_items(response: Response) -> tuple[Mapping[str, object], ...]:
    """The response as the engine's response checkpoint reads it: text, then other items."""
    message = {"type": "message", "content": [{"type": "output_text", "text": response.text}]}
    return (message, *response.server)


class Session:
    """One conversation's detection, run after run, through the reference engine's objects.

    ``recording`` keeps every monitor operation as a vector step
    (``steps``, with ``labels[i]`` saying where step ``i`` came from).
    """

    def __init__(
        self,
        config: ResolvedConfig,
        loop_keys: Mapping[str, LoopKey] | None = None,
        *,
        recording: bool = False,
    ) -> None:
        self.config = config
        self.tools = tuple(ToolSpec(name, loop_key=key) for name, key in (loop_keys or {}).items())
        self.scenario = _Replayed("replay", tools=self.tools)
        self.steps: list[dict[str, Any]] | None = [] if recording else None
        self.labels: list[str] = []
        self.label = "start"
        self._start(ObservedMonitor(config, self.steps))

    def _start(self, monitor: ObservedMonitor) -> None:
        """A run's engine objects over ``monitor`` (ENG-30, ENG-32: rounds from 1)."""
        self.warnings: list[str] = []
        self.monitor = monitor
        self.hooks = Hooks((), self.warnings)
        self.actions = Actions(monitor, self.hooks)
        self.identity = IdentityResolver(self.tools)
        self.detection = Detection(
            self.scenario, monitor, self.actions, self.identity, self.warnings
        )

    def mark(self) -> None:
        """Label the steps written since the last mark (for ``--port``)."""
        if self.steps is not None:
            self.labels.extend([self.label] * (len(self.steps) - len(self.labels)))

    def has_loop_key(self, name: str) -> bool:
        tool = self.scenario.tool(name)
        return isinstance(tool.loop_key, list)

    # -- what the engine reports ------------------------------------------------

    def take_warnings(self) -> list[str]:
        warnings = list(self.warnings)
        self.warnings.clear()
        return warnings

    def take_applied(self) -> list[str]:
        """The applied actions of the verdicts handled since the last look (ENG-98)."""
        applied = [event.applied_action or "" for event in self.hooks.events]
        self.hooks.events.clear()
        return applied

    # -- the engine's steps -----------------------------------------------------

    def check_response(self, response: Response) -> None:
        """The response checkpoint: text, then server items (ENG-109, ENG-56)."""
        self.monitor.text_verdict = None
        self.monitor.text_checked = False
        self.detection.check_response(output_items(response))

    def open_round(self, calls: list[EngineCall]) -> None:
        """A round: counter, tables, declaration (ENG-32..ENG-43)."""
        self.detection.open_round(calls)

    def checkpoint(self, call: EngineCall) -> Decision:
        """A client call's checkpoint: the malformed path or the parsed one (ENG-44, ENG-45)."""
        if call.malformed:
            return self.detection.check_malformed(call, call.raw)
        return self.detection.check_call(call)

    @property
    def stop_armed(self) -> bool:
        return self.actions.stop_armed

    def flush_steer(self) -> str | None:
        """The steer text injected before the follow-up dispatch (ENG-65, ENG-66)."""
        return self.actions.steer.flush()

    def follow_up(self, *, spend: bool) -> Verdict | None:
        """The follow-up dispatch takes the escalation latch (ENG-71..ENG-73).

        With ``spend`` (``--engine``) a pending escalation spends one unit of
        budget when it can and is returned; otherwise the latch is cleared.
        """
        pending = self.actions.latch.take()
        if not spend or pending is None or self.config.escalation is None:
            return None
        if not self.monitor.can_escalate():
            return None
        self.monitor.consume_escalation()
        return pending

    # -- runs ---------------------------------------------------------------------

    def resume(self) -> None:
        """A new run restores what the last one saved, through JSON text (ENG-114, ENG-117)."""
        self.actions.latch.drop()  # ENG-76
        blob = json.loads(json.dumps(wire.encode(self.monitor.get_state())))
        pending = self.actions.steer.persisted()
        if self.steps is not None:
            self.steps.append({"op": "resume"})
        monitor = ObservedMonitor(self.config, self.steps)
        monitor.restore(wire.decode(blob))
        self._start(monitor)
        self.actions.steer.requeue(pending)

    def restore(self, state: object) -> None:
        """A new run from a given persisted blob (ENG-117; the monitor's part: MON-06)."""
        if self.steps is not None:
            # An empty blob first, so that a blob that is not an object leaves a
            # fresh monitor, as constructing one would (STATE-13).
            self.steps.append({"op": "restore", "state": {}})
            self.steps.append({"op": "restore", "state": wire.encode(state)})
        monitor = ObservedMonitor(self.config, self.steps)
        monitor.restore(state)
        self._start(monitor)
        if isinstance(state, Mapping):
            self.actions.steer.requeue(state.get("pendingSteer"))
