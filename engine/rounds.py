"""Running one batch of calls: checkpoint, then a refusal or the body (ENG-44, ENG-78..ENG-80).

The same code serves the three kinds of round (ENG-31); only what an
unanswerable call becomes differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from doomloop_kit.reference import UNDEFINED

from . import texts
from .detection import PROCEED, Detection
from .hooks import Hooks
from .identity import Call, Malformed
from .jsjson import stringify
from .scenario import Scenario, ToolSpec
from .transcript import Execution


class BatchKind(Enum):
    """The three kinds of round (ENG-31); members compare by identity, like every Enum."""

    NORMAL = "normal"
    APPROVAL_PAUSE = "approval-pause"
    APPROVED = "approved"


@dataclass(frozen=True)
class Outcome:
    """What became of one call of a batch.

    ``output`` is the body's result when it ran; ``error`` the error text of
    a blocked, malformed, failed or refused call; ``answered`` is False for a
    call left without output (manual, unknown, or HITL pending).
    """

    call: Call
    output: object = UNDEFINED
    error: str | None = None
    answered: bool = True
    hitl: bool = False

    def output_item(self) -> dict[str, object]:
        """The ``function_call_output`` item the model receives (ENG-79, ENG-105)."""
        value = {"error": self.error} if self.error is not None else self.output
        return function_call_output(self.call.call_id, stringify(value))

    def unsent_result(self) -> dict[str, object]:
        """The unsent result of an approval batch (ENG-80)."""
        result: dict[str, object] = {
            "callId": self.call.call_id,
            "name": self.call.name,
            "output": None if self.error is not None else self.output,
        }
        if self.error is not None:
            result["error"] = self.error
        return result


def function_call_output(call_id: str, output: str) -> dict[str, object]:
    """The output item shape shared by results, blocks and seals (ENG-79, ENG-85)."""
    return {
        "type": "function_call_output",
        "id": f"output_{call_id}",
        "callId": call_id,
        "output": output,
    }


def unsent_output_item(result: dict[str, object]) -> dict[str, object]:
    """An unsent result as the model receives it on the resume dispatch (ENG-80)."""
    error = result.get("error")
    value = {"error": error} if error is not None else result.get("output")
    return function_call_output(str(result.get("callId")), stringify(value))


class RoundRunner:
    """Runs batches for one run; bodies and hooks are recorded in order."""

    def __init__(
        self,
        scenario: Scenario,
        detection: Detection | None,
        hooks: Hooks,
        executions: list[Execution],
    ) -> None:
        self._scenario = scenario
        self._detection = detection
        self._hooks = hooks
        self._executions = executions

    def run(self, calls: list[Call], kind: BatchKind) -> list[Outcome]:
        """Open a round (when detection is on) and run its calls in order (ENG-31, ENG-52)."""
        if self._detection is not None:
            self._detection.open_round(calls)
        return [self._one(call, kind) for call in calls]

    def _one(self, call: Call, kind: BatchKind) -> Outcome:
        tool = self._scenario.tool(call.name)
        if tool is None or not tool.executable:
            if kind is BatchKind.APPROVED:
                return Outcome(call, error=texts.NOT_EXECUTABLE)  # ENG-127 step 2
            return Outcome(call, answered=False)  # ENG-44: no checkpoint
        if isinstance(call.arguments, Malformed):
            if self._detection is not None:
                self._detection.check_malformed(call, call.arguments.raw)  # ENG-45
            return Outcome(call, error=texts.malformed_arguments(call.name, call.arguments.raw))
        decision = self._detection.check_call(call) if self._detection is not None else PROCEED
        if decision.blocks:  # ENG-78, ENG-83
            return Outcome(call, error=decision.message or texts.block_fallback(call.name))
        if tool.kind == "hitl" and kind is BatchKind.NORMAL:
            return Outcome(call, answered=False, hitl=True)  # ENG-135
        return self._execute(call, tool)

    def _execute(self, call: Call, tool: ToolSpec) -> Outcome:
        """``PreToolUse``, the body, ``PostToolUse`` or ``PostToolUseFailure`` (ENG-100, ENG-21)."""
        payload: dict[str, object] = {"toolName": call.name, "callId": call.call_id}
        self._hooks.emit("PreToolUse", payload)
        round_number = self._detection.round if self._detection is not None else 0
        self._executions.append(Execution(call.call_id, call.name, call.arguments, round_number))
        if tool.fails is not None:
            self._hooks.emit("PostToolUseFailure", {**payload, "error": tool.fails})
            return Outcome(call, error=tool.fails)
        self._hooks.emit("PostToolUse", payload)
        return Outcome(call, output=tool.result)
