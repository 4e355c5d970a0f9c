/**
 * The port as a drop-in replacement for the SDK module (issue 11): the texts
 * of brief §9 and the edge classes of brief §10, checked in-process, where a
 * TypeScript caller sees them (call shapes of console.warn, prototypes,
 * object identity). Expected texts are transcribed by hand from brief §9 and
 * expected results from the SDK's recorded answers
 * (../shared/upstream/sdk-0.9.0-observations.jsonl), never from this port.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  canonicalizeKeyMaterial,
  detectTextRepetition,
  DoomLoopMonitor,
  fingerprintToolCall,
  resolveDoomLoopOption,
  resolveLoopKeyMaterial,
  type DoomLoopTextOptions,
  type ResolvedDoomLoopConfig,
} from '../doom-loop.js';
import { classifyWarning } from '../warning-codes.js';

/** Runs `body` with console.warn spied: every call's argument list, in order. */
async function spyWarn<T>(body: () => T | Promise<T>): Promise<{ value: T; calls: unknown[][] }> {
  const original = console.warn;
  const calls: unknown[][] = [];
  console.warn = (...args: unknown[]) => {
    calls.push(args);
  };
  try {
    return { value: await body(), calls };
  } finally {
    console.warn = original;
  }
}

const option = (value: unknown): Parameters<typeof resolveDoomLoopOption>[0] =>
  value as Parameters<typeof resolveDoomLoopOption>[0];

/** The resolved config of an option that turns detection on, warnings muted. */
async function resolved(value: unknown): Promise<ResolvedDoomLoopConfig> {
  const { value: config } = await spyWarn(() => resolveDoomLoopOption(option(value)));
  assert.ok(config !== null);
  return config;
}

const BLOCK_WITHOUT_STOP =
  '[DoomLoop] ladder has block enabled with stop disabled: a model that keeps re-issuing a blocked call loops indefinitely (each blocked round still costs a model request). Bound the run with stopWhen, or enable the stop rung.';
const ESCALATION_UNUSED =
  '[DoomLoop] escalation config provided but the escalate ladder rung is disabled; set ladder.escalate to a streak threshold for recovery to trigger.';
const ESCALATION_UNCONFIGURED =
  '[DoomLoop] ladder.escalate is enabled but no escalation config (model/advisor) was provided; the rung is skipped and verdicts fall through to weaker rungs.';

describe('configuration warnings: texts and console.warn call shape (brief §9.1)', () => {
  const cases: [unknown, string[]][] = [
    [{ ladder: { stop: false } }, [BLOCK_WITHOUT_STOP]],
    [
      { ladder: { observe: 7.9, steer: 4 } },
      [
        '[DoomLoop] ladder rung "observe" (7) can never fire: stronger rung "steer" (4) already wins at that streak (strongest crossed rung is applied).',
        '[DoomLoop] ladder rung "steer" (4) can never fire: stronger rung "block" (3) already wins at that streak (strongest crossed rung is applied).',
      ],
    ],
    [
      { ladder: { observe: 1e21, block: 1e21, stop: false } },
      [
        BLOCK_WITHOUT_STOP,
        '[DoomLoop] ladder rung "observe" (1e+21) can never fire: stronger rung "block" (1e+21) already wins at that streak (strongest crossed rung is applied).',
      ],
    ],
    [{ escalation: { model: 'm' } }, [ESCALATION_UNUSED]],
    [{ escalation: { model: null } }, [ESCALATION_UNUSED]],
    [
      { ladder: { escalate: 2 } },
      [
        '[DoomLoop] ladder rung "observe" (2) can never fire: stronger rung "escalate" (2) already wins at that streak (strongest crossed rung is applied).',
        ESCALATION_UNCONFIGURED,
      ],
    ],
  ];
  for (const [given, texts] of cases) {
    it(JSON.stringify(given), async () => {
      const { calls } = await spyWarn(() => resolveDoomLoopOption(option(given)));
      // one call per warning, each with exactly one argument: the text
      assert.deepEqual(calls, texts.map((text) => [text]));
    });
  }
});

