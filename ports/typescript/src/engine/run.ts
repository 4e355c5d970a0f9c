/**
 * One run of the tool loop: the order of its steps (spec §15.6, ENG-124 … ENG-135).
 * A {@link Run} is built for one invocation (a fresh turn or a decision
 * resume) over the state left by the previous run, and executed once.
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
import { applyOverrides } from './escalation.js';
import { Hooks } from './hooks.js';
import { type Call, callOf, IdentityResolver } from './identity.js';
import { clone, isObject, type Json, type JsonObject } from './json.js';
import { capturingWarnings, type Monitor, type MonitorModule, type ResolvedConfig } from './monitor-api.js';
import { functionCallOutput, type Outcome, RoundRunner, unsentOutputItem } from './rounds.js';
import { isExecutable, type RunSpec, type Scenario, type ScriptedResponse, toolNamed } from './scenario.js';
import { haltSeal, REJECTED_BY_USER } from './texts.js';
import { ToolChoicePolicy } from './tool-choice.js';
import { type Dispatch, type Execution, invocationCounts, type RunEnd, type RunTranscript } from './transcript.js';
import { classifyWarning } from '../warning-codes.js';

/** The scripted model had no response for a dispatch (ENG-20). */
class DispatchFailed extends Error {
  constructor(readonly index: number) {
    super(`the scripted model has no response for dispatch ${index}`);
  }
}

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
  private input: JsonObject[] = [];
  private sessionStarted = false;
  private steps = 0;
  private saved: Json = null;
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
    const request = scenario.request;
    this.toolChoice = new ToolChoicePolicy(request.toolChoice, request.toolChoiceFrom, this.state.consumedToolChoiceKey);
    this.script = spec.model;
    this.rounds = new RoundRunner(scenario, undefined, this.hooks, this.executions);
  }

  /** Resolve the option once and build the run's monitor from it (ENG-24, ENG-30). */
  private async build(): Promise<void> {
    const option = this.spec.doomLoop === undefined ? this.scenario.doomLoop : this.spec.doomLoop;
    const printed: string[] = [];
    this.config = await capturingWarnings(printed, () =>
      this.mod.resolveDoomLoopOption(option as Parameters<MonitorModule['resolveDoomLoopOption']>[0]),
    );
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
    if (actions.stopVerdict !== null) blob.stopVerdict = clone(actions.stopVerdict);
    const pending = actions.steer.persisted();
    if (pending !== undefined) blob.pendingSteer = pending;
    return blob;
  }

  /** Write the state; the blob is rebuilt only while detection is on (ENG-115, ENG-28). */
  private save(): void {
    if (this.detection !== undefined && this.actions !== undefined) {
      this.state.doomLoop = this.blob(this.detection.monitor, this.actions);
    }
    this.state.consumedToolChoiceKey = this.toolChoice.consumedKey;
    if (this.scenario.stateAccessor) this.saved = this.state.toJson() as Json;
  }

  private executable(call: Call): boolean {
    const tool = toolNamed(this.scenario, call.name);
    return tool !== undefined && isExecutable(tool);
  }

  private toolKind(call: Call): string | undefined {
    return toolNamed(this.scenario, call.name)?.kind;
  }

  /** Build and send one request; only follow-ups take the latch (ENG-71, ENG-75). */
  private dispatch(kind: DispatchKind, items: readonly JsonObject[]): Response {
    const index = this.dispatches.length;
    const { request: caller, tools } = this.scenario;
    const request: JsonObject = { model: caller.model };
    if (caller.models !== undefined) request.models = [...caller.models];
    if (tools.length > 0) request.tools = tools.map((tool) => ({ type: 'function', name: tool.name }));
    const choice = kind === 'final' ? 'none' : this.toolChoice.offer(index);
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
    if (kind !== 'final' && !replaced) this.toolChoice.sent(choice); // ENG-74, ENG-133
    request.input = clone([...items]);
    const scripted = this.script[this.answered];
    if (scripted === undefined) {
      this.dispatches.push({ index, kind, request: request as Json, responseId: null });
      throw new DispatchFailed(index);
    }
    this.answered += 1;
    const response = new Response(`resp_${this.answered}`, scripted.output);
    this.dispatches.push({ index, kind, request: request as Json, responseId: response.id });
    return response;
  }

  /** Save the response, then its checkpoint: text, then server items (ENG-109, ENG-56). */
  private async takeResponse(response: Response): Promise<void> {
    this.state.messages.push(...response.items());
    this.save();
    await this.detection?.checkResponse(response.output);
  }

  /** End the run (or pause it); `SessionEnd` fires last, once (ENG-99, ENG-130). */
  private finish(response: Response | undefined, reason: string, status: string = COMPLETE): void {
    this.actions?.latch.drop(); // ENG-76
    this.state.status = status;
    this.save();
    if (this.sessionStarted) this.hooks.emit('SessionEnd', { reason });
    this.end = {
      status,
      reason,
      finalResponseId: response?.id ?? null,
      finalText: response === undefined ? null : responseText(response.output),
      stopVerdict: this.stopVerdict(),
    };
  }

  /** Give every call still without output the halt output (ENG-85, ENG-106). */
  private seal(response: Response, outcomes: readonly Outcome[]): void {
    const verdict = this.actions?.stopVerdict ?? null;
    const message = isObject(verdict) && typeof verdict.message === 'string' ? verdict.message : undefined;
    const halt = JSON.stringify({ error: haltSeal(message) });
    const seals = response
      .calls()
      .filter((_, position) => !(outcomes[position]?.answered ?? false))
      .map((call) => functionCallOutput(call.callId, halt));
    if (seals.length > 0) {
      this.state.messages.push(...seals);
      this.save();
    }
  }

  // -- the run --------------------------------------------------------------------

  /** Run to a pause or an end; an exhausted script ends the run, never throws (ENG-20). */
  async execute(): Promise<RunTranscript> {
    await this.build();
    try {
      await this.initialise();
    } catch (error) {
      if (!(error instanceof DispatchFailed)) throw error;
      if (this.sessionStarted) this.hooks.emit('SessionEnd', { reason: 'error' });
      this.end = {
        status: this.state.status,
        reason: 'error',
        finalResponseId: null,
        finalText: null,
        stopVerdict: this.stopVerdict(),
        error: { kind: 'script-exhausted', dispatch: error.index },
      };
    }
    return {
      index: this.index,
      decisionResume: this.spec.decisionResume,
      config: this.config === null ? null : (clone(this.config) as unknown as Json),
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

  /** Restore the monitor, re-queue steer, re-arm a stop on decisions (ENG-117, ENG-118). */
  private async restore(): Promise<void> {
    const blob = this.state.doomLoop;
    if (this.detection === undefined || this.actions === undefined || blob === undefined) return; // ENG-28
    const monitor = this.detection.monitor;
    await capturingWarnings(this.warnings, () => monitor.restore(blob));
    if (!isObject(blob)) return;
    this.actions.steer.requeue(blob.pendingSteer);
    const verdict = blob.stopVerdict;
    if (this.spec.decisionResume && isObject(verdict)) this.actions.stopVerdict = clone(verdict) as Json;
  }

  /** ENG-124. */
  private async initialise(): Promise<void> {
    await this.restore();
    if (this.spec.decisionResume && DECISION_STATUSES.includes(this.state.status)) {
      await this.decisionResume();
      return;
    }
    const resumingClientTools = this.state.status === AWAITING_CLIENT_TOOLS;
    if (this.spec.input !== undefined) {
      this.state.messages.push(...clone(this.spec.input));
      this.toolChoice.reset(); // EOQ-07: a new turn may force again
    }
    this.state.status = IN_PROGRESS;
    if (!resumingClientTools) this.save(); // ENG-119: writes the blob without a stale stopVerdict
    this.hooks.emit('SessionStart', {});
    this.sessionStarted = true;
    this.input = clone(this.state.messages);
    await this.firstResponse(this.dispatch('initial', this.input));
  }

  /** ENG-125 (the stop check comes late here: EQ-01). */
  private async firstResponse(response: Response): Promise<void> {
    await this.takeResponse(response);
    const calls = response.calls();
    if (this.scenario.tools.length === 0 || calls.length === 0) {
      this.finish(response, this.stopArmed ? 'doom_loop' : 'complete');
      return;
    }
    if (await this.approvalPause(response, calls)) return;
    if (!calls.some((call) => this.executable(call))) {
      this.finish(response, 'complete', AWAITING_CLIENT_TOOLS); // ENG-134
      return;
    }
    await this.mainLoop(response);
  }

  /** ENG-126. */
  private async mainLoop(first: Response): Promise<void> {
    let response = first;
    let isFirst = true;
    for (;;) {
      const calls = response.calls();
      if (this.stopArmed) {
        // gate A
        this.seal(response, []);
        this.finish(response, 'doom_loop');
        return;
      }
      const steps = this.scenario.request.stopWhenSteps;
      if (steps !== undefined && this.steps >= steps) {
        await this.stopWhen(response); // ENG-132
        return;
      }
      if (calls.length === 0) {
        this.finish(response, 'complete');
        return;
      }
      if (!isFirst) {
        if (await this.approvalPause(response, calls)) return;
        if (!calls.some((call) => this.executable(call))) {
          this.finish(response, 'complete', AWAITING_CLIENT_TOOLS);
          return;
        }
      }
      isFirst = false;
      const [outcomes, outputs] = await this.normalRound(calls);
      if (this.roundEnded(response, outcomes)) return; // gate B
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

  /** Run a normal round and save its outputs in call order (ENG-126 steps 6-7). */
  private async normalRound(calls: readonly Call[]): Promise<[Outcome[], JsonObject[]]> {
    const outcomes = await this.rounds.run(calls, 'normal');
    this.steps += 1;
    const outputs = outcomes.filter((outcome) => outcome.answered).map((outcome) => outcome.outputItem());
    this.state.messages.push(...clone(outputs));
    this.save();
    return [outcomes, outputs];
  }

  /** After a normal round: a pause, else the stop gate sealing what is unanswered (ENG-126 steps 8-9, ENG-85). */
  private roundEnded(response: Response, outcomes: readonly Outcome[]): boolean {
    if (this.roundPaused(response, outcomes)) return true;
    if (!this.stopArmed) return false;
    this.seal(response, outcomes);
    this.finish(response, 'doom_loop');
    return true;
  }

  /** HITL, then client-tools pauses, both before the stop gate (ENG-126 step 8, EQ-02). */
  private roundPaused(response: Response, outcomes: readonly Outcome[]): boolean {
    const hitl = outcomes.filter((outcome) => outcome.hitl).map((outcome) => clone(outcome.call.item));
    if (hitl.length > 0) {
      this.state.pending = hitl;
      this.finish(response, 'complete', AWAITING_HITL); // ENG-135, ENG-88
      return true;
    }
    if (!outcomes.every((outcome) => outcome.answered)) {
      this.finish(response, 'complete', AWAITING_CLIENT_TOOLS); // ENG-134
      return true;
    }
    return false;
  }

  /** ENG-128. */
  private async stopWhen(response: Response): Promise<void> {
    const calls = response.calls();
    if (!(this.scenario.request.allowFinalResponse && calls.some((call) => this.executable(call)))) {
      this.finish(response, 'complete');
      return;
    }
    const [outcomes, outputs] = await this.normalRound(calls);
    if (this.roundEnded(response, outcomes)) return; // gate C
    this.input.push(...response.items(), ...clone(outputs));
    const final = this.dispatch('final', this.input);
    this.state.messages.push(...final.items()); // not checked (ENG-109)
    this.finish(final, 'complete');
  }

  /** Round (b) and the approval pause (ENG-129). */
  private async approvalPause(response: Response, calls: readonly Call[]): Promise<boolean> {
    if (!calls.some((call) => this.toolKind(call) === 'approval')) return false;
    const gated = calls.filter((call) => ['approval', 'hitl'].includes(this.toolKind(call) ?? ''));
    const auto = calls.filter((call) => this.toolKind(call) === 'executable');
    const outcomes = await this.rounds.run(auto, 'approval-pause');
    this.state.unsent.push(...outcomes.map((outcome) => outcome.unsentResult()));
    this.state.pending = gated.map((call) => clone(call.item));
    this.finish(response, 'complete', AWAITING_APPROVAL);
    return true;
  }

  /** ENG-127, ENG-22. */
  private async decisionResume(): Promise<void> {
    const byId = new Map<string, JsonObject>();
    for (const item of this.state.pending) {
      const id = String(item.callId);
      if (!byId.has(id)) byId.set(id, item);
    }
    const decided = new Set<string>();
    const approved: Call[] = [];
    for (const callId of this.spec.approve) {
      const item = byId.get(callId);
      if (item === undefined) this.warnings.push(`[engine] approval of unknown call ${JSON.stringify(callId)} ignored`);
      else if (!decided.has(callId)) {
        decided.add(callId);
        approved.push(callOf(item));
      }
    }
    const results = (await this.rounds.run(approved, 'approved')).map((outcome) => outcome.unsentResult());
    for (const callId of this.spec.reject) {
      const item = byId.get(callId);
      if (item === undefined) this.warnings.push(`[engine] rejection of unknown call ${JSON.stringify(callId)} ignored`);
      else if (!decided.has(callId)) {
        decided.add(callId);
        results.push({ callId, name: item.name ?? null, output: null, error: REJECTED_BY_USER });
      }
    }
    this.state.unsent.push(...results);
    this.state.pending = this.state.pending.filter((item) => !decided.has(String(item.callId)));
    if (this.state.pending.length > 0) {
      // still awaiting a decision: pause again, nothing injected
      this.save();
      this.end = { status: this.state.status, reason: 'complete', finalResponseId: null, finalText: null, stopVerdict: this.stopVerdict() };
      return;
    }
    this.state.status = IN_PROGRESS;
    if (this.stopArmed) {
      // gate D
      this.toolChoice.reset();
      this.save();
      this.end = { status: IN_PROGRESS, reason: 'doom_loop', finalResponseId: null, finalText: null, stopVerdict: this.stopVerdict() };
      return;
    }
    this.save();
    this.state.messages.push(...this.state.unsent.map(unsentOutputItem));
    this.state.unsent = [];
    this.input = clone(this.state.messages);
    await this.firstResponse(this.dispatch('resume', this.input));
  }
}
