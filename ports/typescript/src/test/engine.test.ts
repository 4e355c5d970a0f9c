/**
 * The engine layer (src/engine, spec §15) over the monitor module's public API,
 * and the harness's `runScenario` (protocol 1.2, feature `engine`). Transcripts
 * of the brief's scenarios are compared with the reference engine by the kit's
 * tests/test_ts_engine.py and by the engine vectors (vectors.test.ts); these
 * tests pin facts of the spec directly.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import * as port from '../doom-loop.js';
import { OutsideDomain, runScenario, ScenarioError, type Transcript } from '../engine/index.js';
import { Dispatcher, type ScenarioRunner, typescriptPortEngine } from '../protocol.js';
import { JS_MODULE_FEATURES } from '../wire.js';

const call = (name: string, args: string, callId: string): Record<string, unknown> => ({
  type: 'function_call',
  name,
  arguments: args,
  callId,
});
const text = (value: string): Record<string, unknown> => ({
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text: value }],
});
const turn = (...output: Record<string, unknown>[]): Record<string, unknown> => ({ output });

/** The same call four times over a default ladder (observe 2, block 3, stop 6: CFG-12), then text. */
const REPEATING = {
  id: 'repeating',
  doomLoop: true,
  tools: [{ name: 'read' }],
  runs: [
    {
      input: 'go',
      model: [
        turn(call('read', '{"p":1}', 'c1')),
        turn(call('read', '{"p":1}', 'c2')),
        turn(call('read', '{"p":1}', 'c3')),
        turn(text('done')),
      ],
    },
  ],
};

/** A module object holding nothing but the exports the engine may use. */
const bareModule = Object.freeze({
  resolveDoomLoopOption: port.resolveDoomLoopOption,
  resolveLoopKeyMaterial: port.resolveLoopKeyMaterial,
  canonicalizeKeyMaterial: port.canonicalizeKeyMaterial,
  DoomLoopMonitor: port.DoomLoopMonitor,
});

function dispatcher(features: readonly string[] = [...JS_MODULE_FEATURES, 'engine'], engine: ScenarioRunner | null = typescriptPortEngine(port)): Dispatcher {
  const options = { implementation: { name: 't', language: 'typescript', version: '0' }, features, log: () => {} };
  return new Dispatcher(port, engine === null ? options : { ...options, engine });
}

