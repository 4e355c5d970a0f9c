"""Running one batch of calls: checkpoint, then a refusal or the body (ENG-44, ENG-78..ENG-80).

The same code serves the three kinds of round (ENG-31); only what an
unanswerable call becomes differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from doomloop_kit.jsvalue.jsjson import stringify
from doomloop_kit.jsvalue.values import truthy
from doomloop_kit.reference import UNDEFINED

from . import texts
from .detection import PROCEED, Detection
from .errors import OutsideDomain
from .hooks import Hooks
from .identity import Call, Malformed
from .scenario import Scenario, ToolSpec
from .transcript import Execution


class BatchKind(Enum):
    """The three kinds of round (ENG-31); members compare by identity, like every Enum."""

    NORMAL = "normal"
    APPROVAL_PAUSE = "approval-pause"
    APPROVED = "approved"

    @property
    def concurrent(self) -> bool:
        """The calls of a normal or approval-pause batch run concurrently (ENG-138);
        the approved calls of a decision resume run one after another."""
        return self is not BatchKind.APPROVED


@dataclass(frozen=True)
class CallOutcome:
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


def unsent_output_item(result: Mapping[str, object]) -> dict[str, object]:
    """An unsent result as the model receives it when it is folded (ENG-155, ENG-175):
    ``{"error": E}`` when its ``error`` is truthy in JS, else its ``output``, encoded;
    without an ``output`` member the item has none either (``JSON.stringify`` of
    ``undefined`` gives nothing)."""
    call_id = str(result.get("callId"))
    error = result.get("error")
    if truthy(error):
        return function_call_output(call_id, stringify({"error": error}))
    if "output" in result:
        return function_call_output(call_id, stringify(result["output"]))
    return {"type": "function_call_output", "id": f"output_{call_id}", "callId": call_id}


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
        self._concurrent_batches = 0

    def run(self, calls: list[Call], kind: BatchKind) -> list[CallOutcome]:
        """Open a round (when detection is on) and run its calls in order (ENG-31, ENG-52).

        The calls are run one after another, which is one of the orders a
        concurrent batch may give; the events of a concurrent batch carry
        their slot, so that they are compared by the partial order (ENG-138).
        """
        if self._detection is not None:
            self._detection.open_round(calls)
        if not kind.concurrent:
            return [self._one(call, kind) for call in calls]
        self._concurrent_batches += 1
        outcomes = []
        for position, call in enumerate(calls):
            self._hooks.slot = (self._concurrent_batches, position)
            outcomes.append(self._one(call, kind))
        self._hooks.slot = None
        return outcomes

    def _one(self, call: Call, kind: BatchKind) -> CallOutcome:
        tool = self._scenario.tool(call.name)
        if tool is None or not tool.executable:
            if kind is BatchKind.APPROVED:
                return CallOutcome(call, error=texts.NOT_EXECUTABLE)  # ENG-163 step 2
            return CallOutcome(call, answered=False)  # ENG-44: no checkpoint
        if isinstance(call.arguments, Malformed):
            if self._detection is not None:
                self._detection.check_malformed(call, call.arguments.raw)  # ENG-45
            return CallOutcome(call, error=texts.malformed_arguments(call.name, call.arguments.raw))
        decision = self._detection.check_call(call) if self._detection is not None else PROCEED
        if decision.blocks:  # ENG-78, ENG-83
            return CallOutcome(call, error=decision.message or texts.block_fallback(call.name))
        return self._execute(call, tool, kind)

    def _execute(self, call: Call, tool: ToolSpec, kind: BatchKind) -> CallOutcome:
        """``PreToolUse``, then the HITL pause or the body and its ``Post*`` event
        (ENG-140, ENG-165, ENG-21); no tool hook for arguments that are not an object
        (ENG-140)."""
        payload: dict[str, object] = {"toolName": call.name, "callId": call.call_id}
        hooked = call.arguments is None or isinstance(call.arguments, Mapping)  # ENG-140
        if hooked:
            self._hooks.emit("PreToolUse", payload)
        if tool.kind == "hitl" and kind is BatchKind.NORMAL:
            return CallOutcome(call, answered=False, hitl=True)  # ENG-165: the handler pauses
        if tool.kind == "hitl" and tool.result is None:
            raise OutsideDomain(  # ENG-151: the SDK reads the null result as "pause again"
                f"approved call {call.call_id!r} of a hitl tool whose body returns null"
            )
        round_number = self._detection.round if self._detection is not None else 0
        batch = None if self._hooks.slot is None else self._hooks.slot[0]
        self._executions.append(
            Execution(call.call_id, call.name, call.arguments, round_number, batch)
        )
        if tool.fails is not None:
            if hooked:
                self._hooks.emit("PostToolUseFailure", {**payload, "error": tool.fails})
            return CallOutcome(call, error=tool.fails)
        if hooked:
            self._hooks.emit("PostToolUse", payload)
        return CallOutcome(call, output=tool.result)
