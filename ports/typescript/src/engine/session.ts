/**
 * Running a whole scenario: its runs in order over carried state (ENG-156,
 * ENG-16). The engine's entry point: {@link runScenario} reads a scenario's
 * JSON form and returns the {@link Transcript}.
 */

import { isObject, type Json, type JsonObject } from './json.js';
import type { MonitorModule } from './monitor-api.js';
import { Run } from './run.js';
import { readScenario } from './scenario.js';
import { requireCanonicalChoice } from './tool-choice.js';
import type { Transcript } from './transcript.js';

/** What the accessor hands back: the saved JSON, decoded afresh (ENG-121). */
function stored(state: unknown): JsonObject | undefined {
  return isObject(state) ? (JSON.parse(JSON.stringify(state)) as JsonObject) : undefined;
}

/**
 * Run every run of the scenario over the monitor module `mod` (its public API
 * only). Throws {@link ScenarioError} for a malformed scenario (ENG-23, ENG-173),
 * before any run starts.
 */
export async function runScenario(mod: MonitorModule, scenarioJson: unknown): Promise<Transcript> {
  const scenario = readScenario(scenarioJson);
  requireCanonicalChoice(mod.canonicalizeKeyMaterial, scenario.request.toolChoice); // ENG-173
  let saved: Json | JsonObject | undefined = scenario.stateAccessor ? scenario.initialState : undefined;
  const runs = [];
  for (const [index, spec] of scenario.runs.entries()) {
    const transcript = await new Run(mod, scenario, spec, index, stored(saved)).execute();
    if (scenario.stateAccessor && transcript.state !== null) saved = transcript.state;
    runs.push(transcript);
  }
  return { scenario: scenario.id, runs };
}
