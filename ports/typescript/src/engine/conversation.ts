/**
 * The conversation state the engine saves through the caller's accessor
 * (ENG-159). Engine-internal and mutable; {@link Conversation.toJson} is the
 * persisted form. Members this engine does not know are kept as loaded.
 */

import { clone, defineMember, hasOwn, isObject, type JsonObject } from './json.js';

export const IN_PROGRESS = 'in_progress';
export const COMPLETE = 'complete';
export const AWAITING_APPROVAL = 'awaiting_approval';
export const AWAITING_HITL = 'awaiting_hitl';
export const AWAITING_CLIENT_TOOLS = 'awaiting_client_tools';
export const DECISION_STATUSES: readonly string[] = [AWAITING_APPROVAL, AWAITING_HITL];

const KNOWN: readonly string[] = [
  'status',
  'messages',
  'pendingToolCalls',
  'unsentToolResults',
  'consumedForcedToolChoiceKey',
  'doomLoop',
];

function items(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** Status, items, pending calls, unsent results, tool-choice key, doom-loop blob. */
export class Conversation {
  status = IN_PROGRESS;
  messages: JsonObject[] = [];
  pending: JsonObject[] = [];
  unsent: JsonObject[] = [];
  consumedToolChoiceKey: string | undefined = undefined;
  /** The `doomLoop` member as loaded or last written; undefined when absent. */
  doomLoop: unknown = undefined;
  private other: JsonObject = {};

  static fromJson(value: JsonObject | undefined): Conversation {
    const state = new Conversation();
    if (value === undefined) return state;
    const data = clone(value);
    state.status = hasOwn(data, 'status') ? String(data.status) : IN_PROGRESS;
    state.messages = items(data.messages);
    state.pending = items(data.pendingToolCalls);
    state.unsent = items(data.unsentToolResults);
    state.consumedToolChoiceKey = typeof data.consumedForcedToolChoiceKey === 'string' ? data.consumedForcedToolChoiceKey : undefined;
    state.doomLoop = hasOwn(data, 'doomLoop') ? data.doomLoop : undefined;
    for (const [name, member] of Object.entries(data)) if (!KNOWN.includes(name)) defineMember(state.other, name, member);
    return state;
  }

  toJson(): JsonObject {
    const result: JsonObject = { ...this.other };
    result.status = this.status;
    result.messages = this.messages;
    if (this.pending.length > 0) result.pendingToolCalls = this.pending;
    if (this.unsent.length > 0) result.unsentToolResults = this.unsent;
    if (this.consumedToolChoiceKey !== undefined) result.consumedForcedToolChoiceKey = this.consumedToolChoiceKey;
    if (this.doomLoop !== undefined) result.doomLoop = this.doomLoop;
    return clone(result);
  }
}
