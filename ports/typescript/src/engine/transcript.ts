/**
 * The observable run as plain JSON (ENG-156): one record per run of a scenario
 * with every dispatch's request, the hook events, the tool bodies that ran,
 * the warnings (informative, ENG-108), the run's end and the persisted state.
 * Member order follows the reference engine's transcript.
 */

import type { RunError } from './errors.js';
import type { Json } from './json.js';

/**
 * One request to the model and the id of the response it got (ENG-19);
 * `responseId` null: exhausted (ENG-20). `retry` re-sends an input whose
 * response was empty (ENG-142).
 */
export interface Dispatch {
  index: number;
  kind: 'initial' | 'follow-up' | 'resume' | 'final' | 'retry';
  request: Json;
  responseId: string | null;
}

/** One hook emission; `appliedAction` is set for `DoomLoopDetected` (ENG-98). */
export interface HookEvent {
  hook: string;
  payload: Json;
  appliedAction?: string;
}

/** A tool body that ran, with the arguments the model issued (ENG-140). */
export interface Execution {
  callId: string;
  name: string;
  arguments: Json;
  round: number;
}

/**
 * How a run ended (ENG-86, ENG-87, ENG-20, ENG-141). `status` is the status
 * the state accessor holds (null without one; undefined, so left out, when the
 * state it holds has no status, ENG-191); `reason` the `SessionEnd`
 * reason the run reached, also when no hook could observe it (null when a
 * decision resume fails for want of a state accessor); `stopVerdict` is what
 * `getDoomLoopVerdict()` gives (ENG-101), null on a failed run.
 */
export interface RunEnd {
  status: Json | undefined;
  reason: string | null;
  finalResponseId: string | null;
  finalText: string | null;
  stopVerdict: Json;
  error?: RunError;
}

/** Everything one run made observable (ENG-156). */
export interface RunTranscript {
  index: number;
  decisionResume: boolean;
  config: Json;
  configWarnings: string[];
  dispatches: Dispatch[];
  events: HookEvent[];
  executions: Execution[];
  warnings: string[];
  loopKeyInvocations: { [tool: string]: number };
  end: RunEnd;
  state: Json;
}

/** The observable runs of one scenario, in order. */
export interface Transcript {
  scenario: string;
  runs: RunTranscript[];
}

/** The invocation counts as an object, tool names in code-unit order. */
export function invocationCounts(counts: ReadonlyMap<string, number>): { [tool: string]: number } {
  const result: { [tool: string]: number } = {};
  for (const name of [...counts.keys()].sort()) {
    Object.defineProperty(result, name, { value: counts.get(name), enumerable: true, writable: true, configurable: true });
  }
  return result;
}
