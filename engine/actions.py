"""Turning a verdict into its applied action and side effect.

ENG-61..ENG-70, ENG-82 and ENG-89..ENG-98.
"""

from __future__ import annotations

from collections.abc import Mapping

from doomloop_kit.reference import UNDEFINED, DoomLoopMonitor, Verdict

from . import texts
from .escalation import EscalationLatch
from .hooks import Hooks
from .steer import SteerQueue


class Actions:
    """The run's steer queue, escalation latch and armed stop verdict."""

    def __init__(self, monitor: DoomLoopMonitor, hooks: Hooks) -> None:
        self._monitor = monitor
        self._hooks = hooks
        self.steer = SteerQueue()
        self.latch = EscalationLatch()
        self.stop_verdict: object = None
        """The armed verdict as JSON (ENG-82), or None."""

    @property
    def stop_armed(self) -> bool:
        return self.stop_verdict is not None

    def apply(self, verdict: Verdict, tool_input: object = UNDEFINED) -> str:
        """Hook, resolve and apply one non-duplicate verdict; return the applied action.

        ENG-61: hook first, then the side effect. ENG-89/ENG-153: the payload.
        ENG-93..ENG-98: the applied action.
        """
        payload = verdict.to_json()
        if isinstance(tool_input, Mapping):  # ENG-153: copied member by member, as JS assigns
            copied = {name: value for name, value in tool_input.items() if name != "__proto__"}
            payload = {**payload, "toolInput": copied}
            payload["message"] = payload.pop("message")  # keep message last
        action = self._hooks.override_for(payload) or verdict.action
        if verdict.detector != "tool-fingerprint" and action == "block":
            action = "observe"  # ENG-94
        if action == "escalate" and not self._monitor.can_escalate():
            action = "observe"  # ENG-95
        self._hooks.detected(payload, action)
        if action == "steer":
            self.steer.add(verdict.message)  # ENG-63
        elif action == "escalate" and self.latch.arm(verdict):
            self.steer.add(texts.escalation_notice(verdict.message))  # ENG-70
        elif action == "stop":
            self.stop_verdict = verdict.to_json()  # ENG-82: the monitor's verdict, unchanged
        return action