describe('loop-key fallback warnings (brief §9.2)', () => {
  const args = { path: 'x' };
  const warningOf = (loopKey: unknown): string => {
    const resolution = resolveLoopKeyMaterial(loopKey, args);
    assert.equal(resolution.kind, 'fallback');
    assert.equal(resolution.kind === 'fallback' && resolution.keyMaterial, args);
    return resolution.kind === 'fallback' ? resolution.warning : '';
  };
  it('empty field list', () => {
    assert.equal(
      warningOf([]),
      'loopKey is an empty field list, which would give every call to this tool the same identity; falling back to full arguments. Use `false` to exempt the tool.',
    );
  });
  it('every listed field absent: only the string entries are shown', () => {
    assert.equal(
      warningOf(['a', 1, null, 'b']),
      'loopKey fields [a, b] are all absent from the arguments, which would give every call the same identity; falling back to full arguments.',
    );
    assert.equal(
      warningOf([1]),
      'loopKey fields [] are all absent from the arguments, which would give every call the same identity; falling back to full arguments.',
    );
  });
  it('the function threw: an Error gives its message, anything else String(thrown)', () => {
    assert.equal(warningOf(() => { throw new RangeError('boom'); }), 'loopKey threw (boom); falling back to full arguments');
    assert.equal(warningOf(() => { throw 42; }), 'loopKey threw (42); falling back to full arguments');
    assert.equal(warningOf(() => { throw null; }), 'loopKey threw (null); falling back to full arguments');
  });
  it('the function returned undefined', () => {
    assert.equal(
      warningOf(() => undefined),
      'loopKey returned undefined; falling back to full arguments. Return null to exempt a call, or a value to use as identity.',
    );
  });
  it('unsupported shapes name their typeof', () => {
    const shapes: [unknown, string][] = [['path', 'string'], [3, 'number'], [null, 'object'], [{}, 'object'], [true, 'boolean'], [Symbol('s'), 'symbol'], [1n, 'bigint']];
    for (const [loopKey, type] of shapes) {
      assert.equal(warningOf(loopKey), `loopKey has unsupported shape (${type}); falling back to full arguments`);
    }
  });
});

describe('field-list key material: JS `in` and a null prototype (brief §9.2, §10.7)', () => {
  it('has a null prototype', () => {
    const resolution = resolveLoopKeyMaterial(['path'], { path: 'x', other: 1 });
    assert.equal(resolution.kind, 'key');
    const material = resolution.kind === 'key' ? (resolution.keyMaterial as object) : {};
    assert.equal(Object.getPrototypeOf(material), null);
    assert.equal('hasOwnProperty' in material, false);
    assert.deepEqual(Object.keys(material), ['path']);
  });
  it('an inherited name resolves to key with the inherited value', () => {
    const resolution = resolveLoopKeyMaterial(['toString'], { path: 'x' });
    assert.equal(resolution.kind, 'key');
    const material = resolution.kind === 'key' ? (resolution.keyMaterial as Record<string, unknown>) : {};
    assert.equal(material.toString, Object.prototype.toString);
    assert.equal(canonicalizeKeyMaterial(material), '{}'); // a function member is dropped
  });
  it('__proto__ becomes an own member holding Object.prototype: canonical {"__proto__":{}}', () => {
    const resolution = resolveLoopKeyMaterial(['command', '__proto__'], { command: 'ls' });
    assert.equal(resolution.kind, 'key');
    const material = resolution.kind === 'key' ? (resolution.keyMaterial as object) : {};
    assert.deepEqual(Object.keys(material), ['command', '__proto__']);
    assert.equal(Object.getPrototypeOf(material), null);
    assert.equal(canonicalizeKeyMaterial(material), '{"__proto__":{},"command":"ls"}');
  });
});

