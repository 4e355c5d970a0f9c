/**
 * The caller's tool choice as the SDK's `toolChoice` request member (ENG-145).
 *
 * A choice that applies from dispatch 0, or that is not forced, is given as it
 * is. A forced choice (ENG-145's definition: `"required"`, an array, or an
 * object other than an `allowed_tools` whose mode is not `required`) that
 * applies from dispatch N > 0 is the SDK's dynamic form, a function the SDK
 * calls before each dispatch: it gives nothing before dispatch N of the run
 * and the choice from then on. The dispatch is counted by the harness (the
 * requests the run has sent so far), not by the turn number the SDK passes:
 * on a decision resume the SDK's turn count starts from the persisted one,
 * so it is not the run's dispatch index (ENG-19); a caller can count the same
 * way with the public `PostModelCall` hook.
 *
 * `toolChoiceFromDispatch` holds back a forced choice only (ENG-145): a choice
 * that is not forced is given on every dispatch, as the reference engine
 * gives it, and {@link fromDispatchNote} says so.
 */

import { clone } from '../engine/json.js';
import type { RequestSpec } from '../engine/scenario.js';
import { isForced } from '../engine/tool-choice.js';

/** The request member for `request`'s tool choice; `sent()` is how many requests the run has sent. */
export function sdkToolChoice(request: RequestSpec, sent: () => number): unknown {
  const { toolChoice: choice, toolChoiceFrom: from } = request;
  if (choice === undefined || from <= 0 || !isForced(choice)) return clone(choice);
  return (): unknown => (sent() >= from ? clone(choice) : undefined);
}

/** A note when `toolChoiceFromDispatch` has nothing to hold back: the choice is not forced. */
export function fromDispatchNote(request: RequestSpec): string | undefined {
  const { toolChoice: choice, toolChoiceFrom: from } = request;
  if (choice === undefined || from <= 0 || isForced(choice)) return undefined;
  return `toolChoiceFromDispatch ${from} holds back a forced choice only (ENG-145): ${JSON.stringify(choice)} is not forced and goes with every dispatch`;
}
