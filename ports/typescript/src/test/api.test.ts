/**
 * Direct checks of the public API against the spec's example tables:
 * §3.6 configuration, §4.3 loop keys, §7.5 text, §8 ladder, §10.2 restore.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  DEFAULT_DOOM_LOOP_LADDER,
  DEFAULT_MAX_ESCALATIONS,
  detectTextRepetition,
  DoomLoopMonitor,
  MAX_CANONICALIZE_DEPTH,
  resolveDoomLoopOption,
  resolveLadderAction,
  resolveLoopKeyMaterial,
  type DoomLoopOption,
} from '../doom-loop.js';
import { classifyWarning } from '../warning-codes.js';

/** Resolve `option`, classifying each console.warn call, which must have exactly one string argument (CFG-26). */
function resolveWithWarnings(option: unknown): { config: ReturnType<typeof resolveDoomLoopOption>; codes: string[] } {
  const original = console.warn;
  const codes: string[] = [];
  console.warn = (...args: unknown[]) => {
    assert.equal(args.length, 1, 'a configuration warning is one console.warn argument');
    assert.equal(typeof args[0], 'string');
    const warning = classifyWarning(args[0] as string);
    codes.push(warning.rung === undefined ? String(warning.code) : `${String(warning.code)} ${String(warning.rung)}>${String(warning.shadowedBy)}`);
  };
  try {
    return { config: resolveDoomLoopOption(option as DoomLoopOption | undefined), codes };
  } finally {
    console.warn = original;
  }
}

const ladderText = (config: ReturnType<typeof resolveDoomLoopOption>): string =>
  config === null ? 'off' : (['observe', 'steer', 'escalate', 'block', 'stop'] as const).map((rung) => (config.ladder[rung] === false ? '-' : String(config.ladder[rung]))).join('/');

describe('constants', () => {
  it('match the SDK', () => {
    assert.deepEqual({ ...DEFAULT_DOOM_LOOP_LADDER }, { observe: 2, steer: false, escalate: false, block: 3, stop: 6 });
    assert.ok(Object.isFrozen(DEFAULT_DOOM_LOOP_LADDER));
    assert.equal(DEFAULT_MAX_ESCALATIONS, 2);
    assert.equal(MAX_CANONICALIZE_DEPTH, 64);
  });
});

describe('configuration (§3.6)', () => {
  const table: [unknown, string, unknown, string[]][] = [
    [undefined, 'off', undefined, []],
    [false, 'off', undefined, []],
    [true, '2/-/-/3/6', null, []],
    [[], '2/-/-/3/6', null, []],
    [5, '2/-/-/3/6', null, []],
    [{ ladder: { observe: 2.9, block: '3', stop: false } }, '2/-/-/3/-', null, ['block-without-stop']],
    [{ ladder: { observe: 3, block: 3 } }, '3/-/-/3/6', null, ['dead-rung observe>block']],
    [{ ladder: { observe: 7, steer: 4 } }, '7/4/-/3/6', null, ['dead-rung observe>steer', 'dead-rung steer>block']],
    [{ ladder: { escalate: 2 } }, '2/-/2/3/6', null, ['dead-rung observe>escalate', 'escalation-rung-unconfigured']],
    [{ ladder: { escalate: 2 }, escalation: { model: 'm' } }, '2/-/2/3/6', { model: 'm', maxEscalations: 2 }, ['dead-rung observe>escalate']],
    [{ escalation: { model: 'm', maxEscalations: 0 } }, '2/-/-/3/6', { model: 'm', maxEscalations: 2 }, ['escalation-unused']],
    [{ escalation: { advisor: { k: 1 }, model: null, maxEscalations: 3.7 } }, '2/-/-/3/6', { model: null, advisor: { k: 1 }, maxEscalations: 3 }, ['escalation-unused']],
    [{ escalation: { advisor: false } }, '2/-/-/3/6', null, []],
    [{ escalation: { advisor: null } }, '2/-/-/3/6', { advisor: null, maxEscalations: 2 }, ['escalation-unused']],
    [{ escalation: { model: undefined, advisor: undefined } }, '2/-/-/3/6', null, []],
    [{ ladder: null, escalation: 'm' }, '2/-/-/3/6', null, []],
  ];
  for (const [option, ladder, escalation, codes] of table) {
    it(JSON.stringify(option) ?? 'absent', () => {
      const resolved = resolveWithWarnings(option);
      assert.equal(ladderText(resolved.config), ladder);
      if (resolved.config !== null) assert.deepEqual(resolved.config.escalation, escalation);
      assert.deepEqual(resolved.codes, codes);
    });
  }
  it('null as the option, its text or its escalation throws a TypeError, as in the SDK (CFG-02)', () => {
    for (const option of [null, { text: null }, { escalation: null }]) {
      assert.throws(() => resolveWithWarnings(option), TypeError, JSON.stringify(option));
    }
  });
  it('text options', () => {
    assert.equal(resolveWithWarnings({ ladder: null, text: false }).config?.text.enabled, false);
    assert.deepEqual(resolveWithWarnings({ text: { minRepeats: null, maxWindowTokens: 50 } }).config?.text, {
      enabled: true, maxPeriodTokens: 16, minRepeats: 4, minCoveredTokens: 12, maxWindowTokens: 50,
    });
  });
});

