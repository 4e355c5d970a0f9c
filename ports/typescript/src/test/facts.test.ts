/**
 * Brief §7 / spec §9.8 worked examples (the upstream test-suite's pinned
 * facts), transcribed by hand: the expected actions are the independent
 * source, not this port's output.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DoomLoopMonitor, resolveDoomLoopOption, type DoomLoopAction } from '../doom-loop.js';

type Cell = [number, DoomLoopAction | null];

async function run(rounds: string[][], declared = true, monitor = new DoomLoopMonitor(resolveDoomLoopOption(true))): Promise<Cell[][]> {
  const out: Cell[][] = [];
  for (const [round, paths] of rounds.entries()) {
    if (declared) await monitor.declareRound(round, paths.map((path) => ({ toolName: 'read', keyMaterial: { path } })));
    const row: Cell[] = [];
    for (const path of paths) {
      const record = await monitor.recordToolCall('read', { path }, round);
      row.push([record.streak, record.verdict?.action ?? null]);
    }
    out.push(row);
  }
  return out;
}

const N = null;
const actions = (cells: Cell[][]): (DoomLoopAction | null)[][] => cells.map((row) => row.map(([, action]) => action));

describe('brief §7 facts', () => {
  it('E1 [a,b,c] x3', async () => {
    assert.deepEqual(actions(await run([['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c']])), [[N, N, N], ['observe', 'observe', 'observe'], ['block', 'block', 'block']]);
  });
  it('E2 permuted fan-out', async () => {
    assert.deepEqual(actions(await run([['a', 'b', 'c'], ['c', 'a', 'b'], ['b', 'c', 'a']])), [[N, N, N], ['observe', 'observe', 'observe'], ['block', 'block', 'block']]);
  });
  it('E3 member changes', async () => {
    assert.deepEqual(await run([['a', 'b'], ['a', 'b'], ['a', 'z'], ['a', 'z']]), [
      [[1, N], [1, N]], [[2, 'observe'], [2, 'observe']], [[3, 'block'], [1, N]], [[4, 'block'], [2, 'observe']],
    ]);
  });
  it('E4 subset', async () => {
    assert.deepEqual(actions(await run([['a', 'b', 'c'], ['a', 'b']])), [[N, N, N], ['observe', 'observe']]);
  });
  it('E5 superset', async () => {
    assert.deepEqual(actions(await run([['a', 'b'], ['a', 'b'], ['a', 'b', 'c']])), [[N, N], ['observe', 'observe'], ['block', 'block', N]]);
  });
  it('E6 superset, permuted', async () => {
    assert.deepEqual(actions(await run([['a', 'b'], ['a', 'b'], ['c', 'a', 'b']])), [[N, N], ['observe', 'observe'], [N, 'block', 'block']]);
  });
  it('E7 expanding', async () => {
    assert.deepEqual(actions(await run([['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', 'd']])), [
      [N], ['observe', N], ['block', 'observe', N], ['block', 'block', 'observe', N],
    ]);
  });
  it('E8 [a] x4', async () => {
    assert.deepEqual(actions(await run([['a'], ['a'], ['a'], ['a']])), [[N], ['observe'], ['block'], ['block']]);
  });
  it('E9 undeclared [a,b] x2', async () => {
    assert.deepEqual(await run([['a', 'b'], ['a', 'b']], false), [[[1, N], [1, N]], [[2, 'observe'], [2, 'observe']]]);
  });
  it('E10 undeclared [b,a],[b,c],[b,d]', async () => {
    assert.deepEqual(await run([['b', 'a'], ['b', 'c'], ['b', 'd']], false), [[[1, N], [1, N]], [[2, 'observe'], [1, N]], [[3, 'block'], [1, N]]]);
  });
  it('E11 in-round duplicate', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    await monitor.declareRound(1, [{ toolName: 'read', keyMaterial: { path: 'a' } }]);
    const first = await monitor.recordToolCall('read', { path: 'a' }, 1);
    const second = await monitor.recordToolCall('read', { path: 'a' }, 1);
    assert.equal(first.duplicateInRound, false);
    assert.equal(second.duplicateInRound, true);
    assert.equal(second.streak, first.streak);
  });
  it('E12 save, restore, record round 0 again', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    await run([['a'], ['a']], true, monitor);
    const blob = JSON.parse(JSON.stringify(monitor.getState())) as unknown;
    const resumed = new DoomLoopMonitor(resolveDoomLoopOption(true), blob);
    const record = await resumed.recordToolCall('read', { path: 'a' }, 0);
    assert.equal(record.streak, 3);
    assert.equal(record.verdict?.action, 'block');
  });
  it('E13 unhashable call left out of the declaration', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    const warn = console.warn;
    console.warn = () => {};
    try {
      const results: Cell[][] = [];
      for (const round of [1, 2]) {
        await monitor.declareRound(round, [
          { toolName: 'read', keyMaterial: { path: 'a' } },
          { toolName: 'read', keyMaterial: { n: 1n } },
        ]);
        const a = await monitor.recordToolCall('read', { path: 'a' }, round);
        await assert.rejects(monitor.recordToolCall('read', { n: 1n }, round));
        const f = await monitor.recordToolCall('read', { fallback: 'F' }, round);
        results.push([[a.streak, a.verdict?.action ?? null], [f.streak, f.verdict?.action ?? null]]);
      }
      assert.deepEqual(results, [[[1, N], [1, N]], [[2, 'observe'], [2, 'observe']]]);
      // MON-29: the fallback identity does not take over the declared round's entry.
      assert.equal(monitor.getState().tools.read?.fingerprint, '368f5e5af081781eca48b52e9904ebce75f15f3490078842fb62647ba7721586');
    } finally {
      console.warn = warn;
    }
  });
});

describe('messages (§11.4)', () => {
  it('fan-out message for E1 round 2', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    const cells = [['a', 'b', 'c'], ['a', 'b', 'c']];
    let last: string | undefined;
    for (const [round, paths] of cells.entries()) {
      await monitor.declareRound(round, paths.map((path) => ({ toolName: 'read', keyMaterial: { path } })));
      for (const path of paths) last = (await monitor.recordToolCall('read', { path }, round)).verdict?.message;
    }
    assert.equal(
      last,
      'Doom loop suspected: tool "read" was invoked in 2 consecutive rounds with the same set of 3 parallel calls (round identity 368f5e5a+e43d5976+ea865a94\u2026). Reissuing the same fan-out will not change the results. Take a different approach, or explain why repetition is required.',
    );
  });
});

describe('a tool named __proto__ (DIV-03)', () => {
  it('is recorded, persisted as an own member and restored', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    await monitor.recordToolCall('__proto__', { q: 1 }, 0);
    const second = await monitor.recordToolCall('__proto__', { q: 1 }, 1);
    assert.equal(second.streak, 2);
    const state = monitor.getState();
    assert.ok(Object.prototype.hasOwnProperty.call(state.tools, '__proto__'));
    assert.equal(Object.getPrototypeOf(state.tools), Object.prototype);
    const text = JSON.stringify(state);
    assert.match(text, /"__proto__":\{"fingerprint":"[0-9a-f]{64}","streak":2\}/);
    const resumed = new DoomLoopMonitor(resolveDoomLoopOption(true), JSON.parse(text));
    assert.equal((await resumed.recordToolCall('__proto__', { q: 1 }, 5)).streak, 3);
  });
});
