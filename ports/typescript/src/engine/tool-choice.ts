/** The caller's tool choice and the forced-choice bookkeeping (ENG-133, EOQ-07). */

import { isObject } from './json.js';

/** `required` or `function:<name>` for a forced choice; undefined otherwise. */
export function forcedKey(choice: unknown): string | undefined {
  if (choice === 'required') return 'required';
  if (isObject(choice) && choice.type === 'function') return `function:${String(choice.name ?? 'None')}`;
  return undefined;
}

/** Offers the caller's choice per dispatch; a forced choice is spent once sent. */
export class ToolChoicePolicy {
  private readonly key: string | undefined;

  constructor(
    private readonly choice: unknown,
    private readonly start: number,
    public consumedKey: string | undefined,
  ) {
    this.key = forcedKey(choice);
  }

  /** The choice for this dispatch, or undefined: none is sent (ENG-133). */
  offer(dispatch: number): unknown {
    if (this.key === undefined) return this.choice;
    if (this.consumedKey === this.key || dispatch < this.start) return undefined;
    return this.choice;
  }

  /** The offered forced choice reached the wire: it is consumed (ENG-133). */
  sent(choice: unknown): void {
    if (this.key !== undefined && choice !== undefined) this.consumedKey = this.key;
  }

  /** Forget the consumption (ENG-127 step 5; a fresh turn: EOQ-07). */
  reset(): void {
    this.consumedKey = undefined;
  }
}
