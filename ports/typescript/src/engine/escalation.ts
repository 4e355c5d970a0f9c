/** The escalation latch and the one-dispatch request overrides (ENG-70 … ENG-77). */

import { isObject, type JsonObject } from './json.js';
import type { ResolvedConfig, Verdict } from './monitor-api.js';
import { advisorInstructions } from './texts.js';

export const ADVISOR_TOOL = 'openrouter:advisor';

/** At most one pending escalation per window; never persisted (ENG-70, ENG-76). */
export class EscalationLatch {
  private pending: Verdict | undefined;

  /** Latch the verdict unless one is pending; true when this one latched (ENG-70). */
  arm(verdict: Verdict): boolean {
    if (this.pending !== undefined) return false;
    this.pending = verdict;
    return true;
  }

  /** Clear the latch and return what was pending (ENG-71). */
  take(): Verdict | undefined {
    const verdict = this.pending;
    this.pending = undefined;
    return verdict;
  }

  /** A stop, pause or run end loses the latch, spending nothing (ENG-76). */
  drop(): void {
    this.pending = undefined;
  }
}

/**
 * Merge the model and advisor overrides into one dispatch's request (ENG-72,
 * ENG-73). Returns true when the advisor override replaced the tool choice (ENG-74).
 */
export function applyOverrides(
  request: JsonObject,
  escalation: NonNullable<ResolvedConfig['escalation']>,
  verdict: Verdict,
): boolean {
  if (escalation.model !== undefined) {
    request.model = escalation.model;
    delete request.models;
  }
  const advisor: unknown = escalation.advisor;
  if (advisor === undefined || advisor === false) return false;
  const parameters: JsonObject = { forwardTranscript: true, instructions: advisorInstructions(verdict.message) };
  if (isObject(advisor)) Object.assign(parameters, advisor);
  const tools = Array.isArray(request.tools) ? (request.tools as unknown[]) : [];
  request.tools = [...tools, { type: ADVISOR_TOOL, parameters }];
  request.toolChoice = { type: 'allowed_tools', mode: 'required', tools: [{ type: ADVISOR_TOOL }] };
  return true;
}
