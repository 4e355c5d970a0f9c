/**
 * The engine level over the SDK's own run loop (spec §15, PROT-31):
 * `doomloop-kit-harness --sdk-engine <bundle>` answers `runScenario` by
 * driving the real `callModel` of an engine bundle of `@openrouter/agent`
 * once per run, with a scripted model behind its transport, SDK tools, one
 * `HooksManager` and an in-memory state accessor, and maps what the SDK sent
 * and did onto the kit's transcript. Every other operation is the kit's
 * dispatcher over the bundle's doom-loop module.
 *
 * {@link loadSdkEngine} imports a bundle, checks what the harness needs and
 * runs one probe scenario through it, so that a build lacking something
 * fails at once, naming it.
 */

import { basename } from 'node:path';

import { isObject, type JsonObject } from '../engine/json.js';
import { readScenario, type Scenario } from '../engine/scenario.js';
import { requireCanonicalChoice } from '../engine/tool-choice.js';
import type { ScenarioRunner } from '../protocol.js';

import { instrument } from './observe.js';
import { RunRecord } from './record.js';
import { errorKinds } from './run-error.js';
import { runOnce, type SdkRunTranscript, type Store } from './run.js';
import { BUNDLE_GUIDE, importSdkEngine, SdkBuildError, type SdkEngineModule } from './sdk-api.js';
import { toSdkState } from './state.js';
import { fromDispatchNote } from './tool-choice.js';
import { installTransport, SEND_HOOK } from './transport.js';

export { SdkBuildError, type SdkEngineModule } from './sdk-api.js';
export type { SdkRunTranscript } from './run.js';

/** The transcript of a scenario run through the SDK. */
export interface SdkTranscript {
  scenario: string;
  runs: SdkRunTranscript[];
}

/** Run every run of `raw` (a scenario's JSON, already read as `scenario`) over one state store. */
async function runSession(sdk: SdkEngineModule, raw: JsonObject, scenario: Scenario, log: (line: string) => void): Promise<SdkTranscript> {
  const initial = scenario.stateAccessor && scenario.initialState !== undefined ? toSdkState(scenario.initialState, scenario.id) : undefined;
  const store: Store = { value: initial };
  const rawRuns = Array.isArray(raw.runs) ? raw.runs : [];
  const runs: SdkRunTranscript[] = [];
  for (const [index, spec] of scenario.runs.entries()) {
    const record = new RunRecord(index, spec);
    runs.push(await runOnce(sdk, { scenario, spec, raw: rawRuns[index], rawRequest: raw.request, index }, store, record));
    for (const note of record.notes) log(`scenario ${scenario.id} run ${index}: ${note}`);
  }
  return { scenario: scenario.id, runs };
}

/** `runScenario` over the SDK: a malformed scenario throws the kit's `ScenarioError` (ENG-23, ENG-173). */
export function sdkEngineRunner(sdk: SdkEngineModule, log: (line: string) => void = () => {}): ScenarioRunner {
  return async (raw: unknown) => {
    const scenario = readScenario(raw);
    requireCanonicalChoice(sdk.doomLoop.canonicalizeKeyMaterial, scenario.request.toolChoice);
    const note = fromDispatchNote(scenario.request);
    if (note !== undefined) log(`scenario ${scenario.id}: ${note}`);
    return runSession(sdk, raw as JsonObject, scenario, log);
  };
}

/** The probe: one fresh turn, detection on, answered with one message. */
const PROBE = {
  id: 'sdk-engine-probe',
  doomLoop: true,
  runs: [{ input: 'probe', model: [{ output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] }] }] }],
};

/** Run the probe and name what the build does not show (see `observe.ts`). */
async function probe(sdk: SdkEngineModule): Promise<void> {
  const scenario = readScenario(PROBE);
  const record = new RunRecord(0, scenario.runs[0]!);
  let run: SdkRunTranscript;
  try {
    run = await runOnce(sdk, { scenario, spec: scenario.runs[0]!, raw: PROBE.runs[0], rawRequest: {}, index: 0 }, { value: undefined }, record);
  } catch (error) {
    throw new SdkBuildError(`a probe run through the bundle failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const missing: string[] = [];
  if (record.dispatches.length === 0) {
    missing.push(`its transport does not call globalThis.${SEND_HOOK} (the network transport must be replaced, see ${BUNDLE_GUIDE})`);
  } else if (record.turnTypes.size === 0) {
    missing.push('no PostModelCall hook with a turnType fired (the dispatch kinds)');
  }
  if (!isObject(run.config)) missing.push('the result has no doomLoopMonitor.config (the resolved configuration)');
  if (typeof (record.result as { doomLoopRound?: unknown } | undefined)?.doomLoopRound !== 'number') {
    missing.push('the result has no numeric doomLoopRound (the round of an execution)');
  }
  if (run.end.error !== undefined) missing.push(`the probe run failed: ${JSON.stringify(run.end.error)}`);
  if (missing.length > 0) throw new SdkBuildError(`the SDK build cannot be driven: ${missing.join('; ')}`);
}

/** A bundle loaded, instrumented, wired to the scripted model and probed. */
export interface LoadedSdkEngine {
  sdk: SdkEngineModule;
  path: string;
  /** What the handshake names. */
  implementation: { name: string; version: string };
}

/**
 * Load the engine bundle `given` names (a file; an installed package is
 * refused with the reason). Throws {@link SdkBuildError} naming what is missing.
 */
export async function loadSdkEngine(given: string, cwd = process.cwd()): Promise<LoadedSdkEngine> {
  const { sdk, path } = await importSdkEngine(given, cwd);
  errorKinds(); // the table must be there before any run
  instrument(sdk.ModelResult.prototype);
  installTransport();
  await probe(sdk);
  return { sdk, path, implementation: { name: `@openrouter/agent run loop (${basename(path)})`, version: 'unknown' } };
}

