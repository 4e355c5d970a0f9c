/**
 * One run of a scenario through the SDK's real `callModel` (ENG-156, PROT-31):
 * the request built from the scenario, the run driven through the public
 * getters, and what it made observable mapped onto the kit's run transcript.
 *
 * The request: the model and fallback models; the run's input as the scenario
 * gives it (a string stays a string); the SDK tools (`tools.ts`); the tool
 * choice (`tool-choice.ts`); `stopWhen` as `stepCountIs(n)`;
 * `allowFinalResponse` when the scenario gives one, as given; the `doomLoop`
 * option; the run's `HooksManager` (`hooks.ts`); the state accessor over the
 * session's store; the approval and rejection lists of a decision resume.
 */

import { capturingWarnings } from '../engine/monitor-api.js';
import { clone, hasOwn, isObject, type Json, type JsonObject, viaJson } from '../engine/json.js';
import type { RunSpec, Scenario } from '../engine/scenario.js';
import { invocationCounts, type Dispatch, type RunTranscript } from '../engine/transcript.js';
import { classifyWarning } from '../warning-codes.js';

import { sdkHooks } from './hooks.js';
import { type RunRecord, whileRunning } from './record.js';
import { runError, type SdkRunError } from './run-error.js';
import type { SdkEngineModule, SdkModelResult } from './sdk-api.js';
import { fromSdkState } from './state.js';
import { sdkToolChoice } from './tool-choice.js';
import { sdkTools } from './tools.js';

/** What `getResponse()` throws for a run that paused: no final response, not a failure. */
const NO_RESPONSE = 'Response not available';

/** The session's conversation state as the accessor holds it (ENG-121). */
export interface Store {
  value: JsonObject | undefined;
}

/** A run's transcript, with the error kinds of an SDK that ENG-141 may not list. */
export type SdkRunTranscript = Omit<RunTranscript, 'end' | 'executions'> & {
  executions: RunRecord['executions'];
  end: Omit<RunTranscript['end'], 'error'> & { error?: SdkRunError };
};

/** One run of a scenario, as read from its JSON. */
export interface RunInput {
  scenario: Scenario;
  spec: RunSpec;
  /** The run as the scenario's JSON gives it (its `input` goes to the SDK as it is). */
  raw: unknown;
  /** The scenario's request as its JSON gives it (`allowFinalResponse` only when present). */
  rawRequest: unknown;
  index: number;
}

/** The SDK's `callModel` request for one run. */
function buildRequest(sdk: SdkEngineModule, input: RunInput, run: RunRecord, store: Store): Record<string, unknown> {
  const { scenario, spec } = input;
  const request: Record<string, unknown> = { model: scenario.request.model };
  if (scenario.request.models !== undefined) request.models = clone(scenario.request.models);
  if (isObject(input.raw) && hasOwn(input.raw, 'input') && input.raw.input !== null) request.input = clone(input.raw.input);
  const tools = sdkTools(sdk, scenario, run);
  if (tools.length > 0) request.tools = tools;
  if (scenario.request.toolChoice !== undefined) request.toolChoice = sdkToolChoice(scenario.request, () => run.dispatches.length);
  if (scenario.request.stopWhenSteps !== undefined) request.stopWhen = sdk.stepCountIs(scenario.request.stopWhenSteps);
  if (isObject(input.rawRequest) && hasOwn(input.rawRequest, 'allowFinalResponse')) {
    request.allowFinalResponse = clone(input.rawRequest.allowFinalResponse);
  }
  const option = spec.doomLoop === undefined ? scenario.doomLoop : spec.doomLoop;
  if (option !== undefined) request.doomLoop = clone(option);
  request.hooks = sdkHooks(sdk, scenario, run);
  if (scenario.stateAccessor) {
    request.state = {
      load: async () => (store.value === undefined ? null : viaJson(store.value)),
      save: async (state: unknown) => {
        store.value = viaJson(state) as JsonObject;
        run.saved = store.value;
      },
    };
  }
  if (spec.approve.length > 0) request.approveToolCalls = [...spec.approve];
  if (spec.reject.length > 0) request.rejectToolCalls = [...spec.reject];
  return request;
}

