/**
 * One run of the tool loop: the order of its steps (spec §15.6, ENG-141 … ENG-150,
 * ENG-160 … ENG-167). A {@link Run} is built for one invocation (a fresh turn
 * or a decision resume) over the state left by the previous run, and executed once.
 */

import { Actions } from './actions.js';
import {
  AWAITING_APPROVAL,
  AWAITING_CLIENT_TOOLS,
  AWAITING_HITL,
  COMPLETE,
  Conversation,
  DECISION_STATUSES,
  IN_PROGRESS,
} from './conversation.js';
import { Detection, responseText } from './detection.js';
import { OutsideDomain, RunFailed } from './errors.js';
import { applyOverrides } from './escalation.js';
import { Hooks } from './hooks.js';
import { type Call, callOf, IdentityResolver } from './identity.js';
import { clone, hasOwn, isObject, type Json, type JsonObject } from './json.js';
import { capturingWarnings, type Monitor, type MonitorModule, type ResolvedConfig } from './monitor-api.js';
import { functionCallOutput, type Outcome, RoundRunner, unsentOutputItem, withoutOutput } from './rounds.js';
import { isExecutable, type RunSpec, type Scenario, type ScriptedResponse, toolNamed } from './scenario.js';
import { finalDirective, haltSeal, REJECTED_BY_USER, SKIPPED } from './texts.js';
import { ToolChoicePolicy } from './tool-choice.js';
import { type Dispatch, type Execution, invocationCounts, type RunEnd, type RunTranscript } from './transcript.js';
import { classifyWarning } from '../warning-codes.js';

/** A scripted response once it has been given its id (ENG-17). */
class Response {
  constructor(
    readonly id: string,
    readonly output: readonly JsonObject[],
  ) {}

  /** Private copies of the output items, for the conversation and the input. */
  items(): JsonObject[] {
    return this.output.map((item) => clone(item));
  }

  calls(): Call[] {
    return this.output.filter((item) => item.type === 'function_call').map(callOf);
  }
}

type DispatchKind = Dispatch['kind'];

/** The engine for one invocation; {@link Run.execute} gives its transcript. */
export class Run {
  private readonly warnings: string[] = [];
  private config: ResolvedConfig | null = null;
  private configWarnings: string[] = [];
  /** A failure of the option's resolution: the run is never built (ENG-176). */
  private unbuilt: RunFailed | undefined;
  private readonly hooks: Hooks;
  private readonly identity: IdentityResolver;
  private actions: Actions | undefined;
  private detection: Detection | undefined;
  private readonly state: Conversation;
  private readonly toolChoice: ToolChoicePolicy;
  private readonly executions: Execution[] = [];
  private rounds: RoundRunner;
  private readonly dispatches: Dispatch[] = [];
  private readonly script: readonly ScriptedResponse[];
  /** How many scripted responses were consumed; also the next response's number less one (ENG-17). */
  private answered = 0;
  /** The input of the last dispatch, which a retry sends again (ENG-142). */
  private input: JsonObject[] = [];
  /** A fresh turn's new input: saved with the first response (ENG-146). */
  private freshInput: JsonObject[] = [];
  private sessionStarted = false;
  /** Normal rounds run in this run (ENG-132, ENG-142). */
  private steps = 0;
  /** The reason a normal end reports: `max_turns` once `stopWhen` held (ENG-147). */
  private reason = 'complete';
  /** The state this run saved last; null while it saved none (ENG-156). */
  private saved: Json = null;
  /** The status the accessor held when the run began (ENG-130). */
  private readonly storedStatus: Json;
  private end: RunEnd | undefined;

