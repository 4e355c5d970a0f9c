/**
 * The engine level over any doom-loop monitor module (spec §15): a
 * deterministic tool loop with a scripted model. {@link runScenario} takes a
 * scenario (§15.1.4) and returns the transcript of what every dispatch sent,
 * the hook events, the tool bodies that ran, each run's end and the persisted
 * state (ENG-156). Each module is one concept and cites ENG ids.
 */

export { OutsideDomain, type RunError, type RunErrorKind, ScenarioError } from './errors.js';
export type { MonitorModule } from './monitor-api.js';
export { readScenario, type Scenario } from './scenario.js';
export { runScenario } from './session.js';
export type { Dispatch, Execution, HookEvent, RunEnd, RunTranscript, Transcript } from './transcript.js';
