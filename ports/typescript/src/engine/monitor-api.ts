/**
 * The monitor module the engine drives: the public API of the SDK's doom-loop
 * module only (the same exports the harness loads), so the engine runs over
 * this port or over any SDK-compatible module (ENG-14).
 */

import type * as DoomLoop from '../doom-loop.js';

export type MonitorModule = Pick<
  typeof DoomLoop,
  'resolveDoomLoopOption' | 'resolveLoopKeyMaterial' | 'canonicalizeKeyMaterial' | 'DoomLoopMonitor'
>;
export type Monitor = InstanceType<MonitorModule['DoomLoopMonitor']>;
export type ResolvedConfig = DoomLoop.ResolvedDoomLoopConfig;
export type Verdict = DoomLoop.DoomLoopVerdict;
export type CallRecord = DoomLoop.DoomLoopCallRecord;
export type LoopKeyResolution = DoomLoop.LoopKeyResolution;
export type DetectorKind = 'tool-fingerprint' | 'server-tool-fingerprint';

/** The ladder's rungs, weakest first (LAD-01). */
export const RUNGS: readonly string[] = ['observe', 'steer', 'escalate', 'block', 'stop'];

/** The text of one `console.warn` call, its arguments joined by a space. */
function warningText(args: readonly unknown[]): string {
  return args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(' ');
}

/**
 * Run `body` with `console.warn` captured: the monitor reports its logs only
 * there (MON-08, STATE-13, CFG-26). Each captured call becomes one line of `into`.
 */
export async function capturingWarnings<T>(into: string[], body: () => T | Promise<T>): Promise<T> {
  const original = console.warn;
  console.warn = (...args: unknown[]): void => {
    into.push(warningText(args));
  };
  try {
    return await body();
  } finally {
    console.warn = original;
  }
}
