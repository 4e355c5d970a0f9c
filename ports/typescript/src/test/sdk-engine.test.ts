/**
 * The SDK engine harness (`--sdk-engine`, src/sdk-engine): the mapping rules
 * one by one, the checks that name what an SDK build lacks (over small fake
 * bundles this file writes), and, when `../shared/sdk` holds the SDK's own
 * engine bundle, runs through the real `callModel`. The whole engine vector
 * set and the SDK's recorded corpus go through it in the kit's
 * tests/test_sdk_engine_harness.py.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

import { readScenario } from '../engine/scenario.js';
import { loadSdkEngine, SdkBuildError, sdkEngineRunner, type SdkTranscript } from '../sdk-engine/index.js';
import { RunRecord } from '../sdk-engine/record.js';
import { ERROR_KINDS_FILE, kindOf, parseErrorKinds, runError } from '../sdk-engine/run-error.js';
import { asSdkEngineModule, bundlePath } from '../sdk-engine/sdk-api.js';
import { fromSdkState, sdkParsedArguments, toSdkState } from '../sdk-engine/state.js';
import { fromDispatchNote, sdkToolChoice } from '../sdk-engine/tool-choice.js';
import { sdkLoopKey } from '../sdk-engine/tools.js';
import { answer, normalisedRequest, ScriptExhausted } from '../sdk-engine/transport.js';

import { PACKAGE_ROOT, REPO_ROOT } from './support.js';

const call = (name: string, args: string, callId: string): Record<string, unknown> => ({ type: 'function_call', name, arguments: args, callId });
const text = (value: string): Record<string, unknown> => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: value }] });
const turn = (...output: Record<string, unknown>[]): Record<string, unknown> => ({ output });

function requestOf(data: Record<string, unknown>): ReturnType<typeof readScenario>['request'] {
  return readScenario({ id: 'r', request: data, runs: [{ input: 'go' }] }).request;
}

function recordFor(model: Record<string, unknown>[]): RunRecord {
  const scenario = readScenario({ id: 'r', runs: [{ input: 'go', model }] });
  return new RunRecord(0, scenario.runs[0]!);
}

describe('the tool choice as the SDK request member (ENG-145)', () => {
  it('gives a choice from dispatch 0, or one that is not forced, as it is', () => {
    assert.equal(sdkToolChoice(requestOf({ toolChoice: 'required' }), () => 0), 'required');
    assert.equal(sdkToolChoice(requestOf({ toolChoice: 'auto', toolChoiceFromDispatch: 2 }), () => 0), 'auto');
    const relaxedAllowed = { type: 'allowed_tools', mode: 'auto', tools: [] };
    assert.deepEqual(sdkToolChoice(requestOf({ toolChoice: relaxedAllowed, toolChoiceFromDispatch: 1 }), () => 0), relaxedAllowed);
    assert.equal(sdkToolChoice(requestOf({}), () => 0), undefined);
  });

  it('says when toolChoiceFromDispatch holds nothing back: the choice is not forced', () => {
    assert.match(fromDispatchNote(requestOf({ toolChoice: 'auto', toolChoiceFromDispatch: 2 })) ?? '', /"auto" is not forced/);
    assert.equal(fromDispatchNote(requestOf({ toolChoice: 'required', toolChoiceFromDispatch: 2 })), undefined);
    assert.equal(fromDispatchNote(requestOf({ toolChoice: 'auto' })), undefined);
  });

  it('gives a forced choice from dispatch N > 0 as a function of the requests the run sent', () => {
    for (const choice of ['required', { type: 'function', name: 'read' }, { type: 'web_search_preview' }, ['x'],
      { type: 'allowed_tools', mode: 'required', tools: [] }]) {
      let sent = 0;
      const member = sdkToolChoice(requestOf({ toolChoice: choice, toolChoiceFromDispatch: 2 }), () => sent);
      assert.equal(typeof member, 'function', JSON.stringify(choice));
      const dynamic = member as (context: { numberOfTurns: number }) => unknown;
      // the SDK's turn number is not read: on a decision resume it is not the run's dispatch index
      assert.equal(dynamic({ numberOfTurns: 5 }), undefined);
      sent = 1;
      assert.equal(dynamic({ numberOfTurns: 5 }), undefined);
      sent = 2;
      assert.deepEqual(dynamic({ numberOfTurns: 0 }), choice);
    }
  });
});

describe('the scripted model behind the transport (ENG-17, ENG-19, ENG-20)', () => {
  it('normalises the request: a string input is a user message, a function tool its type and name, stream dropped', () => {
    const normalised = normalisedRequest({
      model: 'm',
      input: 'hi',
      tools: [{ type: 'function', name: 'read', parameters: { type: 'object' } }, { type: 'web_search_preview' }],
      stream: false,
      temperature: undefined,
      toolChoice: 'none',
    });
    assert.deepEqual(normalised, {
      model: 'm',
      tools: [{ type: 'function', name: 'read' }, { type: 'web_search_preview' }],
      toolChoice: 'none',
      input: [{ role: 'user', content: 'hi' }],
    });
    assert.deepEqual(normalisedRequest({ model: 'm' }), { model: 'm', input: [] });
  });

  it('answers resp_1, resp_2, … from the script, then fails the dispatch that finds it exhausted', () => {
    const run = recordFor([turn(call('read', '{}', 'c1')), turn(text('done'))]);
    const first = answer(run, { responsesRequest: { model: 'm', input: 'go' } });
    const second = answer(run, { responsesRequest: { model: 'm', input: [] } });
    const third = answer(run, { responsesRequest: { model: 'm', input: [] } });
    assert.ok(first.ok && second.ok && !third.ok);
    assert.deepEqual([first.value.id, second.value.id, first.value.status], ['resp_1', 'resp_2', 'completed']);
    assert.deepEqual(first.value.output, [call('read', '{}', 'c1')]);
    assert.ok(third.error instanceof ScriptExhausted && third.error.dispatch === 2);
    assert.deepEqual(run.dispatches.map((d) => [d.index, d.responseId]), [[0, 'resp_1'], [1, 'resp_2'], [2, null]]);
  });
});

describe('the state accessor between the kit and the SDK (ENG-121, ENG-122)', () => {
  it('parses raw arguments as the SDK does', () => {
    assert.deepEqual(sdkParsedArguments(' {"a":1} '), { a: 1 });
    assert.deepEqual(sdkParsedArguments('  '), {});
    assert.equal(sdkParsedArguments('{"a":'), '{"a":');
  });

  it('turns pending function_call items into the SDK’s parsed calls and back', () => {
    const kit = {
      status: 'awaiting_approval',
      messages: [call('read', '{"p": 1}', 'c1'), call('read', '{"p":1}', 'c1')],
      pendingToolCalls: [call('read', '{"p":1}', 'c1')],
    };
    const sdk = toSdkState(kit, 's');
    assert.deepEqual(sdk.pendingToolCalls, [{ id: 'c1', name: 'read', arguments: { p: 1 } }]);
    assert.deepEqual([sdk.id, sdk.createdAt], ['conv_s', 0]);
    const notes: string[] = [];
    // the latest history item with the same id, name and parsed arguments gives the raw string back
    const back = fromSdkState({ ...sdk, pendingToolCalls: [{ id: 'c1', name: 'read', arguments: { p: 1 } }, { id: 'c1', name: 'read', arguments: { p: 1 } }] }, notes);
    assert.deepEqual(back, {
      status: 'awaiting_approval',
      messages: kit.messages,
      pendingToolCalls: [call('read', '{"p":1}', 'c1'), call('read', '{"p": 1}', 'c1')],
    });
    assert.deepEqual(notes, []);
  });

  it('writes a pending call without a history item with JSON.stringify, and says so', () => {
    const notes: string[] = [];
    const back = fromSdkState({ id: 'x', messages: [], pendingToolCalls: [{ id: 'c9', name: 'read', arguments: { q: [1] } }] }, notes);
    assert.deepEqual(back, { messages: [], pendingToolCalls: [call('read', '{"q":[1]}', 'c9')] });
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /c9/);
  });
});

describe('ENG-141 error kinds from the SDK’s messages', () => {
  const rows = parseErrorKinds(readFileSync(ERROR_KINDS_FILE, 'utf8'), 'table');

  it('reads each kind from the start of the message, a TypeError by its name', () => {
    assert.equal(kindOf(new Error('Invalid final response: empty or invalid output'), rows), 'invalid-final-response');
    assert.equal(kindOf(new Error('Tool(s) require approval but no state accessor is configured'), rows), 'approval-needs-state-accessor');
    assert.equal(kindOf(new Error('approveToolCalls and rejectToolCalls require a state accessor'), rows), 'decisions-need-state-accessor');
    assert.equal(kindOf(new TypeError("Cannot read properties of null (reading 'x')"), rows), 'type-error');
    assert.equal(kindOf(new Error('something else'), rows), 'sdk-error');
    assert.equal(kindOf(new Error('an Invalid final response: inside'), rows), 'sdk-error');
  });

  it('keeps the message, and names a script exhausted anywhere in the cause chain with its dispatch', () => {
    assert.deepEqual(runError(new Error('boom'), rows), { kind: 'sdk-error', message: 'boom' });
    assert.deepEqual(runError(new Error('wrapped', { cause: new ScriptExhausted(3) }), rows), { kind: 'script-exhausted', dispatch: 3 });
  });

  it('is the kit’s one table, copied from conformance/sdk_replay at build time', { skip: existsSync(resolve(REPO_ROOT, 'conformance')) ? false : 'not in a kit checkout' }, () => {
    const source = readFileSync(resolve(REPO_ROOT, 'conformance', 'sdk_replay', 'sdk-error-kinds.json'), 'utf8');
    assert.equal(readFileSync(ERROR_KINDS_FILE, 'utf8'), source);
    assert.ok(rows.length >= 4);
  });

  it('refuses a table of another shape', () => {
    assert.throws(() => parseErrorKinds('{"kinds": [["Invalid", "x"]]}', 'bad.json'), /bad\.json/);
  });
});

describe('function-form loop keys as JS functions (§15.1.4, ENG-40, ENG-154)', () => {
  it('projects array arguments as JS reads them: index names and length', () => {
    const run = recordFor([]);
    const key = sdkLoopKey({ function: 'project', fields: { 0: ['trim'], length: [], map: [] } }, 'read', run) as (args: unknown) => unknown;
    assert.deepEqual(key([' a ', 'b']), { 0: 'a', length: 2, map: undefined });
    assert.deepEqual(key({ 0: ' x ', length: 'L' }), { 0: 'x', length: 'L', map: undefined });
    assert.throws(() => key([]), TypeError);
    assert.equal(run.invocations.get('read'), 3);
  });

  it('reads no member of string arguments, and says so', () => {
    const run = recordFor([]);
    const key = sdkLoopKey({ function: 'project', fields: { length: [] } }, 'read', run) as (args: unknown) => unknown;
    assert.deepEqual(key('abc'), { length: undefined });
    assert.equal(run.notes.length, 1);
    assert.match(run.notes[0]!, /tool read: project got arguments that are a string/);
    key({ length: 1 });
    assert.equal(run.notes.length, 1);
  });

  it('gives each call of `returns` its own copy', () => {
    const key = sdkLoopKey({ function: 'returns', value: { a: [1] } }, 'read', recordFor([])) as (args: unknown) => { a: number[] };
    const first = key({});
    first.a.push(2);
    assert.deepEqual(key({}), { a: [1] });
  });

  it('makes resolution-fails a field list whose iteration throws the message', () => {
    const fields = sdkLoopKey({ function: 'resolution-fails', message: 'no identity' }, 'read', recordFor([])) as string[];
    assert.ok(Array.isArray(fields));
    assert.throws(() => [...fields], /no identity/);
  });

  it('passes field lists and other values through', () => {
    assert.deepEqual(sdkLoopKey(['path'], 'read', recordFor([])), ['path']);
    assert.equal(sdkLoopKey(false, 'read', recordFor([])), false);
  });
});

describe('what --sdk-engine accepts', () => {
  it('refuses an installed package or a folder, naming the reason and the guide', () => {
    assert.throws(() => bundlePath('@openrouter/agent', PACKAGE_ROOT), /documents no way to give callModel a client[\s\S]*write-a-harness\.md/);
    assert.throws(() => bundlePath('.', PACKAGE_ROOT), /names a package or a folder/);
  });

  it('names the exports a module lacks', () => {
    assert.throws(() => asSdkEngineModule({ callModel: () => {} }, 'm'), /m does not export ModelResult, HooksManager, tool, stepCountIs, z \(zod, with z\.any\), doomLoop/);
  });
});

// ---------------------------------------------------------------------------
// Fake bundles: just enough of a run loop to exercise the loader's checks and
// the mapping (one initial request; the exhausted dispatch's kind from its call site).
// ---------------------------------------------------------------------------

interface FakeOptions {
  transport?: boolean;
  postModelCall?: boolean;
  round?: boolean;
  withoutMethod?: string;
}

function fakeBundle(options: FakeOptions): string {
  const doomLoop = pathToFileURL(resolve(PACKAGE_ROOT, 'dist', 'doom-loop.js')).href;
  const send = options.transport === false
    ? `const result = { ok: true, value: { id: 'real_1', output: [] } };`
    : `const result = await globalThis.__sdkEngineSend({ responsesRequest: { model: this.request.model, input: this.request.input, stream: false } });`;
  const methods = ['continueWithUnsentResults', 'makeFollowupRequest', 'makeFinalResponseRequest', 'retryCurrentRequest', 'runToolWithHooks', 'applyDoomLoopVerdict']
    .filter((name) => name !== options.withoutMethod)
    .map((name) => `  ${name}() {}`)
    .join('\n');
  return `export * as doomLoop from ${JSON.stringify(doomLoop)};
export const z = { any: () => ({}) };
export const tool = (config) => config;
export const stepCountIs = (steps) => steps;
export class HooksManager {
  constructor() { this.entries = []; }
  on(hook, entry) { this.entries.push([hook, entry]); }
  async emit(hook, payload) { for (const [name, entry] of this.entries) if (name === hook) await entry.handler(payload); }
}
export class ModelResult {
  constructor(request) {
    this.request = request;
    ${options.round === false ? '' : 'this.doomLoopRound = 0;'}
    this.doomLoopMonitor = request.doomLoop ? { config: { fake: true } } : null;
    this.done = this.run();
    this.done.catch(() => {});
  }
  async run() {
    await this.request.hooks.emit('SessionStart', {});
    try {
      const response = await this.initStream();
      await this.emitSessionEndOnce('complete');
      return response;
    } catch (error) {
      await this.emitSessionEndOnce('error');
      throw error;
    }
  }
  async initStream() {
    ${send}
    if (!result.ok) throw result.error;
    ${options.postModelCall === false ? '' : "await this.request.hooks.emit('PostModelCall', { responseId: result.value.id, turnType: 'initial' });"}
    return result.value;
  }
  async emitSessionEndOnce(reason) { await this.request.hooks.emit('SessionEnd', { reason }); }
${methods}
  getResponse() { return this.done; }
  async getText() { return 'ok'; }
  async getDoomLoopVerdict() { return null; }
}
export const callModel = (client, request) => new ModelResult(request);
`;
}

describe('an SDK build the harness cannot drive is named at load', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sdk-engine-fakes-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  let count = 0;
  const write = (options: FakeOptions): string => {
    count += 1;
    const path = join(folder, `fake-${count}.mjs`);
    writeFileSync(path, fakeBundle(options));
    return path;
  };
  const refused = async (options: FakeOptions, pattern: RegExp): Promise<void> => {
    await assert.rejects(loadSdkEngine(write(options)), (error: unknown) => {
      assert.ok(error instanceof SdkBuildError, String(error));
      assert.match(error.message, pattern);
      return true;
    });
  };

  it('a transport that never calls the hook', () => refused({ transport: false }, /does not call globalThis\.__sdkEngineSend/));
  it('a run loop without PostModelCall', () => refused({ postModelCall: false }, /no PostModelCall hook/));
  it('a ModelResult without an observed method', () => refused({ withoutMethod: 'retryCurrentRequest' }, /ModelResult\.prototype lacks retryCurrentRequest/));
  it('a result without doomLoopRound', () => refused({ round: false }, /doomLoopRound/));

  it('a build with all of it loads, and its runs map onto the transcript', async () => {
    const loaded = await loadSdkEngine(write({}));
    const run = sdkEngineRunner(loaded.sdk);
    const transcript = (await run({
      id: 'fake',
      doomLoop: true,
      runs: [{ input: 'go', model: [turn(text('ok'))] }, { input: 'again', model: [] }],
    })) as SdkTranscript;
    const [answered, exhausted] = transcript.runs;
    assert.deepEqual(answered?.dispatches.map((d) => [d.kind, d.responseId]), [['initial', 'resp_1']]);
    assert.deepEqual(answered?.end, { status: null, reason: 'complete', finalResponseId: 'resp_1', finalText: 'ok', stopVerdict: null });
    assert.deepEqual(answered?.config, { fake: true });
    // no PostModelCall for the dispatch that found the script exhausted: its kind is its call site's
    assert.deepEqual(exhausted?.dispatches.map((d) => [d.kind, d.responseId]), [['initial', null]]);
    assert.deepEqual(exhausted?.end, { status: null, reason: 'error', finalResponseId: null, finalText: null, stopVerdict: null, error: { kind: 'script-exhausted', dispatch: 0 } });
    assert.deepEqual(exhausted?.events.map((e) => e.hook), ['SessionStart', 'SessionEnd']);
  });
});

// ---------------------------------------------------------------------------
// The SDK's own engine bundle, when this checkout has ../shared/sdk beside it.
// ---------------------------------------------------------------------------

const BUNDLE = process.env.DOOMLOOP_SDK_ENGINE_BUNDLE ?? resolve(REPO_ROOT, '..', 'shared', 'sdk', 'sdk-engine.min.mjs');
const noBundle = existsSync(BUNDLE) ? false : `no SDK engine bundle at ${BUNDLE} (a port author's checkout has none; set DOOMLOOP_SDK_ENGINE_BUNDLE)`;

describe('the SDK’s own run loop', { skip: noBundle }, () => {
  const runner = async (): Promise<(scenario: unknown) => Promise<SdkTranscript>> => {
    const loaded = await loadSdkEngine(BUNDLE);
    const run = sdkEngineRunner(loaded.sdk);
    return async (scenario) => (await run(scenario)) as SdkTranscript;
  };

  it('applies toolChoiceFromDispatch by the run’s dispatch index on a decision resume too (ENG-145, ENG-19)', async () => {
    const run = await runner();
    const transcript = await run({
      id: 'resume-choice',
      doomLoop: true,
      tools: [{ name: 't' }, { name: 'ap', kind: 'approval' }],
      request: { toolChoice: 'required', toolChoiceFromDispatch: 1 },
      runs: [
        { input: 'go', model: [turn(call('ap', '{}', 'a1'))] },
        { approve: ['a1'], model: [turn(call('t', '{}', 'c1')), turn(text('done'))] },
      ],
    });
    const choices = transcript.runs.map((r) => r.dispatches.map((d) => [d.kind, (d.request as { toolChoice?: unknown }).toolChoice ?? null]));
    assert.deepEqual(choices, [[['initial', null]], [['resume', null], ['follow-up', 'required']]]);
    assert.deepEqual(transcript.runs[1]?.executions.map((e) => e.callId), ['a1', 'c1']);
  });

  it('reads the ENG-141 kinds and the exhausted dispatch’s kind', async () => {
    const run = await runner();
    const decisions = await run({ id: 'no-accessor', stateAccessor: false, runs: [{ approve: ['x'], model: [] }] });
    assert.deepEqual(decisions.runs[0]?.end.error?.kind, 'decisions-need-state-accessor');
    assert.equal(decisions.runs[0]?.end.reason, null);
    assert.equal(decisions.runs[0]?.config, null);
    const empty = await run({ id: 'empty', runs: [{ input: 'go', model: [turn()] }] });
    assert.equal(empty.runs[0]?.end.error?.kind, 'invalid-final-response');
    assert.match(empty.runs[0]?.end.error?.message ?? '', /^Invalid final response:/);
    const exhausted = await run({ id: 'exhausted', tools: [{ name: 'read' }], runs: [{ input: 'go', model: [turn(call('read', '{}', 'c1'))] }] });
    const [first, second] = exhausted.runs[0]?.dispatches ?? [];
    assert.deepEqual([first?.kind, second?.kind, second?.responseId], ['initial', 'follow-up', null]);
    assert.deepEqual(exhausted.runs[0]?.end.error, { kind: 'script-exhausted', dispatch: 1 });
  });

  it('gives an approved HITL call the body’s answer in the resume, and records its hooks with the call id', async () => {
    const run = await runner();
    const transcript = await run({
      id: 'hitl',
      doomLoop: true,
      tools: [{ name: 'ask', kind: 'hitl', result: { answer: 42 } }],
      runs: [
        { input: 'go', model: [turn(call('ask', '{"q":1}', 'h1'))] },
        { approve: ['h1'], model: [turn(text('thanks'))] },
      ],
    });
    const [paused, resumed] = transcript.runs;
    assert.equal(paused?.end.status, 'awaiting_hitl');
    assert.deepEqual(paused?.executions, []);
    assert.deepEqual(resumed?.executions.map((e) => [e.callId, e.arguments]), [['h1', { q: 1 }]]);
    const toolEvents = resumed?.events.filter((e) => e.hook.endsWith('ToolUse')).map((e) => [e.hook, e.payload]);
    assert.deepEqual(toolEvents, [['PreToolUse', { toolName: 'ask', callId: 'h1' }], ['PostToolUse', { toolName: 'ask', callId: 'h1' }]]);
    assert.equal(resumed?.end.finalText, 'thanks');
    const sent = JSON.stringify(resumed?.dispatches[0]?.request);
    assert.ok(sent.includes('42'), sent);
  });

  it('answers only the approved batch: a new HITL call reusing the approved id pauses again', async () => {
    const run = await runner();
    const transcript = await run({
      id: 'hitl-same-id',
      doomLoop: true,
      tools: [{ name: 'ask', kind: 'hitl' }],
      runs: [
        { input: 'go', model: [turn(call('ask', '{"q":1}', 'h1'))] },
        { approve: ['h1'], model: [turn(call('ask', '{"q":2}', 'h1')), turn(text('x'))] },
      ],
    });
    const resumed = transcript.runs[1];
    assert.deepEqual(resumed?.executions.map((e) => [e.callId, e.arguments]), [['h1', { q: 1 }]]);
    assert.deepEqual([resumed?.dispatches.length, resumed?.end.status], [1, 'awaiting_hitl']);
  });

  it('the bin serves it, and refuses an installed package with the reason', () => {
    const harness = resolve(PACKAGE_ROOT, 'dist', 'harness.js');
    const lines = '{"id":1,"op":"hello","protocol":1}\n{"id":2,"op":"runScenario","scenario":{"id":"x","runs":[{"input":"hi","model":[{"output":[]}]}]}}\n';
    const served = spawnSync(process.execPath, [harness, '--sdk-engine', BUNDLE], { input: lines, encoding: 'utf8' });
    assert.equal(served.status, 0, served.stderr);
    const [hello, scenario] = served.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, { features?: string[]; runs?: { end: { error: { kind: string } } }[] }>);
    assert.ok(hello?.result?.features?.includes('engine'));
    assert.equal(scenario?.result?.runs?.[0]?.end.error.kind, 'invalid-final-response');
    const folder = mkdtempSync(join(tmpdir(), 'sdk-engine-pkg-'));
    try {
      mkdirSync(join(folder, 'node_modules'));
      const refused = spawnSync(process.execPath, [harness, '--sdk-engine', '@openrouter/agent'], { cwd: folder, input: lines, encoding: 'utf8' });
      assert.equal(refused.status, 2);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /documents no way to give callModel a client/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
