/**
 * One SDK `HooksManager` per run: collectors that record the lifecycle events
 * the transcript holds, reduced to what it records (ENG-89 … ENG-99, ENG-140),
 * then the scenario's `DoomLoopDetected` handlers with their fixed outcomes.
 *
 * | hook | recorded payload |
 * | --- | --- |
 * | `SessionStart` | `{}` |
 * | `SessionEnd` | `{reason}` (the SDK's `totalUsage` is left out) |
 * | `PreToolUse`, `PostToolUse` | `{toolName, callId}` |
 * | `PostToolUseFailure` | `{toolName, callId, error}` (the error's message) |
 * | `Stop` | as the SDK gives it |
 * | `DoomLoopDetected` | as the SDK gives it, with `appliedAction` (ENG-98) |
 *
 * `PostModelCall` is not an event of the transcript: its `turnType` gives the
 * kind of each answered dispatch.
 */

import { clone, hasOwn, isObject, type Json, jsonEqual, viaJson } from '../engine/json.js';
import type { HandlerSpec, Scenario } from '../engine/scenario.js';
import type { HookEvent } from '../engine/transcript.js';

import { context } from './observe.js';
import type { DispatchKind, RunRecord } from './record.js';
import type { HookEntry, SdkEngineModule, SdkHooksManager } from './sdk-api.js';

/** `PostModelCall.turnType` as the kit's dispatch kind. */
const TURN_KINDS: Readonly<Record<string, DispatchKind>> = {
  initial: 'initial',
  resume: 'resume',
  tool_round: 'follow-up',
  final: 'final',
  retry: 'retry',
};

const payloadOf = (value: unknown): Record<string, unknown> => (isObject(value) ? value : {});

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The scenario's handler as a `HooksManager` entry (`tool` is its matcher, `when` its filter). */
function scenarioHandler(handler: HandlerSpec): HookEntry {
  const entry: HookEntry = {
    handler: () => {
      if (handler.fails !== undefined) throw new Error(handler.fails);
      return clone(handler.returns);
    },
  };
  if (handler.tool !== undefined) entry.matcher = handler.tool;
  const when = Object.entries(handler.when);
  if (when.length > 0) {
    entry.filter = (payload) =>
      isObject(payload) && when.every(([name, value]) => hasOwn(payload, name) && jsonEqual(viaJson(payload[name]), value));
  }
  return entry;
}

/** The run's `HooksManager`: collectors into `run`, then the scenario's handlers. */
export function sdkHooks(sdk: SdkEngineModule, scenario: Scenario, run: RunRecord): SdkHooksManager {
  const hooks = new sdk.HooksManager();
  const record = (hook: string, payload: Json): HookEvent => {
    const event: HookEvent = { hook, payload };
    run.events.push(event);
    return event;
  };
  const collect = (hook: string, shape: (payload: Record<string, unknown>) => Json): void => {
    hooks.on(hook, { handler: (payload) => void record(hook, shape(payloadOf(payload))) });
  };
  const toolEvent = (payload: Record<string, unknown>): { toolName: Json; callId: Json } => ({
    toolName: viaJson(payload.toolName),
    callId: context().callId ?? null,
  });
  collect('SessionStart', () => ({}));
  collect('SessionEnd', (payload) => {
    if (run.reason === undefined && typeof payload.reason === 'string') run.reason = payload.reason;
    return { reason: viaJson(payload.reason) };
  });
  collect('PreToolUse', toolEvent);
  collect('PostToolUse', toolEvent);
  collect('PostToolUseFailure', (payload) => ({ ...toolEvent(payload), error: errorMessage(payload.error) }));
  collect('Stop', (payload) => viaJson(payload));
  hooks.on('DoomLoopDetected', {
    handler: (payload) => {
      const event = record('DoomLoopDetected', viaJson(payload));
      const slot = context().verdict;
      if (slot !== undefined) slot.event = event;
    },
  });
  hooks.on('PostModelCall', {
    handler: (payload) => {
      const { responseId, turnType } = payloadOf(payload);
      const kind = typeof turnType === 'string' ? TURN_KINDS[turnType] : undefined;
      if (typeof responseId === 'string' && kind !== undefined) run.turnTypes.set(responseId, kind);
    },
  });
  for (const handler of scenario.hooks) hooks.on('DoomLoopDetected', scenarioHandler(handler));
  return hooks;
}
