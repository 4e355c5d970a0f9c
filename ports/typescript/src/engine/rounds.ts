/**
 * Running one batch of calls: checkpoint, then a refusal or the body (ENG-44,
 * ENG-78 … ENG-80). The same code serves the three kinds of round (ENG-31);
 * only what an unanswerable call becomes differs.
 */

import { blocks, type Detection, PROCEED } from './detection.js';
import { OutsideDomain } from './errors.js';
import type { Hooks } from './hooks.js';
import { type Call, Malformed } from './identity.js';
import { clone, isObject, type Json, type JsonObject } from './json.js';
import { isExecutable, type Scenario, type ToolSpec, toolNamed } from './scenario.js';
import { blockFallback, malformedArguments, NOT_EXECUTABLE } from './texts.js';
import type { Execution } from './transcript.js';

export type BatchKind = 'normal' | 'approval-pause' | 'approved';

/**
 * What became of one call of a batch: `output` is the body's result when it
 * ran; `error` the error text of a blocked, malformed, failed or refused call;
 * `answered` is false for a call left without output (manual, unknown, or HITL pending).
 */
export class Outcome {
  constructor(
    readonly call: Call,
    readonly output: unknown = undefined,
    readonly error: string | undefined = undefined,
    readonly answered = true,
    readonly hitl = false,
  ) {}

  static failed(call: Call, error: string): Outcome {
    return new Outcome(call, undefined, error);
  }

  static unanswered(call: Call, hitl = false): Outcome {
    return new Outcome(call, undefined, undefined, false, hitl);
  }

  /** The `function_call_output` item the model receives (ENG-79, ENG-105). */
  outputItem(): JsonObject {
    return functionCallOutput(this.call.callId, JSON.stringify(this.error !== undefined ? { error: this.error } : (this.output ?? null)));
  }

  /** The unsent result of an approval batch (ENG-80). */
  unsentResult(): JsonObject {
    const result: JsonObject = {
      callId: this.call.callId,
      name: this.call.name,
      output: this.error !== undefined ? null : clone(this.output),
    };
    if (this.error !== undefined) result.error = this.error;
    return result;
  }
}

/** The output item shape shared by results, blocks and seals (ENG-79, ENG-85). */
export function functionCallOutput(callId: string, output: string): JsonObject {
  return { type: 'function_call_output', id: `output_${callId}`, callId, output };
}

/**
 * An unsent result as the model receives it when it is folded (ENG-155, ENG-175):
 * `{"error": E}` when its `error` is truthy, else its `output`, encoded; without an
 * `output` member the item has none either (`JSON.stringify(undefined)` gives nothing).
 */
export function unsentOutputItem(result: JsonObject): JsonObject {
  const callId = String(result.callId);
  if (result.error) return functionCallOutput(callId, JSON.stringify({ error: result.error }));
  if (Object.prototype.hasOwnProperty.call(result, 'output')) {
    return functionCallOutput(callId, JSON.stringify(result.output));
  }
  return { type: 'function_call_output', id: `output_${callId}`, callId };
}

/**
 * The calls of a round whose call id no answered outcome of the round has
 * (ENG-150: by id, so a call sharing its id with an answered call counts as answered).
 */
export function withoutOutput(calls: readonly Call[], outcomes: readonly Outcome[]): Call[] {
  const answered = new Set(outcomes.filter((outcome) => outcome.answered).map((outcome) => outcome.call.callId));
  return calls.filter((call) => !answered.has(call.callId));
}

/**
 * Runs batches for one run; bodies and hooks are recorded in order. The calls
 * of a normal or approval-pause batch run concurrently in the SDK (ENG-138):
 * one after another is one of the orders that allows, and transcripts are
 * compared by the partial order (ENG-139).
 */
export class RoundRunner {
  constructor(
    private readonly scenario: Scenario,
    private readonly detection: Detection | undefined,
    private readonly hooks: Hooks,
    private readonly executions: Execution[],
  ) {}

  /** Open a round (when detection is on) and run its calls in order (ENG-31, ENG-52). */
  async run(calls: readonly Call[], kind: BatchKind): Promise<Outcome[]> {
    if (this.detection !== undefined) await this.detection.openRound(calls);
    const outcomes: Outcome[] = [];
    for (const call of calls) outcomes.push(await this.one(call, kind));
    return outcomes;
  }

  private async one(call: Call, kind: BatchKind): Promise<Outcome> {
    const tool = toolNamed(this.scenario, call.name);
    if (tool === undefined || !isExecutable(tool)) {
      return kind === 'approved' ? Outcome.failed(call, NOT_EXECUTABLE) : Outcome.unanswered(call); // ENG-163, ENG-44
    }
    if (call.arguments instanceof Malformed) {
      await this.detection?.checkMalformed(call, call.arguments.raw); // ENG-45
      return Outcome.failed(call, malformedArguments(call.name, call.arguments.raw));
    }
    const decision = this.detection === undefined ? PROCEED : await this.detection.checkCall(call);
    if (blocks(decision)) return Outcome.failed(call, decision.message || blockFallback(call.name)); // ENG-78, ENG-83
    return this.execute(call, tool, kind);
  }

  /**
   * `PreToolUse`, then the HITL pause or the body and its `PostToolUse` or
   * `PostToolUseFailure` (ENG-140, ENG-165, ENG-21). Arguments that are not an
   * object (nor null) fail the hook payload schema: no tool hook, the body still runs (ENG-140).
   */
  private execute(call: Call, tool: ToolSpec, kind: BatchKind): Outcome {
    const payload = { toolName: call.name, callId: call.callId };
    const hooked = call.arguments === null || isObject(call.arguments);
    if (hooked) this.hooks.emit('PreToolUse', payload);
    if (tool.kind === 'hitl') {
      if (kind === 'normal') return Outcome.unanswered(call, true); // ENG-165: the handler pauses
      if (tool.result === null) {
        // ENG-151: the SDK reads the null result as "pause again"
        throw new OutsideDomain(`approved call ${JSON.stringify(call.callId)} of a hitl tool whose body returns null`);
      }
    }
    this.executions.push({
      callId: call.callId,
      name: call.name,
      arguments: clone(call.arguments) as Json,
      round: this.detection?.round ?? 0,
    });
    if (tool.fails !== undefined) {
      if (hooked) this.hooks.emit('PostToolUseFailure', { ...payload, error: tool.fails });
      return Outcome.failed(call, tool.fails);
    }
    if (hooked) this.hooks.emit('PostToolUse', payload);
    return new Outcome(call, tool.result);
  }
}
