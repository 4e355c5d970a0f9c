"""One run of the tool loop: the order of its steps (spec §15.6, ENG-160..ENG-165).

A :class:`Run` is built for one invocation (a fresh turn or a decision
resume) over the state left by the previous run, and executed once.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from doomloop_kit.jsvalue.jsjson import stringify
from doomloop_kit.jsvalue.values import truthy
from doomloop_kit.reference import (
    UNDEFINED,
    DoomLoopMonitor,
    OptionError,
    OptionResolution,
    messages,
    resolve_doom_loop_option,
)

from . import errors, texts
from .actions import Actions
from .conversation import (
    AWAITING_APPROVAL,
    AWAITING_CLIENT_TOOLS,
    AWAITING_HITL,
    COMPLETE,
    DECISION_STATUSES,
    IN_PROGRESS,
    Conversation,
    indistinct,
    unwritten,
)
from .detection import Detection, response_text
from .errors import OutsideDomain, RunFailed
from .escalation import apply_overrides
from .hooks import Hooks
from .identity import Call, IdentityResolver
from .rounds import BatchKind, CallOutcome, RoundRunner, function_call_output, unsent_output_item
from .scenario import RunSpec, Scenario
from .tool_choice import ToolChoicePolicy
from .transcript import Dispatch, Execution, RunEnd, RunTranscript


class DispatchKind(Enum):
    """What a dispatch is for (ENG-19); its value is the transcript's ``kind``.

    Members are singletons compared by identity, so no test here hangs on string interning.
    """

    INITIAL = "initial"
    FOLLOW_UP = "follow-up"
    RESUME = "resume"
    FINAL = "final"
    RETRY = "retry"


@dataclass(frozen=True)
class Response:
    """A scripted response once it has been given its id (ENG-17)."""

    id: str
    output: tuple[Mapping[str, object], ...]

    def items(self) -> list[dict[str, object]]:
        """Private copies of the output items, for the conversation and the input."""
        return [copy.deepcopy(dict(item)) for item in self.output]

    def calls(self) -> list[Call]:
        return [Call.of(item) for item in self.output if item.get("type") == "function_call"]


class Run:
    """The engine for one invocation; :meth:`execute` gives its transcript."""

    def __init__(
        self, scenario: Scenario, spec: RunSpec, index: int, loaded: Mapping[str, object] | None
    ) -> None:
        self.scenario, self.spec, self.index = scenario, spec, index
        self.request = scenario.request
        self.warnings: list[str] = []
        option = scenario.doom_loop if spec.doom_loop is UNDEFINED else spec.doom_loop
        self.unbuilt: RunFailed | None = None
        """A failure of the option's resolution: the run is never built (ENG-176)."""
        try:
            resolution = resolve_doom_loop_option(option)  # ENG-24
        except OptionError as error:  # what it printed before it threw stays (CFG-47)
            resolution = OptionResolution(None, error.warnings)
            self.unbuilt = RunFailed(errors.TYPE_ERROR, str(error), before_run=True)
        self.config = resolution.config
        self.config_warnings = tuple(  # the codes of CFG-34
            messages.warning_data(warning.message)["code"] for warning in resolution.warnings
        )
        self.hooks = Hooks(scenario.hooks, self.warnings)
        self.identity = IdentityResolver(scenario.tools)
        self.actions: Actions | None = None
        self.detection: Detection | None = None
        if self.config is not None:
            monitor = DoomLoopMonitor(self.config)  # ENG-30: starts empty
            self.actions = Actions(monitor, self.hooks)
            self.detection = Detection(
                scenario, monitor, self.actions, self.identity, self.warnings
            )
        if loaded is not None:
            unwritten_because = unwritten(loaded, spec.decision_resume)
            if unwritten_because:  # ENG-151 (d): a state the SDK never writes
                raise OutsideDomain(f"run {index}: {unwritten_because}")
        self.state = Conversation.from_json(loaded)
        self.tool_choice = ToolChoicePolicy(
            self.request.tool_choice,
            self.request.tool_choice_from,
            self.state.consumed_tool_choice_key,
        )
        self.executions: list[Execution] = []
        self.rounds = RoundRunner(scenario, self.detection, self.hooks, self.executions)
        self.dispatches: list[Dispatch] = []
        self._script = iter(spec.model)
        self._answered = 0
        self.input: list[dict[str, object]] = []
        self.fresh_input: list[dict[str, object]] = []
        """A fresh turn's new input: saved with the first response (ENG-146)."""
        self.session_started = False
        self.steps = 0
        """Normal rounds run in this run (ENG-132, ENG-142)."""
        self.reason = "complete"
        """The reason a normal end reports: ``max_turns`` once ``stopWhen`` held (ENG-147)."""
        self.saved: object = None
        """The state this run saved last; None while it saved none (ENG-156)."""
        self._stored_status = (  # UNDEFINED: the loaded state has no status (ENG-191)
            loaded.get("status", UNDEFINED)
            if loaded is not None and scenario.state_accessor
            else None
        )
        self.end: RunEnd | None = None

    # -- helpers -----------------------------------------------------------------

    @property
    def stop_armed(self) -> bool:
        return self.actions is not None and self.actions.stop_armed

    def _stop_verdict(self) -> object:
        return None if self.actions is None else self.actions.stop_verdict  # ENG-29, ENG-101

    def _blob(self, monitor: DoomLoopMonitor, actions: Actions) -> dict[str, object]:
        """Monitor state, then ``stopVerdict``, then ``pendingSteer`` (ENG-114)."""
        blob = monitor.get_state()
        if actions.stop_armed:
            blob["stopVerdict"] = copy.deepcopy(actions.stop_verdict)
        pending = actions.steer.persisted()
        if pending is not None:
            blob["pendingSteer"] = pending
        return blob

    def _save(self) -> None:
        """Write the state; the blob is rebuilt only while detection is on (ENG-115, ENG-28)."""
        if self.detection is not None and self.actions is not None:
            self.state.doom_loop = self._blob(self.detection.monitor, self.actions)
        self.state.consumed_tool_choice_key = self.tool_choice.stored_key
        twins = indistinct(self.state.pending)
        if twins:  # ENG-151 (e): the SDK's state cannot tell these pending calls apart
            raise OutsideDomain(f"run {self.index}: {twins}")
        if self.scenario.state_accessor:
            self.saved = self.state.to_json()

    def _saved_status(self) -> object:
        """The status the accessor holds: the last save's, else the loaded state's (ENG-130);
        UNDEFINED when that state has none (ENG-191)."""
        if isinstance(self.saved, Mapping):
            return self.saved.get("status", UNDEFINED)
        return self._stored_status

    def _executable(self, call: Call) -> bool:
        tool = self.scenario.tool(call.name)
        return tool is not None and tool.executable

    def _tool_kind(self, call: Call) -> str | None:
        tool = self.scenario.tool(call.name)
        return None if tool is None else tool.kind

    def _dispatch(self, kind: DispatchKind, items: list[dict[str, object]]) -> Response:
        """Build and send one request; only follow-ups take the latch (ENG-71, ENG-75)."""
        index = len(self.dispatches)
        request: dict[str, object] = {"model": self.request.model}
        if self.request.models is not None:
            request["models"] = list(self.request.models)
        if self.scenario.tools:
            request["tools"] = [{"type": "function", "name": t.name} for t in self.scenario.tools]
        finalising = kind in (DispatchKind.FINAL, DispatchKind.RETRY)
        choice = "none" if finalising else self.tool_choice.offer(index)
        if choice is not UNDEFINED:
            request["toolChoice"] = choice
        replaced = False
        if kind is DispatchKind.FOLLOW_UP and self.actions is not None:  # ENG-75
            pending = self.actions.latch.take()
            escalation = self.config.escalation if self.config is not None else None
            if pending is not None and escalation is not None and self.detection is not None:
                monitor = self.detection.monitor
                if monitor.can_escalate():
                    monitor.consume_escalation()
                    replaced = apply_overrides(request, escalation, pending)
        carried_forced = not finalising and not replaced and self.tool_choice.carries_forced(choice)
        request["input"] = copy.deepcopy(items)
        scripted = next(self._script, None)
        if scripted is None:
            self.dispatches.append(Dispatch(index, kind.value, request, None))
            raise RunFailed(
                errors.SCRIPT_EXHAUSTED,
                f"the scripted model has no response for dispatch {index}",
                index,
            )
        self._answered += 1
        response = Response(f"resp_{self._answered}", scripted.output)
        self.dispatches.append(Dispatch(index, kind.value, request, response.id))
        has_call = any(item.get("type") == "function_call" for item in response.output)
        self.tool_choice.answered(index, carried_forced, has_call)  # ENG-145
        return response

    def _take_response(self, response: Response, *, checked: bool = True) -> None:
        """Save the response (a fresh turn's input first), then check it (ENG-109, ENG-146)."""
        self.state.messages.extend(self.fresh_input)
        self.fresh_input = []
        if self.state.status == AWAITING_CLIENT_TOOLS:
            self.state.pending = []  # ENG-148: the client tools were answered
            self.state.status = IN_PROGRESS
        self.state.messages.extend(response.items())
        self._save()
        if checked and self.detection is not None:
            self.detection.check_response(response.output)

    def _finish(self, response: Response | None, reason: str, status: str = COMPLETE) -> None:
        """End the run (or pause it); ``SessionEnd`` fires last, once (ENG-99, ENG-130)."""
        if self.actions is not None:
            self.actions.latch.drop()  # ENG-76
        self.state.status = status
        if status == COMPLETE:
            self.tool_choice.forget()  # ENG-145
        self._save()
        if self.session_started:
            self.hooks.emit("SessionEnd", {"reason": reason})
        self.end = RunEnd(
            status=self._saved_status(),
            reason=reason,
            final_response_id=None if response is None else response.id,
            final_text=None if response is None else response_text(response.output),
            stop_verdict=copy.deepcopy(self._stop_verdict()),
        )

    def _complete(self, response: Response, reason: str) -> None:
        """A normal end: the final response is validated first (ENG-142)."""
        if not response.output:
            if self.steps == 0:
                raise RunFailed(
                    errors.INVALID_FINAL_RESPONSE,
                    f"the final response {response.id} has no output item",
                )
            response = self._dispatch(DispatchKind.RETRY, self.input)  # taken as it is
            self._take_response(response, checked=False)
        self._finish(response, reason)

    def _seal(self, response: Response, outcomes: list[CallOutcome]) -> None:
        """Give every call whose id has no output yet the halt output (ENG-85, ENG-106)."""
        halt = stringify({"error": texts.halt_seal(self._stop_verdict())})
        seals = [
            function_call_output(call.call_id, halt)
            for call in _without_output(response.calls(), outcomes)
        ]
        if seals:
            self.state.messages.extend(seals)
            self._save()

    def _halt(self, response: Response, outcomes: list[CallOutcome]) -> None:
        """Leave through a stop gate: seal, then end with doom_loop (ENG-85, ENG-86, ENG-166)."""
        self._seal(response, outcomes)
        self._finish(response, "doom_loop")

    # -- the run -------------------------------------------------------------------

    def execute(self) -> RunTranscript:
        """Run to a pause or an end; a failure ends the run, never raises (ENG-20, ENG-141)."""
        try:
            self._initialise()
        except RunFailed as failure:
            if self.session_started:
                self.hooks.emit("SessionEnd", {"reason": "error"})
            self.end = RunEnd(
                status=self._saved_status(),
                reason=None if failure.before_run else "error",
                final_response_id=None,
                final_text=None,
                stop_verdict=None,  # ENG-141: a failed run has no verdict to read
                error=failure.to_json(),
            )
        assert self.end is not None
        built = self.end.reason is not None  # only a run never built ends without a reason
        return RunTranscript(
            index=self.index,
            decision_resume=self.spec.decision_resume,
            config=None if self.config is None or not built else self.config.to_json(),
            config_warnings=self.config_warnings,
            dispatches=tuple(self.dispatches),
            events=tuple(self.hooks.events),
            executions=tuple(self.executions),
            warnings=tuple(self.warnings),
            loop_key_invocations=dict(self.identity.invocations),
            end=self.end,
            state=self.saved,
        )

    def _restore(self) -> None:
        """Restore the monitor, re-queue steer, re-arm a stop on decisions (ENG-171, ENG-158)."""
        blob = self.state.doom_loop
        if self.detection is None or self.actions is None or blob is UNDEFINED:
            return  # ENG-28: with detection off the blob rides along untouched
        if blob is None:  # ENG-144: JS reads a member of null
            raise RunFailed(errors.TYPE_ERROR, "the persisted doomLoop member is null")
        if not self.detection.monitor.restore(blob):
            self.warnings.append("[DoomLoop] persisted doomLoop state is not an object; ignored")
        if isinstance(blob, Mapping):
            self.actions.steer.requeue(blob.get("pendingSteer"))
            verdict = blob.get("stopVerdict", UNDEFINED)
            if self.spec.decision_resume and truthy(verdict):  # ENG-158
                self.actions.stop_verdict = copy.deepcopy(verdict)

    def _initialise(self) -> None:
        """ENG-160."""
        if self.unbuilt is not None:
            raise self.unbuilt
        if self.spec.decision_resume and not self.scenario.state_accessor:
            raise RunFailed(
                errors.DECISIONS_NEED_STATE, "a decision resume needs state", before_run=True
            )
        self._restore()
        if self.spec.decision_resume and self.state.status in DECISION_STATUSES:
            self._decision_resume()
            return
        resuming_client_tools = self.state.status == AWAITING_CLIENT_TOOLS
        if self.spec.input is not None:
            self.fresh_input = copy.deepcopy([dict(item) for item in self.spec.input])
        if not resuming_client_tools:
            self.state.status = IN_PROGRESS
            self._save()  # ENG-119, ENG-146: without a stale stopVerdict, without the new input
        self.hooks.emit("SessionStart", {})
        self.session_started = True
        self.input = copy.deepcopy(self.state.messages) + copy.deepcopy(self.fresh_input)
        response = self._dispatch(DispatchKind.INITIAL, self.input)
        if self.spec.empty_text and not self.state.messages:
            self.input = []  # ENG-174: the empty text reaches the first dispatch only
        self._first_response(response)

    def _first_response(self, response: Response) -> None:
        """ENG-161 (the stop check comes late here: EQ-01)."""
        self._take_response(response)
        calls = response.calls()
        if not self.scenario.tools or not calls:
            self._complete(response, "doom_loop" if self.stop_armed else "complete")
            return
        if self._approval_pause(response, calls):
            return
        if not any(self._executable(call) for call in calls):
            self._client_tools_pause(response, calls)  # ENG-148
            return
        self._main_loop(response)

    def _main_loop(self, response: Response) -> None:
        """ENG-162."""
        first = True
        while True:
            calls = response.calls()
            if self.stop_armed:  # gate A
                self._halt(response, [])
                return
            steps = self.request.stop_when_steps
            if steps is not None and self.steps >= steps:  # ENG-132
                self._stop_when(response)
                return
            if not calls:
                self._complete(response, "complete")
                return
            if not first:
                if self._approval_pause(response, calls):
                    return
                if not any(self._executable(call) for call in calls):
                    self._client_tools_pause(response, calls)
                    return
            first = False
            outcomes, outputs = self._normal_round(calls)
            if self._round_paused(response, outcomes):
                return
            if self.stop_armed:  # gate B
                self._halt(response, outcomes)
                return
            steer = self.actions.steer.flush() if self.actions is not None else None
            if steer is not None:  # ENG-65..ENG-67
                message: dict[str, object] = {"role": "user", "content": steer}
                self.state.messages.append(message)
                self._save()
                self.input.append(copy.deepcopy(message))
            self.input.extend(response.items())
            self.input.extend(copy.deepcopy(outputs))
            response = self._dispatch(DispatchKind.FOLLOW_UP, self.input)
            self._take_response(response)

    def _normal_round(self, calls: list[Call]) -> tuple[list[CallOutcome], list[dict[str, object]]]:
        """Run a normal round and save its outputs in call order (ENG-162 steps 6-7)."""
        outcomes = self.rounds.run(calls, BatchKind.NORMAL)
        self.steps += 1
        outputs = [outcome.output_item() for outcome in outcomes if outcome.answered]
        self.state.messages.extend(copy.deepcopy(outputs))
        self._save()
        return outcomes, outputs

    def _round_paused(
        self, response: Response, outcomes: list[CallOutcome], *, client_tools: bool = True
    ) -> bool:
        """HITL, then client-tools pauses, both before the stop gate (ENG-162 step 8, EQ-02);
        the ``stopWhen`` round pauses for HITL only (ENG-147)."""
        hitl = [dict(outcome.call.item) for outcome in outcomes if outcome.hitl]
        if hitl:
            self.state.pending = copy.deepcopy(hitl)
            self._finish(response, self.reason, AWAITING_HITL)  # ENG-165, ENG-167
            return True
        unanswered = _without_output([outcome.call for outcome in outcomes], outcomes)
        if unanswered and client_tools:
            self._client_tools_pause(response, unanswered)  # ENG-148
            return True
        return False

    def _client_tools_pause(self, response: Response, calls: list[Call]) -> None:
        """Pause for the caller's own tools; their calls are persisted as pending (ENG-148)."""
        self.state.pending = [copy.deepcopy(dict(call.item)) for call in calls]
        self._finish(response, self.reason, AWAITING_CLIENT_TOOLS)

    def _stop_when(self, response: Response) -> None:
        """The ``Stop`` hook, then the last round and the final dispatch (ENG-147)."""
        self.hooks.emit("Stop", {"reason": "max_turns"})
        self.reason = "max_turns"
        calls = response.calls()
        allow = self.request.allow_final_response
        if allow is False or not any(map(self._executable, calls)):
            self._complete(response, self.reason)
            return
        outcomes, outputs = self._normal_round(calls)
        if self._round_paused(response, outcomes, client_tools=False):
            return
        if self.stop_armed:  # gate C
            self._halt(response, outcomes)
            return
        self.input.extend(response.items())
        self.input.extend(copy.deepcopy(outputs))
        final_input = copy.deepcopy(self.input)
        for call in _without_output(calls, outcomes):  # ENG-147: sent, never persisted
            final_input.append(
                {"type": "function_call_output", "callId": call.call_id, "output": texts.SKIPPED}
            )
        directive = texts.final_directive(allow)
        if directive:  # ENG-147: sent, never persisted
            final_input.append({"role": "user", "content": directive})
        final = self._dispatch(DispatchKind.FINAL, final_input)
        self.input = final_input
        self._take_response(final, checked=False)  # ENG-109: not checked
        self._complete(final, self.reason)

    def _approval_pause(self, response: Response, calls: list[Call]) -> bool:
        """Round (b) and the approval pause (ENG-164, ENG-143)."""
        approval = [call for call in calls if self._tool_kind(call) == "approval"]
        if not approval:
            return False
        if not self.scenario.state_accessor:
            names = ", ".join(call.name for call in approval)
            raise RunFailed(errors.APPROVAL_NEEDS_STATE, f"approval needs state: {names}")
        gated = [call for call in calls if self._tool_kind(call) in ("approval", "hitl")]
        if any(self._tool_kind(call) == "hitl" for call in gated):
            raise OutsideDomain(  # ENG-151: the SDK runs the HITL call, then loses it
                f"run {self.index}: an approval pause beside a call of a hitl tool"
            )
        auto = [call for call in calls if self._tool_kind(call) == "executable"]
        outcomes = self.rounds.run(auto, BatchKind.APPROVAL_PAUSE)
        results = [outcome.unsent_result() for outcome in outcomes]
        if results:  # ENG-155: a new batch's results replace the stored ones
            self.state.unsent = results
        self.state.pending = [copy.deepcopy(dict(call.item)) for call in gated]
        self._finish(response, self.reason, AWAITING_APPROVAL)
        return True

    def _decision_resume(self) -> None:
        """ENG-163, ENG-22."""
        by_id: dict[str, Mapping[str, object]] = {}
        for item in self.state.pending:
            by_id.setdefault(str(item.get("callId")), item)
        decisions = [*self.spec.approve, *self.spec.reject]
        twice = sorted({i for i in decisions if i in by_id and decisions.count(i) > 1})
        if twice:  # ENG-151: the SDK runs or answers such a call twice
            raise OutsideDomain(f"run {self.index}: pending call(s) {twice} decided twice")
        decided: set[str] = set()
        approved: list[Call] = []
        for call_id in self.spec.approve:
            if call_id in by_id and call_id not in decided:
                decided.add(call_id)
                approved.append(Call.of(by_id[call_id]))
        results = [
            outcome.unsent_result() for outcome in self.rounds.run(approved, BatchKind.APPROVED)
        ]
        for call_id in self.spec.reject:
            if call_id in by_id and call_id not in decided:
                decided.add(call_id)
                name = by_id[call_id].get("name")
                results.append(
                    {
                        "callId": call_id,
                        "name": name,
                        "output": None,
                        "error": texts.REJECTED_BY_USER,
                    }
                )
        self.state.unsent.extend(results)
        self.state.pending = [
            item for item in self.state.pending if str(item.get("callId")) not in decided
        ]
        if self.state.pending:  # ENG-163 step 6: pause again as awaiting approval (ENG-149)
            self.state.status = AWAITING_APPROVAL
            self._save()
            self.end = RunEnd(self._saved_status(), "complete", None, None, self._stop_verdict())
            return
        self.state.status = IN_PROGRESS
        if self.stop_armed:  # gate D
            self.tool_choice.forget()  # ENG-145
            self._save()
            self.end = RunEnd(self._saved_status(), "doom_loop", None, None, self._stop_verdict())
            return
        outputs = [unsent_output_item(result) for result in self.state.unsent]
        self.state.messages.extend(outputs)
        self.state.unsent = []
        self._save()  # ENG-163 step 8: the results join the conversation before the dispatch
        self.input = copy.deepcopy(self.state.messages)
        self._first_response(self._dispatch(DispatchKind.RESUME, self.input))


def _without_output(calls: list[Call], outcomes: list[CallOutcome]) -> list[Call]:
    """The calls whose call id no output of the round answers (ENG-150: by id, so a
    call sharing its id with an answered call counts as answered)."""
    answered = {outcome.call.call_id for outcome in outcomes if outcome.answered}
    return [call for call in calls if call.call_id not in answered]
