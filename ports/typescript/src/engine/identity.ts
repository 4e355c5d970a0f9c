/**
 * A call's arguments and loop identity (ENG-37 … ENG-41, ENG-49, ENG-137, ENG-152, ENG-154).
 *
 * Arguments are trimmed and parsed with `JSON.parse`; a raw string that does
 * not parse, or parses to a string, makes the call *malformed*. The identity
 * of a parsed call is its `loopKey` resolution, made by the monitor module's resolver.
 */

import { isObject, type JsonObject } from './json.js';
import { buildLoopKey, type Invocations, ResolutionFault } from './loop-key-functions.js';
import type { LoopKeyResolution, MonitorModule } from './monitor-api.js';
import type { ToolSpec } from './scenario.js';

/** Resolving a call's identity failed; the engine guards both call sites (ENG-40, ENG-46). */
export class ResolutionError extends Error {}

/**
 * Malformed arguments: `raw` is the identity and the text quoted back to the
 * model, the raw text when it did not parse, the parsed string when it parsed
 * to one (ENG-37, ENG-137).
 */
export class Malformed {
  constructor(readonly raw: string) {}
}

/**
 * The parsed arguments, or {@link Malformed} (ENG-37, ENG-38, ENG-137): the
 * text is trimmed with `String.prototype.trim` first, and empty text parses as `{}`.
 */
export function parseArguments(raw: string): unknown {
  const text = raw.trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return new Malformed(raw);
  }
  return typeof parsed === 'string' ? new Malformed(parsed) : parsed;
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
    // ENG-154: a field list tests its names with JS `in`, which finds an
    // array's index names and `length` and throws on a number or a boolean.
    if (Array.isArray(loopKey) && loopKey.length > 0 && !isObject(args) && !Array.isArray(args)) {
      throw new ResolutionError("cannot use 'in' to look up loopKey fields in a primitive");
    }
    return { resolution: this.mod.resolveLoopKeyMaterial(loopKey, args as JsonObject), args };
  }
}

/** The full arguments, unless the key material already is them (ENG-49). */
export function retryIdentity(identity: Identity): unknown {
  const { resolution, args } = identity;
  return resolution.kind !== 'exempt' && resolution.keyMaterial === args ? undefined : args;
}
