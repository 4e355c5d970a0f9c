/**
 * A call's arguments and loop identity (ENG-37 … ENG-42, ENG-49, EOQ-04).
 *
 * Arguments are parsed with `JSON.parse`; a raw string that does not parse
 * makes the call *malformed*. The identity of a parsed call is its `loopKey`
 * resolution, made by the monitor module's resolver.
 */

import { isObject, type JsonObject } from './json.js';
import { buildLoopKey, type Invocations, ResolutionFault } from './loop-key-functions.js';
import type { LoopKeyResolution, MonitorModule } from './monitor-api.js';
import type { ToolSpec } from './scenario.js';

/** Resolving a call's identity failed; the engine guards both call sites (ENG-40, ENG-46). */
export class ResolutionError extends Error {}

/** Arguments that did not parse as JSON: the raw string is the identity (ENG-37). */
export class Malformed {
  constructor(readonly raw: string) {}
}

/** The parsed arguments, or {@link Malformed}; empty or blank text parses as `{}` (ENG-37, ENG-38). */
export function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return new Malformed(raw);
  }
}

/** One `function_call` item with its arguments parsed. */
export interface Call {
  callId: string;
  name: string;
  raw: string;
  arguments: unknown;
  /** The `function_call` item as the model emitted it. */
  item: JsonObject;
}

/**
 * A call from its item. Scripted calls are checked by the scenario reader; a
 * persisted pending call missing a member reads it as empty (ENG-23).
 */
export function callOf(item: JsonObject): Call {
  const text = (value: unknown): string => (value === undefined ? '' : String(value));
  const raw = text(item.arguments);
  return { callId: text(item.callId), name: text(item.name), raw, arguments: parseArguments(raw), item };
}

/** A resolution and the value handed to the resolver. */
export interface Identity {
  resolution: LoopKeyResolution;
  args: unknown;
}

/** Resolves `loopKey` declarations, counting function invocations (ENG-39, ENG-41). */
export class IdentityResolver {
  readonly invocations: Invocations = new Map();
  private readonly loopKeys = new Map<string, unknown>();

  constructor(
    private readonly mod: MonitorModule,
    tools: readonly ToolSpec[],
  ) {
    for (const tool of tools) this.loopKeys.set(tool.name, buildLoopKey(tool.loopKey, tool.name, this.invocations));
  }

  /** The identity of a parsed call; throws {@link ResolutionError} when resolution fails (ENG-40). */
  resolve(call: Call): Identity {
    const loopKey = this.loopKeys.get(call.name);
    if (loopKey instanceof ResolutionFault) throw new ResolutionError(loopKey.message);
    const args = call.arguments === null ? {} : call.arguments; // ENG-39
    if (!isObject(args)) {
      // EOQ-04: no loopKey keys on the value itself; a field list cannot look into it.
      if (loopKey === undefined) return { resolution: { kind: 'key', keyMaterial: args }, args };
      if (Array.isArray(loopKey)) throw new ResolutionError('cannot look up loopKey fields in a non-object value');
    }
    return { resolution: this.mod.resolveLoopKeyMaterial(loopKey, args as JsonObject), args };
  }
}

/** The full arguments, unless the key material already is them (ENG-49). */
export function retryIdentity(identity: Identity): unknown {
  const { resolution, args } = identity;
  return resolution.kind !== 'exempt' && resolution.keyMaterial === args ? undefined : args;
}
