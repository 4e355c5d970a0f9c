/**
 * The errors of the engine: a malformed scenario (ENG-23), a run outside the
 * engine level's domain (ENG-151) and a run that fails (ENG-20, ENG-141).
 *
 * A malformed scenario is refused before any run starts; a run outside the
 * domain is refused while running. A run that fails ends with `end.error`,
 * whose `kind` is one of {@link RunErrorKind}; its message is informative.
 */

/** A scenario that is not well formed; the message names the offending part (ENG-23). */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/**
 * The run reached a case the engine level leaves out of its domain (ENG-151):
 * a pending call decided twice, an approval pause beside a HITL call, an
 * approved HITL call whose body returns null. It depends on what the run did,
 * so it is raised while running; the harness answers it as `bad-scenario`.
 */
export class OutsideDomain extends ScenarioError {
  constructor(message: string) {
    super(message);
    this.name = 'OutsideDomain';
  }
}

/** The kinds of `end.error` (ENG-141). */
export type RunErrorKind =
  /** A dispatch found the scripted model exhausted (ENG-20). */
  | 'script-exhausted'
  /** The run ended on a response with no output item and nothing retried it (ENG-142). */
  | 'invalid-final-response'
  /** A response needs approval but the run has no state accessor (ENG-143). */
  | 'approval-needs-state-accessor'
  /** A decision resume without a state accessor (ENG-143). */
  | 'decisions-need-state-accessor'
  /** JS reads a member of `null`: the persisted `doomLoop` member (ENG-144) or the option (ENG-176). */
  | 'type-error';

/** `end.error` as the transcript holds it: the kind, and the failed dispatch for `script-exhausted`. */
export interface RunError {
  kind: RunErrorKind;
  dispatch?: number;
}

/**
 * The run fails: it ends with `end.error` (ENG-20, ENG-141). `beforeRun` marks a
 * failure while the run is being built, before it exists (ENG-143, ENG-176): its
 * end has no reason and its transcript no `config`.
 */
export class RunFailed extends Error {
  constructor(
    readonly kind: RunErrorKind,
    message: string,
    readonly dispatch: number | undefined = undefined,
    readonly beforeRun = false,
  ) {
    super(message);
    this.name = 'RunFailed';
  }

  /** `{kind, dispatch?}`: the message is not part of the transcript. */
  toJson(): RunError {
    return this.dispatch === undefined ? { kind: this.kind } : { kind: this.kind, dispatch: this.dispatch };
  }
}