  constructor(
    private readonly mod: MonitorModule,
    private readonly scenario: Scenario,
    private readonly spec: RunSpec,
    private readonly index: number,
    loaded: JsonObject | undefined,
  ) {
    this.hooks = new Hooks(scenario.hooks, this.warnings);
    this.identity = new IdentityResolver(mod, scenario.tools);
    this.state = Conversation.fromJson(loaded);
    this.storedStatus = loaded !== undefined && hasOwn(loaded, 'status') ? (loaded.status as Json) : null;
    const request = scenario.request;
    this.toolChoice = new ToolChoicePolicy(
      mod.canonicalizeKeyMaterial,
      request.toolChoice,
      request.toolChoiceFrom,
      this.state.consumedToolChoiceKey,
    );
    this.script = spec.model;
    this.rounds = new RoundRunner(scenario, undefined, this.hooks, this.executions);
  }

  /** Resolve the option once and build the run's monitor from it (ENG-24, ENG-30). */
  private async build(): Promise<void> {
    const option = this.spec.doomLoop === undefined ? this.scenario.doomLoop : this.spec.doomLoop;
    const printed: string[] = [];
    try {
      this.config = await capturingWarnings(printed, () =>
        this.mod.resolveDoomLoopOption(option as Parameters<MonitorModule['resolveDoomLoopOption']>[0]),
      );
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      this.unbuilt = new RunFailed('type-error', error.message, undefined, true); // ENG-176
    }
    this.configWarnings = printed.map((message) => String(classifyWarning(message).code));
    if (this.config === null) return;
    const monitor = new this.mod.DoomLoopMonitor(this.config); // ENG-30: starts empty
    this.actions = new Actions(monitor, this.hooks);
    this.detection = new Detection(this.scenario, monitor, this.actions, this.identity, this.warnings);
    this.rounds = new RoundRunner(this.scenario, this.detection, this.hooks, this.executions);
  }

  // -- helpers ------------------------------------------------------------------

  private get stopArmed(): boolean {
    return this.actions?.stopArmed ?? false;
  }

  /** What `getDoomLoopVerdict()` gives (ENG-29, ENG-101). */
  private stopVerdict(): Json {
    return clone(this.actions?.stopVerdict ?? null);
  }

  /** Monitor state, then `stopVerdict`, then `pendingSteer` (ENG-114). */
  private blob(monitor: Monitor, actions: Actions): JsonObject {
    const blob = clone(monitor.getState()) as unknown as JsonObject;
    if (actions.stopArmed) blob.stopVerdict = clone(actions.stopVerdict);
    const pending = actions.steer.persisted();
    if (pending !== undefined) blob.pendingSteer = pending;
    return blob;
  }

  /** Write the state; the blob is rebuilt only while detection is on (ENG-115, ENG-28). */
  private save(): void {
    if (this.detection !== undefined && this.actions !== undefined) {
      this.state.doomLoop = this.blob(this.detection.monitor, this.actions);
    }
    this.state.consumedToolChoiceKey = this.toolChoice.storedKey;
    if (this.scenario.stateAccessor) this.saved = this.state.toJson() as Json;
  }

  /** The status the accessor holds: the last save's, else the loaded state's (ENG-130). */
  private savedStatus(): Json {
    return isObject(this.saved) ? (this.saved.status ?? null) : this.storedStatus;
  }

  private executable(call: Call): boolean {
    const tool = toolNamed(this.scenario, call.name);
    return tool !== undefined && isExecutable(tool);
  }

  private toolKind(call: Call): string | undefined {
    return toolNamed(this.scenario, call.name)?.kind;
  }

