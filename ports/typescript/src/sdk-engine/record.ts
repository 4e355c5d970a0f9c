/**
 * What one run of the SDK's run loop made observable, collected while it runs
 * (ENG-156): the requests its transport sent, the hook events, the tool bodies,
 * the loop-key invocations, the reason it reached and the state it saved. The
 * transport, the hook collectors, the tools and the instrumentation of
 * `observe.ts` all write into the record of the run in progress; runs are
 * driven one at a time, so there is at most one.
 */

import type { Invocations } from '../engine/loop-key-functions.js';
import type { Json, JsonObject } from '../engine/json.js';
import type { RunSpec } from '../engine/scenario.js';
import type { Dispatch, Execution, HookEvent } from '../engine/transcript.js';

import type { SdkModelResult } from './sdk-api.js';

export type DispatchKind = Dispatch['kind'];

/** A tool body that ran (ENG-140); the call id is null if the SDK gave the body none. */
export type SdkExecution = Omit<Execution, 'callId'> & { callId: string | null };

/** A request the transport answered (or found the script exhausted for). */
export interface SentDispatch {
  index: number;
  request: Json;
  responseId: string | null;
  /** The SDK call site that sent it, from the instrumentation (`observe.ts`); undefined if none. */
  site: DispatchKind | undefined;
}

export class RunRecord {
  readonly dispatches: SentDispatch[] = [];
  /** The SDK's own kind of each answered dispatch (`PostModelCall.turnType`), by response id. */
  readonly turnTypes = new Map<string, DispatchKind>();
  readonly events: HookEvent[] = [];
  readonly executions: SdkExecution[] = [];
  readonly invocations: Invocations = new Map();
  /** Things the transcript cannot say, written to the log after the run. */
  readonly notes: string[] = [];
  /** How many scripted responses were consumed (ENG-17: the next id is `resp_<answered + 1>`). */
  answered = 0;
  /** The `SessionEnd` reason the run reached (ENG-141), whether or not a hook saw it. */
  reason: string | undefined;
  /** The state the run saved last (ENG-156). */
  saved: JsonObject | null = null;
  /** The SDK's result object, once `callModel` returned. */
  result: SdkModelResult | undefined;

  constructor(
    readonly index: number,
    readonly spec: RunSpec,
  ) {}

  /** Whether no request was sent yet in this run (a decision resume's approved batch runs then). */
  get beforeFirstDispatch(): boolean {
    return this.dispatches.length === 0;
  }
}

/** The run in progress, if any. */
let current: RunRecord | undefined;

export function currentRun(): RunRecord | undefined {
  return current;
}

/** Make `record` the run in progress while `body` runs. */
export async function whileRunning<T>(record: RunRecord, body: () => Promise<T>): Promise<T> {
  if (current !== undefined) throw new Error(`run ${current.index} is still in progress`);
  current = record;
  try {
    return await body();
  } finally {
    current = undefined;
  }
}
