/** Shared helpers of the node:test files (compiled to dist/test/). */

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';

import * as port from '../doom-loop.js';
import { Dispatcher, ENGINE_FEATURE, firstDifference, type Json, type Response, typescriptPortEngine } from '../protocol.js';
import { serve } from '../serve.js';
import { JS_MODULE_FEATURES } from '../wire.js';

const here = dirname(fileURLToPath(import.meta.url));

/** ports/typescript/ (tests run from dist/test/). */
export const PACKAGE_ROOT = resolve(here, '..', '..');
/** The repository root (ports/typescript/../..). */
export const REPO_ROOT = process.env.DOOMLOOP_REPO_ROOT ?? resolve(PACKAGE_ROOT, '..', '..');

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

export function firstExisting(paths: readonly string[]): string | undefined {
  return paths.find((path) => existsSync(path));
}

/** What serve() over this port writes for `input` (bytes or text), its module logs muted. */
export async function servedOutput(input: string | Buffer): Promise<string> {
  const lines = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    written += chunk;
  });
  const served = serve(port, { input: lines, output, log: () => undefined });
  lines.end(input);
  await served;
  return written;
}

/** A dispatcher over this port, exactly as the harness builds it, with warnings muted. */
export function portDispatcher(): Dispatcher {
  return new Dispatcher(port, {
    implementation: { name: 'doomloop-kit-typescript-port', language: 'typescript', version: 'test' },
    features: [...JS_MODULE_FEATURES, ENGINE_FEATURE],
    engine: typescriptPortEngine(port),
    log: () => {},
  });
}

export interface Step {
  op: string;
  expect?: { result?: Json; error?: string; message?: string };
  [input: string]: unknown;
}

/** A monitor vector: an optional session, then steps. */
export interface MonitorVector {
  id: string;
  features?: string[];
  option?: Json;
  initialState?: Json;
  steps: Step[];
}

/** An engine vector (spec §15): one scenario, its transcript or the error `bad-scenario`. */
export interface EngineVector {
  id: string;
  features?: string[];
  scenario: Json;
  expect: { result?: Json; error?: string };
}

export type Vector = MonitorVector | EngineVector;

const isEngineVector = (vector: Vector): vector is EngineVector => Object.prototype.hasOwnProperty.call(vector, 'scenario');

/** The runs of a transcript, or an empty list when it is not one. */
function runsOf(transcript: Json | undefined): Json[] {
  const runs = typeof transcript === 'object' && transcript !== null && !Array.isArray(transcript) ? transcript.runs : undefined;
  return Array.isArray(runs) ? runs : [];
}

/** A transcript without each run's `warnings`: they are informative (ENG-108), but for ENG-168. */
function withoutWarnings(transcript: Json | undefined): Json | undefined {
  if (typeof transcript !== 'object' || transcript === null || Array.isArray(transcript) || !Array.isArray(transcript.runs)) {
    return transcript;
  }
  const runs = transcript.runs.map((run) => {
    if (typeof run !== 'object' || run === null || Array.isArray(run)) return run;
    const { warnings: _informative, ...compared } = run;
    return compared;
  });
  return { ...transcript, runs };
}

/** How the one warning text a statement requires starts: a loop-key fallback (ENG-168). */
const REQUIRED_WARNING = '[DoomLoop] tool "';

/** The first required warning of an expected run that the actual run lacks (ENG-168). */
function missingWarning(expected: Json | undefined, actual: Json | undefined): string | undefined {
  const warnings = (run: Json | undefined): string[] => {
    const listed = typeof run === 'object' && run !== null && !Array.isArray(run) ? run.warnings : undefined;
    return Array.isArray(listed) ? listed.filter((text): text is string => typeof text === 'string') : [];
  };
  const actualRuns = runsOf(actual);
  for (const [index, run] of runsOf(expected).entries()) {
    const present = new Set(warnings(actualRuns[index]));
    const missing = warnings(run).find((text) => text.startsWith(REQUIRED_WARNING) && !present.has(text));
    if (missing !== undefined) return `run ${index}: required warning missing: ${missing}`;
  }
  return undefined;
}

/**
 * Replay an engine vector through `runScenario`, comparing as the runner does,
 * except that events and executions are compared in the expected order: this
 * port runs a batch's calls one after another, as the reference does (ENG-138).
 */