  /**
   * Build and send one request; only follow-ups take the latch (ENG-71, ENG-75).
   * The response settles the forced tool choice (ENG-145).
   */
  private dispatch(kind: DispatchKind, items: readonly JsonObject[]): Response {
    const index = this.dispatches.length;
    const { request: caller, tools } = this.scenario;
    const request: JsonObject = { model: caller.model };
    if (caller.models !== undefined) request.models = [...caller.models];
    if (tools.length > 0) request.tools = tools.map((tool) => ({ type: 'function', name: tool.name }));
    const finalising = kind === 'final' || kind === 'retry';
    const choice = finalising ? 'none' : this.toolChoice.offer(index);
    if (choice !== undefined) request.toolChoice = clone(choice);
    let replaced = false;
    if (kind === 'follow-up' && this.actions !== undefined && this.detection !== undefined) {
      const pending = this.actions.latch.take();
      const escalation = this.config?.escalation ?? null;
      if (pending !== undefined && escalation !== null) {
        const monitor = this.detection.monitor;
        if (monitor.canEscalate()) {
          monitor.consumeEscalation();
          replaced = applyOverrides(request, escalation, pending);
        }
      }
    }
    const carriedForced = !finalising && !replaced && this.toolChoice.carriesForced(choice);
    request.input = clone([...items]);
    const scripted = this.script[this.answered];
    if (scripted === undefined) {
      this.dispatches.push({ index, kind, request: request as Json, responseId: null });
      throw new RunFailed('script-exhausted', `the scripted model has no response for dispatch ${index}`, index);
    }
    this.answered += 1;
    const response = new Response(`resp_${this.answered}`, scripted.output);
    this.dispatches.push({ index, kind, request: request as Json, responseId: response.id });
    const hasCall = response.output.some((item) => item.type === 'function_call');
    this.toolChoice.answered(index, carriedForced, hasCall);
    return response;
  }

  /**
   * Save the response, a fresh turn's input first (ENG-146), then check it:
   * text, then server items (ENG-109, ENG-56). The first response on a
   * conversation awaiting client tools answers them (ENG-148).
   */
  private async takeResponse(response: Response, checked = true): Promise<void> {
    this.state.messages.push(...this.freshInput);
    this.freshInput = [];
    if (this.state.status === AWAITING_CLIENT_TOOLS) {
      this.state.pending = [];
      this.state.status = IN_PROGRESS;
    }
    this.state.messages.push(...response.items());
    this.save();
    if (checked) await this.detection?.checkResponse(response.output);
  }

  /** End the run (or pause it); `SessionEnd` fires last, once (ENG-99, ENG-130). */
  private finish(response: Response | undefined, reason: string, status: string = COMPLETE): void {
    this.actions?.latch.drop(); // ENG-76
    this.state.status = status;
    if (status === COMPLETE) this.toolChoice.forget(); // ENG-145
    this.save();
    if (this.sessionStarted) this.hooks.emit('SessionEnd', { reason });
    this.end = {
      status: this.savedStatus(),
      reason,
      finalResponseId: response?.id ?? null,
      finalText: response === undefined ? null : responseText(response.output),
      stopVerdict: this.stopVerdict(),
    };
  }

  /**
   * A normal end: the final response is validated first (ENG-142). An empty
   * one fails a run that ran no round; otherwise one retry is sent, and its
   * response, unchecked, is final whatever it holds.
   */
  private async complete(response: Response, reason: string): Promise<void> {
    let final = response;
    if (final.output.length === 0) {
      if (this.steps === 0) {
        throw new RunFailed('invalid-final-response', `the final response ${final.id} has no output item`);
      }
      final = this.dispatch('retry', this.input);
      await this.takeResponse(final, false);
    }
    this.finish(final, reason);
  }

  /** Give every call whose id has no output yet the halt output (ENG-85, ENG-106). */
  private seal(response: Response, outcomes: readonly Outcome[]): void {
    const halt = JSON.stringify({ error: haltSeal(this.actions?.stopVerdict ?? null) });
    const seals = withoutOutput(response.calls(), outcomes).map((call) => functionCallOutput(call.callId, halt));
    if (seals.length > 0) {
      this.state.messages.push(...seals);
      this.save();
    }
  }

  /** Leave through a stop gate: seal, then end with `doom_loop` (ENG-166, ENG-85, ENG-86). */
  private halt(response: Response, outcomes: readonly Outcome[]): void {
    this.seal(response, outcomes);
    this.finish(response, 'doom_loop');
  }

  // -- the run --------------------------------------------------------------------