/** `members` on an object with a null prototype. */
const bare = (members: Record<string, unknown>): Record<string, unknown> => Object.assign(Object.create(null) as Record<string, unknown>, members);

describe('loop keys (§4.3, §4.4)', () => {
  const args = { command: 'ls', cwd: '/tmp', env: null };
  it('declarations', () => {
    assert.deepEqual(resolveLoopKeyMaterial(undefined, args), { kind: 'key', keyMaterial: args });
    assert.deepEqual(resolveLoopKeyMaterial(false, args), { kind: 'exempt' });
    // deepEqual (strict) compares prototypes too: field-list key material has none (KEY-09)
    assert.deepEqual(resolveLoopKeyMaterial(['command', 'cwd'], args), { kind: 'key', keyMaterial: bare({ command: 'ls', cwd: '/tmp' }) });
    assert.deepEqual(resolveLoopKeyMaterial(['cwd', 'cwd', 7], args), { kind: 'key', keyMaterial: bare({ cwd: '/tmp' }) });
    assert.deepEqual(resolveLoopKeyMaterial(['env'], args), { kind: 'key', keyMaterial: bare({ env: null }) });
    for (const declaration of [[], [1, true], ['missing'], null, true, 'command', {}]) {
      const result = resolveLoopKeyMaterial(declaration, args);
      assert.equal(result.kind, 'fallback', JSON.stringify(declaration));
      assert.equal(result.kind === 'fallback' && result.keyMaterial, args);
      assert.ok(result.kind === 'fallback' && result.warning.length > 0);
    }
  });
  it('functions', () => {
    assert.deepEqual(resolveLoopKeyMaterial(() => ({ c: 1 }), args), { kind: 'key', keyMaterial: { c: 1 } });
    assert.deepEqual(resolveLoopKeyMaterial(() => null, args), { kind: 'exempt' });
    assert.equal(resolveLoopKeyMaterial(() => undefined, args).kind, 'fallback');
    assert.equal(resolveLoopKeyMaterial(() => { throw new Error('boom'); }, args).kind, 'fallback');
    assert.deepEqual(resolveLoopKeyMaterial((given: unknown) => given, args), { kind: 'key', keyMaterial: args });
  });
});

describe('text repetition (§7.5)', () => {
  it('examples', () => {
    assert.equal(detectTextRepetition('no no no no no no'), null);
    assert.deepEqual(detectTextRepetition('no no no no no no', { minRepeats: 2, minCoveredTokens: 6 }), { repeats: 6, periodTokens: 1, coveredTokens: 6, sample: 'no' });
    assert.deepEqual(detectTextRepetition('I am stuck. I am stuck. I am stuck. I am stuck.'), { repeats: 4, periodTokens: 3, coveredTokens: 12, sample: 'I am stuck.' });
    assert.equal(detectTextRepetition('I am stuck. I am stuck. I am stuck.'), null);
    assert.deepEqual(detectTextRepetition('x y z a b c a b c a b c a b c'), { repeats: 4, periodTokens: 3, coveredTokens: 12, sample: 'a b c' });
    assert.deepEqual(detectTextRepetition(Array(12).fill('a\u0085b').join('\ufeff')), { repeats: 12, periodTokens: 1, coveredTokens: 12, sample: 'a\u0085b' });
  });
  it('only the last maxWindowTokens*64 code units count (TXT-02, TXT-03, TXT-15)', () => {
    // budget 128: the cut falls inside the emoji, whose low half becomes part of the first kept token
    const text = `\u{1F600}x${' x'.repeat(63)}`;
    assert.equal(text.length, 129);
    assert.deepEqual(detectTextRepetition(text, { maxWindowTokens: 2, minRepeats: 2, minCoveredTokens: 2 }), { repeats: 2, periodTokens: 1, coveredTokens: 2, sample: 'x' });
    assert.deepEqual(detectTextRepetition(text, { maxWindowTokens: 200, minRepeats: 2, minCoveredTokens: 2, maxPeriodTokens: 1 }), { repeats: 63, periodTokens: 1, coveredTokens: 63, sample: 'x' });
  });
});

describe('ladder (§8)', () => {
  it('default ladder', () => {
    const ladder = { ...DEFAULT_DOOM_LOOP_LADDER };
    const cases: [number, boolean, string | undefined][] = [[1, true, undefined], [2, true, 'observe'], [3, true, 'block'], [3, false, 'observe'], [5, false, 'observe'], [6, false, 'stop'], [100, true, 'stop'], [2.5, true, 'observe']];
    for (const [streak, allowBlock, action] of cases) assert.equal(resolveLadderAction(ladder, streak, { allowBlock }), action);
  });
  it('ladder 2/3/4/5/-', () => {
    const ladder = { observe: 2, steer: 3, escalate: 4, block: 5, stop: false as const };
    assert.equal(resolveLadderAction(ladder, 4, { allowBlock: true, allowEscalate: true }), 'escalate');
    assert.equal(resolveLadderAction(ladder, 4, { allowBlock: true, allowEscalate: false }), 'steer');
    assert.equal(resolveLadderAction(ladder, 5, { allowBlock: false, allowEscalate: true }), 'escalate');
    assert.equal(resolveLadderAction(ladder, 5, { allowBlock: false, allowEscalate: false }), 'steer');
    assert.equal(resolveLadderAction(ladder, 5, { allowBlock: true, allowEscalate: false }), 'block');
  });
});

