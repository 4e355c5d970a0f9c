/**
 * The kit's persisted state and the SDK's `ConversationState`, each in terms
 * of the other (ENG-121, ENG-122, ENG-156).
 *
 * They differ in two ways. The SDK keeps bookkeeping members (`id`,
 * `createdAt`, `updatedAt`, …) the kit's state does not show. And the SDK
 * keeps a pending call as `{id, name, arguments}` with the arguments already
 * parsed, where the kit keeps the `function_call` item with its raw arguments
 * string: the raw string is found again in the history, the latest
 * `function_call` item with the same call id, name and parsed arguments (each
 * used once); a pending call with no such item is written back with
 * `JSON.stringify` of its arguments, and a note says so.
 */

import { clone, defineMember, isObject, type Json, jsonEqual, type JsonObject, viaJson } from '../engine/json.js';


/** The SDK's members of a conversation state that the kit's state does not show. */
const SDK_BOOKKEEPING = new Set(['id', 'createdAt', 'updatedAt', 'version', 'previousResponseId']);

/** Raw arguments as the SDK parses them: trimmed, empty is `{}`, unparsable stays the string. */
export function sdkParsedArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const trimmed = raw.trim();
  if (trimmed === '') return {};
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return raw;
  }
}

/** The kit's state (a scenario's `initialState`) as the SDK's conversation state. */
export function toSdkState(state: JsonObject, scenarioId: string): JsonObject {
  const out: JsonObject = { id: `conv_${scenarioId}`, createdAt: 0, updatedAt: 0 };
  for (const [name, value] of Object.entries(state)) defineMember(out, name, clone(value));
  if (!Array.isArray(out.messages)) out.messages = out.messages ?? [];
  if (Array.isArray(out.pendingToolCalls)) {
    out.pendingToolCalls = out.pendingToolCalls.map((item: unknown) =>
      isObject(item) && item.type === 'function_call'
        ? { id: item.callId, name: item.name, arguments: sdkParsedArguments(item.arguments) }
        : item,
    );
  }
  return out;
}

/** The `function_call` item a pending SDK call was parsed from (see the module's doc). */
class PendingItems {
  private readonly used = new Set<number>();

  constructor(
    private readonly history: readonly unknown[],
    private readonly notes: string[],
  ) {}

  itemFor(call: unknown): unknown {
    if (!isObject(call) || typeof call.id !== 'string') return call;
    for (let index = this.history.length - 1; index >= 0; index -= 1) {
      const item = this.history[index];
      if (this.used.has(index) || !isObject(item) || item.type !== 'function_call') continue;
      if (item.callId !== call.id || item.name !== call.name) continue;
      if (!jsonEqual(viaJson(sdkParsedArguments(item.arguments)), viaJson(call.arguments))) continue;
      this.used.add(index);
      return clone(item);
    }
    const raw = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    this.notes.push(`pending call ${call.id} has no item in the history: its raw arguments are written as ${raw}`);
    return { type: 'function_call', name: call.name, arguments: raw, callId: call.id };
  }
}

/** The SDK's conversation state as the kit's persisted state (ENG-122). */
export function fromSdkState(state: unknown, notes: string[]): Json {
  if (!isObject(state)) return viaJson(state ?? null);
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(state)) {
    if (!SDK_BOOKKEEPING.has(name)) defineMember(out, name, clone(value));
  }
  if (Array.isArray(out.pendingToolCalls)) {
    const items = new PendingItems(Array.isArray(state.messages) ? state.messages : [], notes);
    out.pendingToolCalls = out.pendingToolCalls.map((call: unknown) => items.itemFor(call));
  }
  return viaJson(out);
}