  /**
   * Run to a pause or an end; a failure ends the run, never throws (ENG-20,
   * ENG-141). A run outside the domain throws {@link OutsideDomain} (ENG-151).
   */
  async execute(): Promise<RunTranscript> {
    await this.build();
    let built = true;
    try {
      await this.initialise();
    } catch (error) {
      if (!(error instanceof RunFailed)) throw error;
      built = !error.beforeRun; // the SDK throws while it builds the run
      if (this.sessionStarted) this.hooks.emit('SessionEnd', { reason: 'error' });
      this.end = {
        status: this.savedStatus(),
        reason: built ? 'error' : null,
        finalResponseId: null,
        finalText: null,
        stopVerdict: null, // ENG-141: a failed run has no verdict to read
        error: error.toJson(),
      };
    }
    return {
      index: this.index,
      decisionResume: this.spec.decisionResume,
      config: this.config === null || !built ? null : (clone(this.config) as unknown as Json),
      configWarnings: this.configWarnings,
      dispatches: this.dispatches,
      events: this.hooks.events,
      executions: this.executions,
      warnings: this.warnings,
      loopKeyInvocations: invocationCounts(this.identity.invocations),
      end: this.end!,
      state: this.saved,
    };
  }

  /** Restore the monitor, re-queue steer, re-arm a stop on decisions (ENG-171, ENG-158, ENG-144). */
  private async restore(): Promise<void> {
    const blob = this.state.doomLoop;
    if (this.detection === undefined || this.actions === undefined || blob === undefined) return; // ENG-28
    if (blob === null) throw new RunFailed('type-error', 'the persisted doomLoop member is null'); // JS reads a member of null
    const monitor = this.detection.monitor;
    await capturingWarnings(this.warnings, () => monitor.restore(blob));
    if (!isObject(blob)) return;
    this.actions.steer.requeue(blob.pendingSteer);
    const verdict = blob.stopVerdict;
    if (this.spec.decisionResume && Boolean(verdict)) this.actions.stopVerdict = clone(verdict) as Json; // JS truthy
  }

  /** ENG-160, ENG-143, ENG-146. */
  private async initialise(): Promise<void> {
    if (this.unbuilt !== undefined) throw this.unbuilt;
    if (this.spec.decisionResume && !this.scenario.stateAccessor) {
      throw new RunFailed('decisions-need-state-accessor', 'a decision resume needs a state accessor', undefined, true);
    }
    await this.restore();
    if (this.spec.decisionResume && DECISION_STATUSES.includes(this.state.status)) {
      await this.decisionResume();
      return;
    }
    if (this.spec.input !== undefined) this.freshInput = clone(this.spec.input);
    if (this.state.status !== AWAITING_CLIENT_TOOLS) {
      this.state.status = IN_PROGRESS;
      this.save(); // ENG-119, ENG-146: without a stale stopVerdict, without the new input
    }
    this.hooks.emit('SessionStart', {});
    this.sessionStarted = true;
    this.input = [...clone(this.state.messages), ...clone(this.freshInput)];
    const response = this.dispatch('initial', this.input);
    if (this.spec.emptyText && this.state.messages.length === 0) this.input = []; // ENG-174
    await this.firstResponse(response);
  }

  /** ENG-161 (the stop check comes late here: EQ-01). */
  private async firstResponse(response: Response): Promise<void> {
    await this.takeResponse(response);
    const calls = response.calls();
    if (this.scenario.tools.length === 0 || calls.length === 0) {
      await this.complete(response, this.stopArmed ? 'doom_loop' : 'complete');
      return;
    }
    if (await this.approvalPause(response, calls)) return;
    if (!calls.some((call) => this.executable(call))) {
      this.clientToolsPause(response, calls); // ENG-148
      return;
    }
    await this.mainLoop(response);
  }

