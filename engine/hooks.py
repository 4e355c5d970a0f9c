"""Hook emission and ``DoomLoopDetected`` handler outcomes (ENG-89..ENG-97, ENG-99, ENG-140)."""

from __future__ import annotations

from collections.abc import Mapping

from doomloop_kit.jsvalue.values import to_double
from doomloop_kit.reference import RUNGS, UNDEFINED

from .scenario import HandlerSpec
from .transcript import HookEvent


def json_equal(left: object, right: object) -> bool:
    """JSON equality, as a handler's ``when`` compares (ENG-183): the same JSON type (a
    boolean is never a number), numbers by their double value, arrays element by element,
    objects by member set and values."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return to_double(left) == to_double(right)
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(
            json_equal(left[name], right[name]) for name in left
        )
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            json_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    return type(left) is type(right) and left == right


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
            if not all(
                name in payload and json_equal(payload[name], value)
                for name, value in handler.when.items()
            ):
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
