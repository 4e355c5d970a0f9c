/**
 * Texts the engine itself writes to the model (spec §15.4.1, ENG-102 … ENG-107,
 * ENG-169, ENG-170).
 * Verdict messages come from the monitor; these are the engine's own wrappers
 * and fixed texts, code unit for code unit.
 */

export const ESCALATION_NOTICE_SUFFIX = 'An escalated turn follows: use the additional guidance to change course.';
export const HALT_PREFIX = 'Run halted by doom-loop detection: ';
/** The directive closing the `stopWhen` final dispatch's input by default (ENG-169). */
export const FINAL_DIRECTIVE =
  'You have reached the tool-use limit, and tools are no longer available. Do not attempt to call any more ' +
  'tools. Using the information you already have, write your final answer now.';
/** The output, sent as it is, of a call left unanswered by the `stopWhen` round (ENG-170). */
export const SKIPPED = 'Tool execution skipped: step limit reached.';
export const REJECTED_BY_USER = 'Rejected by user';
export const NOT_EXECUTABLE = 'Tool not found or not executable';

/** The verdict message, one space, the fixed sentence (ENG-102). */
export function escalationNotice(message: string): string {
  return `${message} ${ESCALATION_NOTICE_SUFFIX}`;
}

/** The advisor's default instructions around the verdict message (ENG-103). */
export function advisorInstructions(message: string): string {
  return (
    'You are an escalation advisor. The executing model appears stuck in a loop: ' +
    `${message} Diagnose why its approach is failing and give concrete, specific ` +
    'instructions for a DIFFERENT approach. Do not restate the problem.'
  );
}

/** The parse-error text of a call whose arguments are not JSON (ENG-104). */
export function malformedArguments(toolName: string, raw: string): string {
  return (
    `Failed to parse tool call arguments for "${toolName}": The model provided invalid ` +
    `JSON. Raw arguments received: "${raw}". Please provide valid JSON arguments for this ` +
    'tool call.'
  );
}

/**
 * The output text of a call sealed at a stop gate (ENG-106): the prefix, then
 * `String(verdict.message)`, which a verdict that is not an object, or has no
 * `message`, makes `undefined`.
 */
export function haltSeal(verdict: unknown): string {
  return HALT_PREFIX + String((verdict as { message?: unknown } | null | undefined)?.message);
}

/** The block text used when a verdict carries no message (ENG-107). */
export function blockFallback(toolName: string): string {
  return (
    `Doom loop suspected: tool "${toolName}" is repeating identical calls. Repeating the ` +
    'call will not change the result. Take a different approach.'
  );
}

/**
 * The user message closing the final dispatch's input; `''`: none (ENG-147).
 * `true` (or absent) gives the fixed text, a string is the directive itself,
 * and any other value (`0`, `null`, an object) gives none.
 */
export function finalDirective(allowFinalResponse: unknown): string {
  if (allowFinalResponse === true) return FINAL_DIRECTIVE;
  return typeof allowFinalResponse === 'string' ? allowFinalResponse : '';
}