  /** ENG-162. */
  private async mainLoop(first: Response): Promise<void> {
    let response = first;
    let isFirst = true;
    for (;;) {
      const calls = response.calls();
      if (this.stopArmed) {
        this.halt(response, []); // gate A
        return;
      }
      const steps = this.scenario.request.stopWhenSteps;
      if (steps !== undefined && this.steps >= steps) {
        await this.stopWhen(response); // ENG-132
        return;
      }
      if (calls.length === 0) {
        await this.complete(response, 'complete');
        return;
      }
      if (!isFirst) {
        if (await this.approvalPause(response, calls)) return;
        if (!calls.some((call) => this.executable(call))) {
          this.clientToolsPause(response, calls);
          return;
        }
      }
      isFirst = false;
      const [outcomes, outputs] = await this.normalRound(calls);
      if (this.roundPaused(response, outcomes, true)) return;
      if (this.stopArmed) {
        this.halt(response, outcomes); // gate B
        return;
      }
      const steer = this.actions?.steer.flush();
      if (steer !== undefined) {
        // ENG-65 … ENG-67
        const message: JsonObject = { role: 'user', content: steer };
        this.state.messages.push(message);
        this.save();
        this.input.push(clone(message));
      }
      this.input.push(...response.items(), ...clone(outputs));
      response = this.dispatch('follow-up', this.input);
      await this.takeResponse(response);
    }
  }

  /** Run a normal round and save its outputs in call order (ENG-162 steps 6-7). */
  private async normalRound(calls: readonly Call[]): Promise<[Outcome[], JsonObject[]]> {
    const outcomes = await this.rounds.run(calls, 'normal');
    this.steps += 1;
    const outputs = outcomes.filter((outcome) => outcome.answered).map((outcome) => outcome.outputItem());
    this.state.messages.push(...clone(outputs));
    this.save();
    return [outcomes, outputs];
  }

  /**
   * HITL, then client-tools pauses, both before the stop gate (ENG-162 step 8,
   * EQ-02); the `stopWhen` round pauses for HITL only (ENG-147).
   */
  private roundPaused(response: Response, outcomes: readonly Outcome[], clientTools: boolean): boolean {
    const hitl = outcomes.filter((outcome) => outcome.hitl).map((outcome) => clone(outcome.call.item));
    if (hitl.length > 0) {
      this.state.pending = hitl;
      this.finish(response, this.reason, AWAITING_HITL); // ENG-165, ENG-167
      return true;
    }
    const unanswered = withoutOutput(
      outcomes.map((outcome) => outcome.call),
      outcomes,
    );
    if (unanswered.length === 0 || !clientTools) return false;
    this.clientToolsPause(response, unanswered); // ENG-148
    return true;
  }

  /** Pause for the caller's own tools; their calls are persisted as pending (ENG-148). */
  private clientToolsPause(response: Response, calls: readonly Call[]): void {
    this.state.pending = calls.map((call) => clone(call.item));
    this.finish(response, this.reason, AWAITING_CLIENT_TOOLS);
  }

  /**
   * The `Stop` hook, then the last round and the final dispatch (ENG-147,
   * ENG-169, ENG-170). The final input answers the calls the round left unanswered and
   * ends with the directive; neither is persisted.
   */
  private async stopWhen(response: Response): Promise<void> {
    this.hooks.emit('Stop', { reason: 'max_turns' });
    this.reason = 'max_turns';
    const calls = response.calls();
    const allow = this.scenario.request.allowFinalResponse;
    if (allow === false || !calls.some((call) => this.executable(call))) {
      await this.complete(response, this.reason);
      return;
    }
    const [outcomes, outputs] = await this.normalRound(calls);
    if (this.roundPaused(response, outcomes, false)) return;
    if (this.stopArmed) {
      this.halt(response, outcomes); // gate C
      return;
    }
    this.input.push(...response.items(), ...clone(outputs));
    const finalInput = clone(this.input);
    for (const call of withoutOutput(calls, outcomes)) {
      finalInput.push({ type: 'function_call_output', callId: call.callId, output: SKIPPED });
    }
    const directive = finalDirective(allow);
    if (directive !== '') finalInput.push({ role: 'user', content: directive });
    const final = this.dispatch('final', finalInput);
    this.input = finalInput;
    await this.takeResponse(final, false); // not checked (ENG-109)
    await this.complete(final, this.reason);
  }

