"""Hook emission and ``DoomLoopDetected`` handler outcomes (ENG-89..ENG-97, ENG-99, ENG-140)."""

from __future__ import annotations

from collections.abc import Mapping

from doomloop_kit.reference import RUNGS, UNDEFINED

from .scenario import HandlerSpec
from .transcript import HookEvent


class Hooks:
    """Records every emission in order and runs the scenario's fixed handlers."""

    def __init__(self, handlers: tuple[HandlerSpec, ...], warnings: list[str]) -> None:
        self._handlers = handlers
        self._warnings = warnings
        self.events: list[HookEvent] = []
        self.slot: tuple[int, int] | None = None
        """Set while a call of a concurrent batch is processed (ENG-138)."""

    def emit(self, hook: str, payload: dict[str, object]) -> None:
        """A lifecycle hook (``SessionStart``, ``PreToolUse``, ``SessionEnd``, …)."""
        self.events.append(HookEvent(hook, payload, slot=self.slot))

    def override_for(self, payload: Mapping[str, object]) -> str | None:
        """Run every matching handler; the last valid override wins (ENG-91, ENG-93, ENG-97)."""
        override: str | None = None
        tool_name = payload.get("toolName")
        for handler in self._handlers:
            if handler.tool is not None and handler.tool != tool_name:
                continue  # tool matchers fail closed without a tool name (ENG-91)
            if any(payload.get(name, UNDEFINED) != value for name, value in handler.when.items()):
                continue
            if handler.fails is not None:
                self._warnings.append(f"[hooks] DoomLoopDetected handler failed: {handler.fails}")
                continue
            result = handler.returns
            if result is UNDEFINED:
                continue
            action = result.get("overrideAction", UNDEFINED) if isinstance(result, Mapping) else 0
            if action is UNDEFINED:
                continue
            if action not in RUNGS:
                self._warnings.append(f"[hooks] DoomLoopDetected result dropped: {result!r}")
                continue
            override = str(action)
        return override

    def detected(self, payload: dict[str, object], applied_action: str) -> None:
        """Record a ``DoomLoopDetected`` emission with the action finally applied (ENG-98)."""
        self.events.append(HookEvent("DoomLoopDetected", payload, applied_action, self.slot))