describe('engine', () => {
  it('drives the monitor through its public API only (ENG-14)', async () => {
    const overPort = await runScenario(port, REPEATING);
    const overBare = await runScenario(bareModule, REPEATING);
    assert.deepEqual(overBare, overPort);
  });

  it('numbers responses resp_1, resp_2, … in the order they are consumed (ENG-17)', async () => {
    const transcript: Transcript = await runScenario(port, REPEATING);
    const ids = transcript.runs[0]?.dispatches.map((dispatch) => dispatch.responseId);
    assert.deepEqual(ids, ['resp_1', 'resp_2', 'resp_3', 'resp_4']);
  });

  it('blocks the third identical call: its body does not run and its output is an error (ENG-78, CFG-12)', async () => {
    const run = (await runScenario(port, REPEATING)).runs[0]!;
    assert.deepEqual(run.executions.map((execution) => execution.callId), ['c1', 'c2']);
    const detected = run.events.filter((event) => event.hook === 'DoomLoopDetected').map((event) => event.appliedAction);
    assert.deepEqual(detected, ['observe', 'block']);
    const input = (run.dispatches[3]?.request as { input: { type?: string; callId?: string; output?: string }[] }).input;
    const blocked = input.find((item) => item.type === 'function_call_output' && item.callId === 'c3');
    assert.ok(blocked?.output !== undefined && 'error' in (JSON.parse(blocked.output) as object));
  });

  it('never sends the doomLoop option to the model (ENG-25)', async () => {
    const run = (await runScenario(port, REPEATING)).runs[0]!;
    for (const dispatch of run.dispatches) assert.ok(!('doomLoop' in (dispatch.request as object)));
  });

  it('ends the run with script-exhausted when the scripted model runs out (ENG-20)', async () => {
    const scenario = { ...REPEATING, runs: [{ input: 'go', model: [turn(call('read', '{}', 'c1'))] }] };
    const run = (await runScenario(port, scenario)).runs[0]!;
    assert.deepEqual(run.end.error, { kind: 'script-exhausted', dispatch: 1 });
    assert.equal(run.end.reason, 'error');
    assert.deepEqual(run.events.at(-1), { hook: 'SessionEnd', payload: { reason: 'error' } });
  });

  it('ends the stopWhen path with Stop, max_turns and the directive after the skipped outputs (ENG-147)', async () => {
    const scenario = {
      id: 'stop-when',
      tools: [{ name: 'read' }, { name: 'mine', kind: 'manual' }],
      request: { stopWhenSteps: 1, allowFinalResponse: 'Answer now.' },
      runs: [
        {
          input: 'go',
          model: [
            turn(call('read', '{"p":1}', 'c1')),
            turn(call('read', '{"p":2}', 'c2'), call('mine', '{}', 'c3')),
            turn(text('done')),
          ],
        },
      ],
    };
    const run = (await runScenario(port, scenario)).runs[0]!;
    const hooks = run.events.map((event) => event.hook);
    assert.deepEqual(hooks, ['SessionStart', 'PreToolUse', 'PostToolUse', 'Stop', 'PreToolUse', 'PostToolUse', 'SessionEnd']);
    assert.deepEqual(run.events[3], { hook: 'Stop', payload: { reason: 'max_turns' } });
    assert.equal(run.end.reason, 'max_turns');
    const final = run.dispatches[2]!;
    assert.equal(final.kind, 'final');
    const input = (final.request as { input: unknown[] }).input;
    assert.deepEqual(input.slice(-2), [
      { type: 'function_call_output', callId: 'c3', output: 'Tool execution skipped: step limit reached.' },
      { role: 'user', content: 'Answer now.' },
    ]);
    const saved = JSON.stringify(run.state);
    assert.ok(!saved.includes('Answer now.') && !saved.includes('skipped'), 'the directive and the skipped output are never persisted');
  });

  it('relaxes a consumed forced tool choice and records its canonical key until the run completes (ENG-145)', async () => {
    const choice = { type: 'function', name: 'read' };
    const scenario = {
      id: 'forced',
      tools: [{ name: 'read' }],
      request: { toolChoice: choice },
      runs: [{ input: 'go', model: [turn(call('read', '{}', 'c1')), turn(call('read', '{"p":2}', 'c2')), turn(text('done'))] }],
    };
    const run = (await runScenario(port, scenario)).runs[0]!;
    const choices = run.dispatches.map((dispatch) => (dispatch.request as { toolChoice?: unknown }).toolChoice);
    assert.deepEqual(choices, [choice, 'auto', 'auto']);
    const paused = { ...scenario, tools: [{ name: 'read' }, { name: 'ask', kind: 'approval' }] };
    paused.runs = [{ input: 'go', model: [turn(call('read', '{}', 'c1')), turn(call('ask', '{}', 'c2'))] }];
    const state = (await runScenario(port, paused)).runs[0]!.state as { consumedForcedToolChoiceKey?: string };
    assert.equal(state.consumedForcedToolChoiceKey, '{"name":"read","type":"function"}');
  });

  it('fails a run whose first response is empty, and retries an empty response after a round once (ENG-142)', async () => {
    const empty = await runScenario(port, { ...REPEATING, runs: [{ input: 'go', model: [turn()] }] });
    assert.deepEqual(empty.runs[0]!.end.error, { kind: 'invalid-final-response' });
    assert.equal(empty.runs[0]!.end.stopVerdict, null);
    const retried = await runScenario(port, { ...REPEATING, runs: [{ input: 'go', model: [turn(call('read', '{}', 'c1')), turn(), turn()] }] });
    const run = retried.runs[0]!;
    assert.deepEqual(run.dispatches.map((dispatch) => [dispatch.kind, (dispatch.request as { toolChoice?: unknown }).toolChoice]), [
      ['initial', undefined],
      ['follow-up', undefined],
      ['retry', 'none'],
    ]);
    assert.deepEqual([run.end.reason, run.end.finalResponseId], ['complete', 'resp_3']);
  });

  it('treats arguments that parse to a JSON string as malformed and trims with JS trim (ENG-137)', async () => {
    const scenario = {
      id: 'arguments',
      tools: [{ name: 'read' }],
      runs: [{ input: 'go', model: [turn(call('read', '"x"', 'c1'), call('read', '\uFEFF{"p":1}\u2028', 'c2')), turn(text('done'))] }],
    };
    const run = (await runScenario(port, scenario)).runs[0]!;
    assert.deepEqual(run.executions.map((execution) => [execution.callId, execution.arguments]), [['c2', { p: 1 }]]);
    const input = (run.dispatches[1]?.request as { input: { type?: string; callId?: string; output?: string }[] }).input;
    const output = input.find((item) => item.type === 'function_call_output' && item.callId === 'c1');
    assert.match(output?.output ?? '', /Raw arguments received: \\"x\\"/);
  });

  it('runs the body of a call whose arguments are not an object, without tool hooks (ENG-140)', async () => {
    const scenario = { id: 'array', tools: [{ name: 'read' }], runs: [{ input: 'go', model: [turn(call('read', '[1,2]', 'c1')), turn(text('ok'))] }] };
    const run = (await runScenario(port, scenario)).runs[0]!;
    assert.equal(run.executions.length, 1);
    assert.deepEqual(run.events.map((event) => event.hook), ['SessionStart', 'SessionEnd']);
  });

  it('refuses a run outside the domain: a pending call decided twice (ENG-151)', async () => {
    const scenario = {
      id: 'twice',
      tools: [{ name: 'ask', kind: 'approval' }],
      runs: [
        { input: 'go', model: [turn(call('ask', '{}', 'c1'))] },
        { approve: ['c1', 'c1'], model: [turn(text('done'))] },
      ],
    };
    await assert.rejects(runScenario(port, scenario), OutsideDomain);
    const response = await dispatcher().handle({ id: 9, op: 'runScenario', scenario });
    assert.ok('error' in response && response.error.code === 'bad-scenario');
  });

  it('rejects a malformed scenario before any run (ENG-23)', async () => {
    await assert.rejects(runScenario(port, { ...REPEATING, colour: 'blue' }), ScenarioError);
    await assert.rejects(runScenario(port, { id: 'x', runs: [{ model: [] }] }), ScenarioError);
    await assert.rejects(runScenario(port, { id: 'x', runs: [{ input: 'go', model: [turn({ role: 'assistant' })] }] }), ScenarioError);
  });
});