async function replayEngine(dispatcher: Dispatcher, vector: EngineVector): Promise<string[]> {
  const response = await call(dispatcher, { op: 'runScenario', scenario: vector.scenario });
  const where = `${vector.id} (runScenario)`;
  if (vector.expect.error !== undefined) {
    if (!('error' in response)) return [`${where}: expected error ${vector.expect.error}, got a transcript`];
    return response.error.code === vector.expect.error ? [] : [`${where}: expected error ${vector.expect.error}, got ${response.error.code}`];
  }
  if (!('result' in response)) return [`${where}: expected a transcript, got error ${response.error.code}: ${response.error.message}`];
  const difference =
    firstDifference(withoutWarnings(response.result), withoutWarnings(vector.expect.result)) ??
    missingWarning(vector.expect.result, response.result);
  return difference === undefined ? [] : [`${where}: differs at ${difference}`];
}

let requestId = 0;

async function call(dispatcher: Dispatcher, request: Record<string, unknown>): Promise<Response> {
  requestId += 1;
  return dispatcher.handle({ id: requestId, ...request });
}

function failure(response: Response, what: string): Error {
  return new Error(`${what} failed: ${JSON.stringify(response)}`);
}

/**
 * Replay one vector the way the runner does (design notes "Vector files" and
 * "Sessions"): a session is created from `option` (+ `initialState`) before
 * step 0 when the vector has an option; `resume` is getState + create + close.
 * Returns a list of mismatch descriptions (empty = pass).
 */
export async function replay(dispatcher: Dispatcher, vector: Vector): Promise<string[]> {
  if (isEngineVector(vector)) return replayEngine(dispatcher, vector);
  const problems: string[] = [];
  let session: string | undefined;
  const hasOption = Object.prototype.hasOwnProperty.call(vector, 'option');
  const create = async (state: Json | undefined): Promise<string> => {
    const request: Record<string, unknown> = { op: 'create', option: vector.option };
    if (state !== undefined) request.state = state;
    const response = await call(dispatcher, request);
    if (!('result' in response)) throw failure(response, 'create');
    return (response.result as { session: string }).session;
  };
  if (hasOption) {
    session = await create(Object.prototype.hasOwnProperty.call(vector, 'initialState') ? vector.initialState : undefined);
  }
  for (const [index, step] of vector.steps.entries()) {
    let response: Response;
    if (step.op === 'resume') {
      if (session === undefined) throw new Error(`${vector.id}: resume without a session`);
      const saved = await call(dispatcher, { op: 'getState', session });
      if (!('result' in saved)) throw failure(saved, 'getState');
      const blob = JSON.parse(JSON.stringify(saved.result)) as Json;
      const next = await create(blob);
      await call(dispatcher, { op: 'close', session });
      session = next;
      response = { id: saved.id, result: saved.result };
    } else {
      const request: Record<string, unknown> = {};
      for (const name of Object.keys(step)) {
        if (name !== 'expect') Object.defineProperty(request, name, { value: step[name], enumerable: true, writable: true, configurable: true });
      }
      if (session !== undefined) request.session = session;
      response = await call(dispatcher, request);
    }
    const expect = step.expect ?? {};
    const where = `${vector.id} step ${index} (${step.op})`;
    if (expect.error !== undefined) {
      if (!('error' in response)) problems.push(`${where}: expected error ${expect.error}, got result ${JSON.stringify(response.result)}`);
      else if (response.error.code !== expect.error) problems.push(`${where}: expected error ${expect.error}, got ${response.error.code}: ${response.error.message}`);
      else if (expect.message !== undefined && response.error.message !== expect.message) {
        problems.push(`${where}: expected message ${JSON.stringify(expect.message)}, got ${JSON.stringify(response.error.message)}`);
      }
    } else if ('result' in expect) {
      if (!('result' in response)) {
        problems.push(`${where}: expected a result, got error ${response.error.code}: ${response.error.message}`);
      } else {
        const actual = response.result;
        const difference = firstDifference(actual, expect.result);
        if (difference !== undefined) {
          problems.push(`${where}: differs at ${difference}: expected ${JSON.stringify(expect.result)}, got ${JSON.stringify(actual)}`);
        }
      }
    }
  }
  return problems;
}
