/**
 * Feeding the monitor: rounds, declarations, checkpoints and response checks
 * (ENG-31 … ENG-60, ENG-109 … ENG-113). One {@link Detection} exists per run
 * with detection on; with detection off the run has none (ENG-27).
 */

import type { Actions } from './actions.js';
import { type Call, type Identity, IdentityResolver, Malformed, ResolutionError, retryIdentity } from './identity.js';
import { defineMember, type JsonObject } from './json.js';
import { type CallRecord, capturingWarnings, type DetectorKind, type Monitor } from './monitor-api.js';
import { isExecutable, type Scenario, toolNamed } from './scenario.js';

/** Members that are not part of a server item's identity (ENG-57). */
const SERVER_ITEM_EXCLUDED: readonly string[] = ['id', 'type', 'status', 'output', 'result', 'results', 'error'];
/** Output item types that are not server-tool items (ENG-56). */
const NOT_SERVER_ITEMS: readonly string[] = ['message', 'reasoning', 'function_call'];

/** The applied action for a call and the verdict message (ENG-53). */
export interface Decision {
  action: string;
  message?: string;
}

export const PROCEED: Decision = { action: 'proceed' };

/** Block and stop both refuse the call at a client checkpoint (ENG-79, ENG-83). */
export const blocks = (decision: Decision): boolean => decision.action === 'block' || decision.action === 'stop';

/** Marks a call id shared by two calls of a round: its identity is not cached (ENG-152). */
const DUPLICATE_ID = Symbol('duplicate call id');

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The texts of a message's `output_text` parts, in order; the scenario reader made
 * sure that `content` is a list of objects and every such text a string (ENG-23, ENG-177).
 */
function outputTexts(message: JsonObject): string[] {
  const parts = message.content as JsonObject[];
  return parts.filter((part) => part.type === 'output_text').map((part) => part.text as string);
}

/**
 * The response's text: the `output_text` parts of its first `message` item,
 * joined; `''` when that item has none or there is no message item (ENG-157: a
 * scripted response carries no `outputText` of its own).
 */
export function responseText(output: readonly JsonObject[]): string {
  const message = output.find((item) => item.type === 'message');
  return message === undefined ? '' : outputTexts(message).join('');
}

/** Every member but the excluded ones; `__proto__` is data (ENG-57). */
export function serverIdentity(item: JsonObject): JsonObject {
  const identity: JsonObject = {};
  for (const [name, value] of Object.entries(item)) {
    if (!SERVER_ITEM_EXCLUDED.includes(name)) defineMember(identity, name, value);
  }
  return identity;
}

/** The monitor with the engine's round counter, decision table and identity cache. */
export class Detection {
  /** The engine's round counter (ENG-32). */
  round = 0;
  private readonly decisions = new Map<string, Decision>();
  private readonly cache = new Map<string, Identity | typeof DUPLICATE_ID>();

  constructor(
    private readonly scenario: Scenario,
    readonly monitor: Monitor,
    private readonly actions: Actions,
    private readonly identity: IdentityResolver,
    private readonly warnings: string[],
  ) {}

  /**
   * Open a round, clear its tables, declare its calls (ENG-32, ENG-33, ENG-35 … ENG-43).
   * Only calls whose identity resolved take part in the duplicate-id step
   * (ENG-152): a malformed, manual, unknown or unresolvable call sharing
   * an id with a resolved call leaves that call's cache entry in place.
   */
  async openRound(batch: readonly Call[]): Promise<void> {
    this.round += 1;
    this.decisions.clear();
    this.cache.clear();
    const declared: { toolName: string; keyMaterial: unknown }[] = [];
    const resolved: [Call, Identity][] = [];
    for (const call of batch) {
      const tool = toolNamed(this.scenario, call.name);
      if (tool === undefined || !isExecutable(tool)) continue; // ENG-36
      if (call.arguments instanceof Malformed) {
        declared.push({ toolName: call.name, keyMaterial: call.arguments.raw }); // ENG-37
        continue;
      }
      let identity: Identity;
      try {
        identity = this.identity.resolve(call);
      } catch (error) {
        if (!(error instanceof ResolutionError)) throw error;
        this.warnings.push(
          `[DoomLoop] could not resolve loop identity for "${call.name}" while declaring the round; ` +
            `excluding it from the round set: ${error.message}`,
        ); // ENG-40
        continue;
      }
      resolved.push([call, identity]);
      if (identity.resolution.kind !== 'exempt') {
        declared.push({ toolName: call.name, keyMaterial: identity.resolution.keyMaterial }); // ENG-39
      }
    }
    const idCounts = new Map<string, number>();
    for (const [call] of resolved) idCounts.set(call.callId, (idCounts.get(call.callId) ?? 0) + 1);
    for (const [call, identity] of resolved) {
      this.cache.set(call.callId, (idCounts.get(call.callId) ?? 0) > 1 ? DUPLICATE_ID : identity); // ENG-41, ENG-152
    }
    await capturingWarnings(this.warnings, () => this.monitor.declareRound(this.round, declared)); // ENG-43
  }