/** The run's monitor configuration, as the SDK resolved it (see `observe.ts`). */
function monitorConfig(result: SdkModelResult | undefined): Json {
  const monitor = (result as { doomLoopMonitor?: { config?: unknown } } | undefined)?.doomLoopMonitor;
  return monitor === undefined || monitor === null ? null : viaJson(monitor.config);
}

/** What the run ended with, read through the public getters. */
interface Outcome {
  response: unknown;
  text: unknown;
  verdict: Json;
  failure: unknown;
}

async function outcome(result: SdkModelResult): Promise<Outcome> {
  const ended: Outcome = { response: null, text: null, verdict: null, failure: undefined };
  try {
    ended.response = await result.getResponse();
    ended.text = await result.getText();
  } catch (error) {
    ended.response = null;
    if (!(error instanceof Error && error.message === NO_RESPONSE)) ended.failure = error;
  }
  if (ended.failure === undefined) {
    try {
      ended.verdict = viaJson(await result.getDoomLoopVerdict());
    } catch (error) {
      ended.failure = error;
    }
  }
  return ended;
}

/** Each dispatch's kind: the SDK's `turnType` when it answered, else the call site (see `observe.ts`). */
function dispatches(run: RunRecord): Dispatch[] {
  return run.dispatches.map(({ index, request, responseId, site }) => {
    const turn = responseId === null ? undefined : run.turnTypes.get(responseId);
    if (turn !== undefined && site !== undefined && turn !== site) {
      run.notes.push(`dispatch ${index}: PostModelCall says ${turn}, the call site ${site}`);
    }
    const kind = turn ?? site;
    if (kind === undefined) run.notes.push(`dispatch ${index}: no dispatch kind observed`);
    return { index, kind: kind ?? ('unknown' as Dispatch['kind']), request, responseId };
  });
}

/** Drive one run through `callModel` and map it onto the run transcript. */
export async function runOnce(sdk: SdkEngineModule, input: RunInput, store: Store, run: RunRecord): Promise<SdkRunTranscript> {
  const configPrinted: string[] = [];
  const warnings: string[] = [];
  let ended: Outcome = { response: null, text: null, verdict: null, failure: undefined };
  await whileRunning(run, async () => {
    const request = buildRequest(sdk, input, run, store);
    try {
      run.result = await capturingWarnings(configPrinted, () => sdk.callModel({}, request));
    } catch (error) {
      ended.failure = error;
      return;
    }
    const result = run.result;
    ended = await capturingWarnings(warnings, () => outcome(result));
  });
  const end: SdkRunTranscript['end'] = {
    status: viaJson(isObject(store.value) ? store.value.status : null),
    reason: run.reason ?? null,
    finalResponseId: ended.failure === undefined ? responseId(ended.response) : null,
    finalText: ended.response === null || ended.failure !== undefined ? null : (viaJson(ended.text) as string | null),
    stopVerdict: ended.failure === undefined ? ended.verdict : null,
  };
  if (ended.failure !== undefined) end.error = runError(ended.failure);
  return {
    index: input.index,
    decisionResume: input.spec.decisionResume,
    config: monitorConfig(run.result),
    configWarnings: configPrinted.map((text) => String(classifyWarning(text).code)),
    dispatches: dispatches(run),
    events: run.events,
    executions: run.executions,
    warnings,
    loopKeyInvocations: invocationCounts(run.invocations),
    end,
    state: run.saved === null ? null : fromSdkState(run.saved, run.notes),
  };
}

function responseId(response: unknown): string | null {
  const id = isObject(response) ? response.id : undefined;
  return typeof id === 'string' ? id : null;
}