describe('canonicalization errors (brief §9.3)', () => {
  const deep = (depth: number, inner: unknown): unknown => {
    let value = inner;
    for (let level = 0; level < depth; level += 1) value = [value];
    return value;
  };
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const cases: [string, unknown, string][] = [
    ['a primitive at depth 65', deep(65, 1), 'Cannot canonicalize key material nested deeper than 64 levels for doom-loop fingerprinting'],
    ['NaN', { n: Number.NaN }, 'Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: RFC 8785 has no representation'],
    ['-Infinity', [Number.NEGATIVE_INFINITY], 'Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: RFC 8785 has no representation'],
    ['bigint', 5n, 'Cannot canonicalize bigint for doom-loop fingerprinting: RFC 8785 has no representation (convert to string or number in loopKey)'],
    ['a cycle', cycle, 'Cannot canonicalize circular key material for doom-loop fingerprinting'],
  ];
  for (const [what, value, message] of cases) {
    it(what, () => {
      assert.throws(() => canonicalizeKeyMaterial(value), (error: unknown) => error instanceof Error && error.message === message);
    });
  }
  it('an empty container at depth 64 and a shared (non-circular) sub-object canonicalize', () => {
    assert.equal(canonicalizeKeyMaterial(deep(64, [])).length, 130);
    const shared = { k: 1 };
    assert.equal(canonicalizeKeyMaterial({ a: shared, b: shared }), '{"a":{"k":1},"b":{"k":1}}');
  });
});

describe('monitor logs: console.warn call shapes (brief §9.4)', () => {
  it('declareRound: the text and the thrown Error, two arguments', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    const { calls } = await spyWarn(() =>
      monitor.declareRound(7, [{ toolName: 'read', keyMaterial: { n: Number.NaN } }, { toolName: 'read', keyMaterial: { n: 1 } }]),
    );
    assert.equal(calls.length, 1);
    const [args] = calls;
    assert.equal(args?.length, 2);
    assert.equal(args?.[0], '[DoomLoop] could not fingerprint a "read" call while declaring round 7; excluding it from the round set:');
    assert.ok(args?.[1] instanceof Error);
    assert.equal((args?.[1] as Error).message, 'Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: RFC 8785 has no representation');
  });
  it('restore of a value that is not a plain object: one argument; a malformed object: none', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    for (const blob of [null, [], 'state', 3, true, undefined]) {
      const { calls } = await spyWarn(() => monitor.restore(blob));
      assert.deepEqual(calls, [['[DoomLoop] Ignoring invalid persisted doom-loop state']], String(blob));
    }
    for (const blob of [{}, { tools: 'x', text: 3, escalationsUsed: 'many' }, { tools: { t: null } }]) {
      const { calls } = await spyWarn(() => monitor.restore(blob));
      assert.deepEqual(calls, [], JSON.stringify(blob));
    }
  });
});

describe('configuration edges (brief §10.1, §10.2, §10.6)', () => {
  it('null escalation members are present: {model: null} is a mechanism that can escalate', async () => {
    const config = await resolved({ ladder: { escalate: 2, observe: 1 }, escalation: { model: null } });
    assert.deepEqual(config.escalation, { model: null, maxEscalations: 2 });
    const monitor = new DoomLoopMonitor(config);
    assert.equal(monitor.canEscalate(), true);
    await monitor.recordToolCall('t', 'k', 0);
    assert.equal((await monitor.recordToolCall('t', 'k', 1)).verdict?.action, 'escalate');
  });
  it('null option, text or escalation throws a TypeError', () => {
    for (const given of [null, { text: null }, { escalation: null }]) {
      assert.throws(() => resolveDoomLoopOption(option(given)), TypeError);
    }
  });
  it('an options member holding undefined is absent', async () => {
    const config = await resolved({ ladder: { block: undefined }, text: { minRepeats: undefined }, escalation: { model: undefined } });
    assert.equal(config.ladder.block, 3);
    assert.equal(config.text.minRepeats, 4);
    assert.equal(config.escalation, null);
    const monitor = new DoomLoopMonitor(config);
    const options = { allowBlock: undefined, detector: undefined } as unknown as { allowBlock: boolean };
    for (const round of [0, 1]) await monitor.recordToolCall('t', 'k', round, options);
    const third = await monitor.recordToolCall('t', 'k', 2, options);
    assert.equal(third.verdict?.action, 'block');
    assert.equal(third.verdict?.detector, 'tool-fingerprint');
  });
});

