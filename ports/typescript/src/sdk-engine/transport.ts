/**
 * The scripted model behind the SDK's transport (ENG-17, ENG-19, ENG-20).
 *
 * An engine bundle sends each model request through
 * `globalThis.__sdkEngineSend({responsesRequest})` and expects a result
 * `{ok: true, value: <response>}` or `{ok: false, error}`. The harness answers
 * the run in progress: the next scripted response as `{id: resp_N, output}`,
 * shaped as a completed non-streaming Responses API response (no `outputText`,
 * no `usage`), or, once the script is exhausted, a failure. Every request is
 * recorded as the kit's normalised request (ENG-156).
 */

import { clone, defineMember, hasOwn, isObject, type Json, type JsonObject, viaJson } from '../engine/json.js';

import { context } from './observe.js';
import { currentRun, type RunRecord } from './record.js';

/** The name of the transport hook an engine bundle calls. */
export const SEND_HOOK = '__sdkEngineSend';

/** The dispatch found the scripted model exhausted (ENG-20). */
export class ScriptExhausted extends Error {
  constructor(readonly dispatch: number) {
    super(`scripted model exhausted at dispatch ${dispatch}`);
    this.name = 'ScriptExhausted';
  }
}

type SendResult = { ok: true; value: JsonObject } | { ok: false; error: Error };

/** Members of the SDK's request the normalised request leaves out: `stream` is transport. */
const TRANSPORT_ONLY = new Set(['stream']);

/**
 * The SDK's request as the kit's normalised request (ENG-156): a function
 * tool is `{type, name}`, a string input is one user message, everything
 * else the SDK sent is kept so that it shows.
 */
export function normalisedRequest(request: unknown): Json {
  const sent = isObject(request) ? request : {};
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(sent)) {
    if (TRANSPORT_ONLY.has(name) || name === 'input' || value === undefined) continue;
    defineMember(out, name, name === 'tools' && Array.isArray(value) ? value.map(offeredTool) : clone(value));
  }
  const input = sent.input;
  out.input = typeof input === 'string' ? [{ role: 'user', content: input }] : clone(input ?? []);
  return viaJson(out);
}

function offeredTool(tool: unknown): unknown {
  return isObject(tool) && tool.type === 'function' ? { type: 'function', name: tool.name } : clone(tool);
}

/** A completed non-streaming response carrying the scripted output items. */
export function scriptedResponse(id: string, output: JsonObject[], model: unknown): JsonObject {
  return {
    id,
    object: 'response',
    createdAt: 0,
    model: typeof model === 'string' ? model : 'scripted-model',
    status: 'completed',
    completedAt: 0,
    output,
    error: null,
    incompleteDetails: null,
    temperature: null,
    topP: null,
    presencePenalty: null,
    frequencyPenalty: null,
    metadata: null,
    instructions: null,
    tools: [],
    toolChoice: 'auto',
    parallelToolCalls: false,
  };
}

/** Answer one request of `run` from its script, recording it. */
export function answer(run: RunRecord, payload: unknown): SendResult {
  const request = isObject(payload) && isObject(payload.responsesRequest) ? payload.responsesRequest : {};
  const index = run.dispatches.length;
  const site = context().site;
  const scripted = run.spec.model[run.answered];
  if (scripted === undefined) {
    run.dispatches.push({ index, request: normalisedRequest(request), responseId: null, site });
    return { ok: false, error: new ScriptExhausted(index) };
  }
  run.answered += 1;
  const id = `resp_${run.answered}`;
  run.dispatches.push({ index, request: normalisedRequest(request), responseId: id, site });
  return { ok: true, value: scriptedResponse(id, clone(scripted.output), hasOwn(request, 'model') ? request.model : undefined) };
}

/**
 * Install the transport hook (answering the run in progress) and refuse any
 * network access: nothing the harness drives may reach a real model.
 */
export function installTransport(): void {
  const global = globalThis as Record<string, unknown>;
  global[SEND_HOOK] = async (payload: unknown): Promise<SendResult> => {
    const run = currentRun();
    return run === undefined ? { ok: false, error: new Error('no run in progress') } : answer(run, payload);
  };
  global.fetch = async (): Promise<never> => {
    throw new Error('the doomloop-kit SDK engine harness refuses network access');
  };
}

