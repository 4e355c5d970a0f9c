/**
 * The caller's tool choice, forced choices and their consumption (ENG-145).
 *
 * A *forced* choice is `required` or any object (`typeof … === 'object'`, an
 * array included) except an `allowed_tools` whose `mode` is not `required`.
 * It is *consumed* when it reached the wire unchanged and the response to
 * that dispatch holds a function call; from then on the *relaxed* choice is
 * sent. The state keeps the consumption as `consumedForcedToolChoiceKey`: the
 * RFC 8785 canonical JSON of the choice.
 */

import { ScenarioError } from './errors.js';
import { clone, defineMember, isObject } from './json.js';
import type { MonitorModule } from './monitor-api.js';

/** `required`, or an object other than a non-required `allowed_tools` (ENG-145). */
export function isForced(choice: unknown): boolean {
  if (choice === 'required' || Array.isArray(choice)) return true;
  return isObject(choice) && (choice.type !== 'allowed_tools' || choice.mode === 'required');
}

/** A consumed forced choice: `auto`, or the `allowed_tools` in mode `auto`. */
export function relaxed(choice: unknown): unknown {
  if (!isObject(choice) || choice.type !== 'allowed_tools') return 'auto';
  const copy = clone(choice);
  defineMember(copy, 'mode', 'auto');
  return copy;
}

/** Offers the caller's choice per dispatch and keeps the consumption key. */
export class ToolChoicePolicy {
  private readonly forced: boolean;
  /** The key this choice is recorded under once consumed; undefined when it is not forced. */
  private readonly key: string | undefined;

  /** `storedKey`: the `consumedForcedToolChoiceKey` the state holds, as loaded or last set. */
  constructor(
    canonicalize: MonitorModule['canonicalizeKeyMaterial'],
    private readonly choice: unknown,
    private readonly start: number,
    public storedKey: string | undefined,
  ) {
    this.forced = isForced(choice);
    this.key = this.forced ? canonicalize(choice) : undefined; // ENG-173: a read scenario's choice has one
  }

  /**
   * A forced choice that waits for a later dispatch: on a resume dispatch the SDK counts
   * its turns otherwise, so such a run is outside the domain (ENG-151 (d)).
   */
  get forcedLater(): boolean {
    return this.forced && this.start > 0;
  }

  /** A stored key matches only when spelled exactly as this choice's key (ENG-145). */
  private get consumed(): boolean {
    return this.key !== undefined && this.storedKey === this.key;
  }

  /** The caller's choice for this dispatch, or undefined: none is sent (ENG-145). */
  offer(dispatch: number): unknown {
    if (!this.forced) return this.choice;
    if (dispatch < this.start) return undefined;
    return this.consumed ? relaxed(this.choice) : this.choice;
  }

  /** Whether an offer is the forced choice itself (not relaxed, not withheld). */
  carriesForced(offered: unknown): boolean {
    return this.forced && offered !== undefined && !this.consumed;
  }

  /**
   * Bookkeeping when the response to a dispatch arrives (ENG-145). When the
   * caller's choice for this dispatch is not forced (none forced, or not yet
   * applying) a stored key is cleared; a forced choice is consumed when the
   * dispatch carried it unchanged and the response holds a function call.
   */
  answered(dispatch: number, carriedForced: boolean, hasCall: boolean): void {
    if (!this.forced || dispatch < this.start) this.storedKey = undefined;
    else if (carriedForced && hasCall) this.storedKey = this.key;
  }

  /** The run completed, or a condemned decision resume halted (ENG-145). */
  forget(): void {
    this.storedKey = undefined;
  }
}

/**
 * A caller's tool choice must have a canonical JSON form, the form its
 * consumption is recorded under (ENG-173, ENG-145): a scenario whose choice
 * has none is not well formed. Throws {@link ScenarioError} before any run starts.
 */
export function requireCanonicalChoice(canonicalize: MonitorModule['canonicalizeKeyMaterial'], choice: unknown): void {
  if (choice === undefined) return;
  try {
    canonicalize(choice);
  } catch (error) {
    throw new ScenarioError(`request.toolChoice: no canonical JSON form (${(error as Error).message})`);
  }
}