describe('text options are JS numbers (brief §10.3, §10.4; SDK observations C3, C4)', () => {
  const tenFooBarBaz = Array(10).fill('foo bar baz').join(' ');
  const detect = (options: unknown, text = tenFooBarBaz): unknown => detectTextRepetition(text, options as Partial<DoomLoopTextOptions>);
  const found = (repeats: number): unknown => ({ repeats, periodTokens: 3, coveredTokens: 3 * repeats, sample: 'foo bar baz' });
  it('a window of 0, NaN, 5e-324 or "abc" keeps everything', () => {
    for (const window of [0, -0, Number.NaN, 5e-324, 'abc', {}]) assert.deepEqual(detect({ maxWindowTokens: window }), found(10), String(window));
  });
  it('a negative window drops the first 64w code units, then the first w tokens', () => {
    assert.deepEqual(detect({ maxWindowTokens: -1 }), found(4));
  });
  it('a fractional window truncates toward zero in slice', () => {
    // 2.5 keeps the last 2 tokens of "z z z", not 3
    assert.deepEqual(detect({ maxWindowTokens: 2.5, minRepeats: 2, minCoveredTokens: 2 }, 'z z z'), { repeats: 2, periodTokens: 1, coveredTokens: 2, sample: 'z' });
    // 0.25 keeps the last 16 code units ("w w w w w w w w ") and every token of them
    assert.deepEqual(detect({ maxWindowTokens: 0.25, minRepeats: 2, minCoveredTokens: 2 }, 'w '.repeat(30)), { repeats: 8, periodTokens: 1, coveredTokens: 8, sample: 'w' });
  });
  it('NaN fails every comparison; true is 1; a bigint minRepeats compares as its number', () => {
    assert.equal(detect({ minRepeats: Number.NaN }), null);
    assert.equal(detect({ maxPeriodTokens: Number.NaN }), null);
    assert.deepEqual(detect({ maxPeriodTokens: true }, Array(12).fill('no').join(' ')), { repeats: 12, periodTokens: 1, coveredTokens: 12, sample: 'no' });
    assert.deepEqual(detect({ minRepeats: 10n }), found(10));
    assert.equal(detect({ minRepeats: 11n }), null);
  });
  it('a bigint or symbol window, period or coverage throws a TypeError', () => {
    for (const name of ['maxWindowTokens', 'maxPeriodTokens', 'minCoveredTokens']) {
      for (const value of [4n, Symbol('s')]) assert.throws(() => detect({ [name]: value }), TypeError, name);
    }
  });
  it('text.enabled is read by truthiness', async () => {
    for (const [enabled, on] of [[0, false], ['', false], [Number.NaN, false], [[], true], [{}, true], ['no', true]] as const) {
      const monitor = new DoomLoopMonitor(await resolved({ text: { enabled } }));
      await monitor.recordAssistantText('same');
      assert.equal((await monitor.recordAssistantText('same')) !== undefined, on, String(enabled));
    }
  });
});

describe('counters are doubles (brief §10.5)', () => {
  const TWO_53 = 2 ** 53;
  it('a per-call count at 2^53 does not grow', async () => {
    const fingerprint = await fingerprintToolCall('t', 'k');
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true), { tools: { t: { fingerprint, streak: 1, callStreaks: { [fingerprint]: TWO_53 } } } });
    const record = await monitor.recordToolCall('t', 'k', 0);
    assert.equal(record.streak, TWO_53);
    assert.equal(monitor.getState().tools.t?.callStreaks?.[fingerprint], TWO_53);
  });
  it('escalationsUsed at 2^53 does not grow', () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true), { tools: {}, escalationsUsed: TWO_53 });
    monitor.consumeEscalation();
    assert.equal(monitor.getState().escalationsUsed, TWO_53);
  });
  it('the text streak past 2^53 stays put and prints as JS String(n)', async () => {
    const text = 'I am stuck.';
    const fingerprint = '37c38ab53f4c3570d8baf87392cb035ef8b2ad98ca1c1e083ea84184173911aa'; // upstream fingerprint vector of this text
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true), { tools: {}, text: { fingerprint, streak: TWO_53 } });
    const verdict = await monitor.recordAssistantText(text);
    assert.equal(verdict?.streak, TWO_53);
    assert.equal(verdict?.message, 'Doom loop suspected: the assistant produced identical text for 9007199254740992 consecutive turns. Stop repeating and take a different approach.');
    const huge = new DoomLoopMonitor(resolveDoomLoopOption(true), { tools: {}, text: { fingerprint, streak: 1e21 } });
    assert.match((await huge.recordAssistantText(text))?.message ?? '', / for 1e\+21 consecutive turns\./);
  });
});

