/**
 * What the harness reads from the SDK beyond its public API, and how.
 *
 * The public API shows most of a run: the requests (the transport), the
 * lifecycle hooks, the kind of every answered dispatch (`PostModelCall`'s
 * `turnType`), the tool bodies (their `toolCall` context), the state (the
 * accessor) and the getters. Four facts it does not show, so the harness wraps
 * methods of `ModelResult.prototype`, each running the original unchanged
 * inside an `AsyncLocalStorage` context (observation only):
 *
 * - the kind of a dispatch that got no response (ENG-20: no `PostModelCall`
 *   fires for it): the SDK method that sent it ({@link DISPATCH_SITES});
 * - which call a `PreToolUse` / `PostToolUse` / `PostToolUseFailure` event
 *   belongs to (their payloads carry no call id): `runToolWithHooks`;
 * - the action applied after the `DoomLoopDetected` handlers (ENG-98):
 *   what `applyDoomLoopVerdict` resolves to;
 * - the reason a run reached when no `SessionEnd` hook fires (a run without
 *   `SessionStart`, such as a decision resume; ENG-141): `emitSessionEndOnce`.
 *
 * Two instance members are read as well (`run.ts`): the run monitor's resolved
 * configuration (`doomLoopMonitor.config`) and the round a tool body runs in
 * (`doomLoopRound`, ENG-140).
 */

import { AsyncLocalStorage } from 'node:async_hooks';

import type { HookEvent } from '../engine/transcript.js';

import { currentRun, type DispatchKind } from './record.js';
import { missingFunctions, SdkBuildError } from './sdk-api.js';

/** The SDK methods that send a request, and the dispatch kind each sends. */
export const DISPATCH_SITES: Readonly<Record<string, DispatchKind>> = {
  initStream: 'initial',
  continueWithUnsentResults: 'resume',
  makeFollowupRequest: 'follow-up',
  makeFinalResponseRequest: 'final',
  retryCurrentRequest: 'retry',
};

/** Every `ModelResult.prototype` method the harness wraps. */
export const OBSERVED_METHODS: readonly string[] = [
  ...Object.keys(DISPATCH_SITES),
  'runToolWithHooks',
  'applyDoomLoopVerdict',
  'emitSessionEndOnce',
];

/** Where a `DoomLoopDetected` event lands, so that the applied action can be added to it. */
export interface VerdictSlot {
  event: HookEvent | undefined;
}

/** The context an SDK call runs in. */
interface Context {
  site?: DispatchKind;
  callId?: string;
  verdict?: VerdictSlot;
}

const storage = new AsyncLocalStorage<Context>();

/** The context of the code running now (empty outside any wrapped method). */
export function context(): Context {
  return storage.getStore() ?? {};
}

function within<T>(extra: Context, body: () => T): T {
  return storage.run({ ...context(), ...extra }, body);
}

type Method = (this: unknown, ...args: unknown[]) => unknown;
type Wrapper = (self: unknown, original: Method, args: unknown[]) => unknown;

const INSTRUMENTED = Symbol.for('doomloop-kit.sdk-engine.instrumented');

function wrap(proto: Record<string | symbol, unknown>, name: string, wrapper: Wrapper): void {
  const original = proto[name] as Method;
  proto[name] = function wrapped(this: unknown, ...args: unknown[]): unknown {
    return wrapper(this, original, args);
  };
}

function callIdOf(toolCall: unknown): string | undefined {
  const id = (toolCall as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Wrap the observed methods of `ModelResult.prototype` (once per prototype).
 * Throws {@link SdkBuildError} naming the methods this SDK build lacks.
 */
export function instrument(proto: object): void {
  const target = proto as Record<string | symbol, unknown>;
  if (target[INSTRUMENTED] === true) return;
  const missing = missingFunctions(proto, OBSERVED_METHODS);
  if (missing.length > 0) {
    throw new SdkBuildError(`ModelResult.prototype lacks ${missing.join(', ')}: the harness reads dispatch kinds, ` +
      'the call of a tool hook, the applied action and the reason a run reached through them');
  }
  for (const [name, site] of Object.entries(DISPATCH_SITES)) {
    wrap(target, name, (self, original, args) => within({ site }, () => original.apply(self, args)));
  }
  wrap(target, 'runToolWithHooks', (self, original, args) => {
    const callId = callIdOf(args[1]);
    return within(callId === undefined ? {} : { callId }, () => original.apply(self, args));
  });
  wrap(target, 'applyDoomLoopVerdict', async (self, original, args) => {
    const verdict: VerdictSlot = { event: undefined };
    const action = await within({ verdict }, () => original.apply(self, args));
    if (verdict.event !== undefined) verdict.event.appliedAction = String(action);
    else currentRun()?.notes.push(`DoomLoopDetected was emitted but reached no handler (applied ${String(action)}): ${JSON.stringify(args[0])}`);
    return action;
  });
  wrap(target, 'emitSessionEndOnce', (self, original, args) => {
    const run = currentRun();
    if (run !== undefined && run.reason === undefined && typeof args[0] === 'string') run.reason = args[0];
    return original.apply(self, args);
  });
  target[INSTRUMENTED] = true;
}