  private async recordOnce(toolName: string, keyMaterial: unknown, allowBlock: boolean, detector: DetectorKind): Promise<CallRecord> {
    return this.monitor.recordToolCall(toolName, keyMaterial, this.round, { allowBlock, detector });
  }

  /** Record through the fallback chain; undefined when detection is skipped (ENG-50). */
  private async record(
    toolName: string,
    keyMaterial: unknown,
    retry: unknown,
    allowBlock: boolean,
    detector: DetectorKind,
  ): Promise<CallRecord | undefined> {
    try {
      return await this.recordOnce(toolName, keyMaterial, allowBlock, detector);
    } catch (error) {
      if (retry === undefined) {
        this.warnings.push(
          `[DoomLoop] could not fingerprint call to "${toolName}"; skipping detection for this call: ${describe(error)}`,
        );
        return undefined;
      }
      this.warnings.push(
        `[DoomLoop] could not fingerprint call to "${toolName}"; falling back to full arguments: ${describe(error)}`,
      );
    }
    try {
      return await this.recordOnce(toolName, retry, allowBlock, detector);
    } catch (error) {
      this.warnings.push(
        `[DoomLoop] fallback identity for "${toolName}" also unhashable; skipping detection for this call: ${describe(error)}`,
      );
      return undefined;
    }
  }

  /** Reuse a duplicate's decision, or apply a new verdict (ENG-53, ENG-54, ENG-61). */
  private decide(toolName: string, record: CallRecord | undefined, toolInput: unknown): Decision {
    if (record === undefined) return PROCEED;
    const key = `${toolName}\n${record.fingerprint}`;
    if (record.duplicateInRound) return this.decisions.get(key) ?? PROCEED;
    let decision = PROCEED;
    if (record.verdict !== undefined) {
      decision = { action: this.actions.apply(record.verdict, toolInput), message: record.verdict.message };
    }
    this.decisions.set(key, decision);
    return decision;
  }

  /** The malformed path: record the raw string, no retry identity (ENG-45). */
  async checkMalformed(call: Call, raw: string): Promise<Decision> {
    const record = await this.record(call.name, raw, undefined, true, 'tool-fingerprint');
    return this.decide(call.name, record, undefined);
  }

  /** The per-call checkpoint of a parsed call (ENG-44, ENG-46 … ENG-49). */
  async checkCall(call: Call): Promise<Decision> {
    const cached = this.cache.get(call.callId);
    let identity: Identity;
    if (cached !== undefined && cached !== DUPLICATE_ID) {
      identity = cached;
    } else {
      try {
        identity = this.identity.resolve(call);
      } catch (error) {
        if (!(error instanceof ResolutionError)) throw error;
        this.warnings.push(
          `[DoomLoop] could not resolve loop identity for "${call.name}"; skipping detection for this call: ${error.message}`,
        );
        return PROCEED;
      }
    }
    const { resolution } = identity;
    if (resolution.kind === 'exempt') return PROCEED; // ENG-47
    if (resolution.kind === 'fallback') this.warnings.push(`[DoomLoop] tool "${call.name}": ${resolution.warning}`); // ENG-48
    const record = await this.record(call.name, resolution.keyMaterial, retryIdentity(identity), true, 'tool-fingerprint');
    return this.decide(call.name, record, call.arguments);
  }

  /** The response checkpoint: text, then server items in order (ENG-109, ENG-56 … ENG-58). */
  async checkResponse(output: readonly JsonObject[]): Promise<void> {
    let verdict;
    try {
      verdict = await this.monitor.recordAssistantText(responseText(output));
    } catch (error) {
      this.warnings.push(`[DoomLoop] text checkpoint failed; skipping for this response: ${describe(error)}`); // ENG-111
      verdict = undefined;
    }
    if (verdict !== undefined) this.actions.apply(verdict); // ENG-112
    for (const item of output) {
      const kind = item.type;
      if (typeof kind !== 'string' || NOT_SERVER_ITEMS.includes(kind)) continue;
      const identity = serverIdentity(item);
      if (Object.keys(identity).length === 0) continue;
      const toolName = `server:${kind}`;
      const record = await this.record(toolName, identity, undefined, false, 'server-tool-fingerprint');
      this.decide(toolName, record, undefined);
    }
  }
}