describe('the per-object fingerprint memo (brief §10.8)', () => {
  it('declare an object, mutate it, record it: the declared fingerprint is reused', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    const args: Record<string, unknown> = { path: 'a' };
    const before = await fingerprintToolCall('read', args);
    await monitor.declareRound(0, [{ toolName: 'read', keyMaterial: args }]);
    args.path = 'b';
    const record = await monitor.recordToolCall('read', args, 0);
    assert.equal(record.fingerprint, before);
    assert.notEqual(record.fingerprint, await fingerprintToolCall('read', args));
  });
  it('is kept across rounds and restore, per tool name, per monitor', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    const args: Record<string, unknown> = { path: 'a' };
    const first = (await monitor.recordToolCall('read', args, 0)).fingerprint;
    args.path = 'b';
    monitor.restore({ tools: {} });
    const again = await monitor.recordToolCall('read', args, 1);
    assert.equal(again.fingerprint, first);
    assert.equal(again.streak, 1); // restore forgot the streak, not the memo
    assert.equal((await monitor.recordToolCall('write', args, 1)).fingerprint, await fingerprintToolCall('write', { path: 'b' }));
    const other = new DoomLoopMonitor(resolveDoomLoopOption(true));
    assert.equal((await other.recordToolCall('read', args, 0)).fingerprint, await fingerprintToolCall('read', { path: 'b' }));
  });
  it('a failed fingerprint is not memoised; equal but distinct objects are fingerprinted each', async () => {
    const monitor = new DoomLoopMonitor(resolveDoomLoopOption(true));
    const args: Record<string, unknown> = { n: Number.NaN };
    await spyWarn(() => monitor.declareRound(0, [{ toolName: 't', keyMaterial: args }]));
    args.n = 1;
    assert.equal((await monitor.recordToolCall('t', args, 0)).fingerprint, await fingerprintToolCall('t', { n: 1 }));
    const copy = { n: 2 };
    assert.equal((await monitor.recordToolCall('t', copy, 1)).fingerprint, await fingerprintToolCall('t', { n: 2 }));
  });
});

describe('warning codes derived from the message (CFG-26)', () => {
  it('each template gives its code; any other text is unclassified', () => {
    assert.deepEqual(classifyWarning(BLOCK_WITHOUT_STOP), { code: 'block-without-stop', message: BLOCK_WITHOUT_STOP });
    assert.deepEqual(classifyWarning(ESCALATION_UNUSED), { code: 'escalation-unused', message: ESCALATION_UNUSED });
    assert.deepEqual(classifyWarning(ESCALATION_UNCONFIGURED), { code: 'escalation-rung-unconfigured', message: ESCALATION_UNCONFIGURED });
    const dead = '[DoomLoop] ladder rung "steer" (1e+21) can never fire: stronger rung "stop" (6) already wins at that streak (strongest crossed rung is applied).';
    assert.deepEqual(classifyWarning(dead), { code: 'dead-rung', rung: 'steer', shadowedBy: 'stop', message: dead });
    for (const other of ['[doom-loop] the block rung is enabled but stop is disabled', `${ESCALATION_UNUSED} `, '']) {
      assert.deepEqual(classifyWarning(other), { code: 'unclassified', message: other });
    }
  });
});