describe('runScenario over the protocol', () => {
  it('declares the engine feature and answers with the transcript', async () => {
    const hello = await dispatcher().handle({ id: 1, op: 'hello', protocol: 1 });
    assert.ok('result' in hello && (hello.result as { features: string[] }).features.includes('engine'));
    const response = await dispatcher().handle({ id: 2, op: 'runScenario', scenario: REPEATING });
    assert.ok('result' in response);
    assert.deepEqual(response.result, JSON.parse(JSON.stringify(await runScenario(port, REPEATING))));
  });

  it('answers bad-scenario for a malformed scenario and bad-request without one', async () => {
    const bad = await dispatcher().handle({ id: 3, op: 'runScenario', scenario: { id: 'x', runs: 'none' } });
    assert.ok('error' in bad && bad.error.code === 'bad-scenario');
    const missing = await dispatcher().handle({ id: 4, op: 'runScenario' });
    assert.ok('error' in missing && missing.error.code === 'bad-request');
  });

  it('does not know runScenario when engine is left out of the features', async () => {
    const without = dispatcher(JS_MODULE_FEATURES);
    const response = await without.handle({ id: 5, op: 'runScenario', scenario: REPEATING });
    assert.ok('error' in response && response.error.code === 'unknown-op');
  });

  it('never declares engine without a run loop of the port (issue 33)', async () => {
    const noLoop = dispatcher([...JS_MODULE_FEATURES, 'engine'], null);
    const hello = await noLoop.handle({ id: 1, op: 'hello', protocol: 1 });
    assert.ok('result' in hello);
    assert.ok(!(hello.result as { features: string[] }).features.includes('engine'));
    const response = await noLoop.handle({ id: 2, op: 'runScenario', scenario: REPEATING });
    assert.ok('error' in response && response.error.code === 'unknown-op');
  });

  it('answers runScenario with the run loop the port gives, not the kit\'s', async () => {
    const own = dispatcher([...JS_MODULE_FEATURES, 'engine'], (scenario) => ({ scenario: (scenario as { id: string }).id, runs: [] }));
    const response = await own.handle({ id: 3, op: 'runScenario', scenario: REPEATING });
    assert.ok('result' in response);
    assert.deepEqual(response.result, { scenario: REPEATING.id, runs: [] });
  });
});
