/**
 * Configuration warning codes, derived from the message alone (CFG-26).
 *
 * The SDK reports a configuration warning as one `console.warn(message)`
 * call and nothing else, so a harness wrapping any module classifies the
 * message by the template it matches. The code (and, for a dead rung, the
 * two rung names) is a convenience of the kit; the message is the fact.
 */

import type { Json } from './engine/json.js';

interface Template {
  code: string;
  /** Matches the whole message; named groups `rung` and `shadowedBy` where the template has them. */
  pattern: RegExp;
}

const RUNG = '(?:observe|steer|escalate|block|stop)';
/** A number as JS `String(n)` writes it. */
const NUMBER = '[^()]+';

/** Data, not code: one entry per configuration warning of CFG-29 … CFG-32. */
const TEMPLATES: readonly Template[] = [
  {
    code: 'block-without-stop',
    pattern:
      /^\[DoomLoop\] ladder has block enabled with stop disabled: a model that keeps re-issuing a blocked call loops indefinitely \(each blocked round still costs a model request\)\. Bound the run with stopWhen, or enable the stop rung\.$/,
  },
  {
    code: 'dead-rung',
    pattern: new RegExp(
      `^\\[DoomLoop\\] ladder rung "(?<rung>${RUNG})" \\(${NUMBER}\\) can never fire: stronger rung "(?<shadowedBy>${RUNG})" \\(${NUMBER}\\) already wins at that streak \\(strongest crossed rung is applied\\)\\.$`,
    ),
  },
  {
    code: 'escalation-unused',
    pattern:
      /^\[DoomLoop\] escalation config provided but the escalate ladder rung is disabled; set ladder\.escalate to a streak threshold for recovery to trigger\.$/,
  },
  {
    code: 'escalation-rung-unconfigured',
    pattern:
      /^\[DoomLoop\] ladder\.escalate is enabled but no escalation config \(model\/advisor\) was provided; the rung is skipped and verdicts fall through to weaker rungs\.$/,
  },
];

/** A message no template matches. */
export const UNCLASSIFIED = 'unclassified';

/** `{code, rung?, shadowedBy?, message}` for one warning message (CFG-26). */
export function classifyWarning(message: string): { [name: string]: Json } {
  for (const { code, pattern } of TEMPLATES) {
    const match = pattern.exec(message);
    if (match === null) continue;
    const warning: { [name: string]: Json } = { code };
    const { rung, shadowedBy } = match.groups ?? {};
    if (rung !== undefined) warning.rung = rung;
    if (shadowedBy !== undefined) warning.shadowedBy = shadowedBy;
    warning.message = message;
    return warning;
  }
  return { code: UNCLASSIFIED, message };
}
