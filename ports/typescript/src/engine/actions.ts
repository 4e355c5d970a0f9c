/** Turning a verdict into its applied action and side effect (ENG-61 … ENG-70, ENG-82, ENG-89 … ENG-98). */

import { EscalationLatch } from './escalation.js';
import type { Hooks } from './hooks.js';
import { clone, isObject, type Json, type JsonObject } from './json.js';
import type { Monitor, Verdict } from './monitor-api.js';
import { SteerQueue } from './steer.js';
import { escalationNotice } from './texts.js';

/**
 * The `DoomLoopDetected` payload: the verdict, the call's input when it is an
 * object, message last (ENG-89, ENG-153). The input is copied member by member
 * as JS assigns them, so a top-level `__proto__` member is left out.
 */
function detectedPayload(verdict: Verdict, toolInput: unknown): JsonObject {
  const payload: JsonObject = clone({ ...verdict }) as JsonObject;
  if (!isObject(toolInput)) return payload;
  const copied = clone(toolInput);
  delete copied.__proto__;
  const { message, ...rest } = payload;
  return { ...rest, toolInput: copied, message };
}

/** The run's steer queue, escalation latch and armed stop verdict. */
export class Actions {
  readonly steer = new SteerQueue();
  readonly latch = new EscalationLatch();
  /** The armed verdict as JSON (ENG-82), or null. */
  stopVerdict: Json = null;

  constructor(
    private readonly monitor: Monitor,
    private readonly hooks: Hooks,
  ) {}

  get stopArmed(): boolean {
    return this.stopVerdict !== null;
  }

  /**
   * Hook, resolve and apply one non-duplicate verdict; return the applied
   * action. ENG-61: hook first, then the side effect; ENG-93 … ENG-98: the action.
   */
  apply(verdict: Verdict, toolInput: unknown = undefined): string {
    const payload = detectedPayload(verdict, toolInput);
    let action: string = this.hooks.overrideFor(payload) ?? verdict.action;
    if (verdict.detector !== 'tool-fingerprint' && action === 'block') action = 'observe'; // ENG-94
    if (action === 'escalate' && !this.monitor.canEscalate()) action = 'observe'; // ENG-95
    this.hooks.detected(payload, action);
    if (action === 'steer') this.steer.add(verdict.message); // ENG-63
    else if (action === 'escalate' && this.latch.arm(verdict)) this.steer.add(escalationNotice(verdict.message)); // ENG-70
    else if (action === 'stop') this.stopVerdict = clone({ ...verdict }) as Json; // ENG-82: unchanged
    return action;
  }
}
