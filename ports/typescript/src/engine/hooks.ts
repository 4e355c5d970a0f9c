/** Hook emission and `DoomLoopDetected` handler outcomes (ENG-89 … ENG-97, ENG-99, ENG-140). */

import { clone, hasOwn, isObject, jsonEqual, type Json, type JsonObject } from './json.js';
import { RUNGS } from './monitor-api.js';
import type { HandlerSpec } from './scenario.js';
import type { HookEvent } from './transcript.js';

/** Records every emission in order and runs the scenario's fixed handlers. */
export class Hooks {
  readonly events: HookEvent[] = [];

  constructor(
    private readonly handlers: readonly HandlerSpec[],
    private readonly warnings: string[],
  ) {}

  /** A lifecycle hook (`SessionStart`, `PreToolUse`, `SessionEnd`, …). */
  emit(hook: string, payload: JsonObject): void {
    this.events.push({ hook, payload: clone(payload) as Json });
  }

  /** Run every matching handler; the last valid override wins (ENG-91, ENG-93, ENG-97). */
  overrideFor(payload: JsonObject): string | undefined {
    let override: string | undefined;
    for (const handler of this.handlers) {
      if (handler.tool !== undefined && handler.tool !== payload.toolName) continue; // ENG-91: fails closed
      const matches = Object.entries(handler.when).every(
        ([name, value]) => hasOwn(payload, name) && jsonEqual(payload[name], value),
      );
      if (!matches) continue;
      if (handler.fails !== undefined) {
        this.warnings.push(`[hooks] DoomLoopDetected handler failed: ${handler.fails}`);
        continue;
      }
      const result = handler.returns;
      if (result === undefined) continue;
      const action = isObject(result) ? result.overrideAction : 0;
      if (action === undefined) continue;
      if (typeof action !== 'string' || !RUNGS.includes(action)) {
        this.warnings.push(`[hooks] DoomLoopDetected result dropped: ${JSON.stringify(result)}`);
        continue;
      }
      override = action;
    }
    return override;
  }

  /** Record a `DoomLoopDetected` emission with the action finally applied (ENG-98). */
  detected(payload: JsonObject, appliedAction: string): void {
    this.events.push({ hook: 'DoomLoopDetected', payload: clone(payload) as Json, appliedAction });
  }
}