describe('restore (§10.2)', () => {
  const restored = (blob: unknown): unknown => {
    const original = console.warn;
    console.warn = () => {};
    try {
      const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
      monitor.consumeEscalation();
      monitor.restore(blob);
      return monitor.getState();
    } finally {
      console.warn = original;
    }
  };
  it('examples', () => {
    assert.deepEqual(restored({ tools: { t: { fingerprint: 'x', streak: 2.7 } } }), { tools: { t: { fingerprint: 'x', streak: 2 } } });
    for (const streak of [0, -5, 0.5]) assert.deepEqual(restored({ tools: { t: { fingerprint: 'x', streak } } }), { tools: { t: { fingerprint: 'x', streak: 1 } } });
    assert.deepEqual(restored({ tools: { t: { fingerprint: 'x', streak: 5_000_000 } } }), { tools: { t: { fingerprint: 'x', streak: 1_000_000 } } });
    for (const streak of ['3', true, null, Number.POSITIVE_INFINITY, undefined]) assert.deepEqual(restored({ tools: { t: { fingerprint: 'x', streak } } }), { tools: {} });
    assert.deepEqual(restored({ tools: { t: { fingerprint: 'x', streak: 2, roundFingerprints: ['q', 'p', 'q'] } } }), {
      tools: { t: { fingerprint: 'x', streak: 2, roundFingerprints: ['p', 'q', 'q'], callStreaks: { p: 2, q: 2 } } },
    });
    assert.deepEqual(restored({ tools: { t: { fingerprint: 'x', streak: 2, callStreaks: { p: 2.9, q: 0, r: '5', s: Infinity, u: true } } } }), {
      tools: { t: { fingerprint: 'x', streak: 2, callStreaks: { p: 2 } } },
    });
    assert.deepEqual(restored({ tools: { t: { fingerprint: 'x', streak: 2, callStreaks: [3, 0] } } }), { tools: { t: { fingerprint: 'x', streak: 2, callStreaks: { 0: 3 } } } });
    assert.deepEqual(restored({ tools: [{ fingerprint: 'x', streak: 1 }] }), { tools: { 0: { fingerprint: 'x', streak: 1 } } });
    assert.deepEqual(restored({ tools: 'junk', escalationsUsed: 2.9 }), { tools: {}, escalationsUsed: 2 });
    assert.deepEqual(restored({ text: { fingerprint: 't', streak: 2.5 } }), { tools: {}, text: { fingerprint: 't', streak: 2.5 } });
    assert.deepEqual(restored({ escalationsUsed: -1 }), { tools: {} });
    assert.deepEqual(restored({}), { tools: {} });
    for (const blob of [[], null, 'x', 3, undefined]) assert.deepEqual(restored(blob), { tools: {}, escalationsUsed: 1 });
  });
  it('getState shares nothing with the monitor (STATE-01)', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    await monitor.declareRound(0, [{ toolName: 'r', keyMaterial: 1 }, { toolName: 'r', keyMaterial: 2 }]);
    await monitor.recordToolCall('r', 1, 0);
    const state = monitor.getState();
    const before = JSON.stringify(state);
    (state.tools.r?.roundFingerprints as string[]).push('junk');
    assert.notEqual(JSON.stringify(monitor.getState()), JSON.stringify(state));
    assert.equal(JSON.stringify(monitor.getState()), before);
  });
});

describe('per-call evidence over many changing rounds (MON-26, MON-33)', () => {
  it('keeps counting a repeated call while the others change, and persists only the last round', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption({ ladder: { observe: false, block: false, stop: false } }));
    let last = await monitor.recordToolCall('t', { p: 'same' }, 0);
    for (let round = 1; round <= 60; round += 1) {
      const width = 1 + ((round * 7) % 40);
      for (let index = 0; index < width; index += 1) await monitor.recordToolCall('t', { p: `${round}-${index}` }, round);
      last = await monitor.recordToolCall('t', { p: 'same' }, round);
      if (round % 3 === 0) assert.equal((await monitor.recordToolCall('t', { p: 'same' }, round)).duplicateInRound, true);
    }
    assert.equal(last.streak, 61);
    const counts = monitor.getState().tools.t?.callStreaks ?? {};
    const width = 1 + ((60 * 7) % 40);
    assert.equal(Object.keys(counts).length, width + 1);
    assert.equal(counts[last.fingerprint], 61);
    assert.equal(Object.values(counts).filter((count) => count === 1).length, width);
  });
});