  /** Round (b) and the approval pause (ENG-164, ENG-143, ENG-155). */
  private async approvalPause(response: Response, calls: readonly Call[]): Promise<boolean> {
    const approval = calls.filter((call) => this.toolKind(call) === 'approval');
    if (approval.length === 0) return false;
    if (!this.scenario.stateAccessor) {
      const names = approval.map((call) => call.name).join(', ');
      throw new RunFailed('approval-needs-state-accessor', `approval needs state: ${names}`);
    }
    const gated = calls.filter((call) => ['approval', 'hitl'].includes(this.toolKind(call) ?? ''));
    if (gated.some((call) => this.toolKind(call) === 'hitl')) {
      // ENG-151: the SDK runs the HITL call, then loses it
      throw new OutsideDomain(`run ${this.index}: an approval pause beside a call of a hitl tool`);
    }
    const auto = calls.filter((call) => this.toolKind(call) === 'executable');
    const results = (await this.rounds.run(auto, 'approval-pause')).map((outcome) => outcome.unsentResult());
    if (results.length > 0) this.state.unsent = results; // a new batch's results replace the stored ones
    this.state.pending = gated.map((call) => clone(call.item));
    this.finish(response, this.reason, AWAITING_APPROVAL);
    return true;
  }

  /** ENG-163, ENG-22, ENG-149. */
  private async decisionResume(): Promise<void> {
    const byId = new Map<string, JsonObject>();
    for (const item of this.state.pending) {
      const id = String(item.callId);
      if (!byId.has(id)) byId.set(id, item);
    }
    const twice = decidedTwice([...this.spec.approve, ...this.spec.reject], byId);
    if (twice.length > 0) {
      // ENG-151: the SDK runs or answers such a call twice
      throw new OutsideDomain(`run ${this.index}: pending call(s) ${JSON.stringify(twice)} decided twice`);
    }
    const approved = this.spec.approve.flatMap((callId) => {
      const item = byId.get(callId);
      return item === undefined ? [] : [callOf(item)];
    });
    const results = (await this.rounds.run(approved, 'approved')).map((outcome) => outcome.unsentResult());
    for (const callId of this.spec.reject) {
      const item = byId.get(callId);
      if (item !== undefined) results.push({ callId, name: item.name ?? null, output: null, error: REJECTED_BY_USER });
    }
    const decided = new Set([...this.spec.approve, ...this.spec.reject]);
    this.state.unsent.push(...results);
    this.state.pending = this.state.pending.filter((item) => !decided.has(String(item.callId)));
    if (this.state.pending.length > 0) {
      // ENG-163 step 6, ENG-149: pause again as awaiting approval
      this.state.status = AWAITING_APPROVAL;
      this.save();
      this.end = { status: this.savedStatus(), reason: 'complete', finalResponseId: null, finalText: null, stopVerdict: this.stopVerdict() };
      return;
    }
    this.state.status = IN_PROGRESS;
    if (this.stopArmed) {
      // gate D
      this.toolChoice.forget(); // ENG-145
      this.save();
      this.end = { status: this.savedStatus(), reason: 'doom_loop', finalResponseId: null, finalText: null, stopVerdict: this.stopVerdict() };
      return;
    }
    this.state.messages.push(...this.state.unsent.map(unsentOutputItem));
    this.state.unsent = [];
    this.save(); // ENG-163 step 8: the results join the conversation before the dispatch
    this.input = clone(this.state.messages);
    await this.firstResponse(this.dispatch('resume', this.input));
  }
}

/** The pending call ids that `decisions` names more than once, sorted (ENG-151). */
function decidedTwice(decisions: readonly string[], pending: ReadonlyMap<string, JsonObject>): string[] {
  const counts = new Map<string, number>();
  for (const callId of decisions) counts.set(callId, (counts.get(callId) ?? 0) + 1);
  return [...counts].filter(([callId, count]) => count > 1 && pending.has(callId)).map(([callId]) => callId).sort();
}
