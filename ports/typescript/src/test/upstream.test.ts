/**
 * The SDK's own fingerprint vectors (spec §6.2, FP-08): the upstream file when
 * it is available, and the facts restated in the spec table, always.
 */

import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

import {
  canonicalizeKeyMaterial,
  fingerprintKeyMaterial,
  fingerprintToolCall,
  MAX_CANONICALIZE_DEPTH,
} from '../doom-loop.js';
import { firstExisting, readJson, REPO_ROOT } from './support.js';

interface ToolCallVector {
  name: string;
  toolName: string;
  keyMaterial: unknown;
  jcs: string;
  fingerprint: string;
}
type KeyMaterialVector = Omit<ToolCallVector, 'toolName'>;

const upstreamPath = firstExisting([
  process.env.DOOMLOOP_UPSTREAM_VECTORS ?? '',
  resolve(REPO_ROOT, '..', 'shared', 'upstream', 'doom-loop-fingerprints.json'),
  '/work/shared/upstream/doom-loop-fingerprints.json',
].filter((path) => path !== ''));

describe('upstream doom-loop-fingerprints.json', { skip: upstreamPath === undefined ? 'file not found (set DOOMLOOP_UPSTREAM_VECTORS)' : false }, () => {
  const file = (upstreamPath === undefined ? { toolCallVectors: [], keyMaterialVectors: [] } : readJson(upstreamPath)) as {
    toolCallVectors: ToolCallVector[];
    keyMaterialVectors: KeyMaterialVector[];
  };
  it('has the twelve entries the spec restates', () => {
    assert.equal(file.toolCallVectors.length, 10);
    assert.equal(file.keyMaterialVectors.length, 2);
  });
  for (const vector of file.toolCallVectors) {
    it(`tool call: ${vector.name}`, async () => {
      assert.equal(canonicalizeKeyMaterial(vector.keyMaterial), vector.jcs);
      assert.equal(await fingerprintToolCall(vector.toolName, vector.keyMaterial), vector.fingerprint);
    });
  }
  for (const vector of file.keyMaterialVectors) {
    it(`key material: ${vector.name}`, async () => {
      assert.equal(canonicalizeKeyMaterial(vector.keyMaterial), vector.jcs);
      assert.equal(await fingerprintKeyMaterial(vector.keyMaterial), vector.fingerprint);
    });
  }
});

describe('rejected key material (upstream "rejected", CAN-05/14/16/19)', () => {
  const nested = (depth: number, leaf: unknown): unknown => {
    let value = leaf;
    for (let level = 0; level < depth; level += 1) value = [value];
    return value;
  };
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  const cases: [string, unknown][] = [
    ['bigint', { n: 10n }],
    ['NaN', { n: Number.NaN }],
    ['Infinity', [Number.POSITIVE_INFINITY]],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['circular reference', circular],
    ['nesting > 64', nested(MAX_CANONICALIZE_DEPTH + 1, 0)],
    ['very deep nesting fails cleanly', nested(200_000, 0)],
  ];
  for (const [name, value] of cases) {
    it(name, async () => {
      assert.throws(() => canonicalizeKeyMaterial(value), Error);
      await assert.rejects(fingerprintKeyMaterial(value));
      await assert.rejects(fingerprintToolCall('t', value));
    });
  }
  it('depth limits are inclusive at 64 (CAN-17, CAN-18)', () => {
    assert.equal(canonicalizeKeyMaterial(nested(64, 0)), `${'['.repeat(64)}0${']'.repeat(64)}`);
    assert.equal(canonicalizeKeyMaterial(nested(64, [])), `${'['.repeat(65)}${']'.repeat(65)}`);
    assert.throws(() => canonicalizeKeyMaterial(nested(65, [])));
    assert.equal(canonicalizeKeyMaterial(nested(64, { x: undefined })), `${'['.repeat(64)}{}${']'.repeat(64)}`);
    assert.throws(() => canonicalizeKeyMaterial(nested(64, [undefined])));
  });
  it('a shared (non-circular) value is written in full each time (CAN-19)', () => {
    const shared = { k: 1 };
    assert.equal(canonicalizeKeyMaterial([shared, shared]), '[{"k":1},{"k":1}]');
  });
});

describe('spec §6.1 and §5 examples', () => {
  it('fingerprints of a, b, c, z and the empty name', async () => {
    const facts: [string, unknown, string][] = [
      ['read', { path: 'a' }, '368f5e5af081781eca48b52e9904ebce75f15f3490078842fb62647ba7721586'],
      ['read', { path: 'b' }, 'e43d59763c3790668c31430d794970ce09473e7994c63f4d98d6179f23cec521'],
      ['read', { path: 'c' }, 'ea865a949c3cc7a3b8f7bcbf1184fa6c6b9de8fc504aaedf1c9e69b3e26e204f'],
      ['read', { path: 'z' }, 'b25d366b3ef2bb5ecd0bd5f36605269293434551234351bbf9dbbaf17cb90110'],
      ['', {}, 'a062dd4952b935e430d409c4a5e5cd760e8781e3200d5c7e12a232dddba8a528'],
      ['\ud800', {}, '7bc18b25e5273e746be13f502919437402e75725292cb4dbe61ab43b75e13ca4'],
      ['\ufffd', {}, '7bc18b25e5273e746be13f502919437402e75725292cb4dbe61ab43b75e13ca4'],
    ];
    for (const [toolName, keyMaterial, expected] of facts) {
      assert.equal(await fingerprintToolCall(toolName, keyMaterial), expected);
    }
  });
  it('numbers (CAN-24)', () => {
    const facts: [number, string][] = [
      [-0, '0'], [1.0, '1'], [100, '100'], [1e20, '100000000000000000000'], [1e21, '1e+21'],
      [123456789012345678901, '123456789012345680000'], [9007199254740993, '9007199254740992'],
      [1.5, '1.5'], [0.1, '0.1'], [0.000001, '0.000001'], [1e-7, '1e-7'], [-1.5e-7, '-1.5e-7'],
      [123e-20, '1.23e-18'], [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'],
      [0.1 + 0.2, '0.30000000000000004'],
    ];
    for (const [value, expected] of facts) assert.equal(canonicalizeKeyMaterial(value), expected);
  });
  it('strings and member order (CAN-25 … CAN-30)', () => {
    assert.equal(canonicalizeKeyMaterial('\u0001é\u{1F600}\ud800/"'), '"\\u0001é\u{1F600}\\ud800/\\""');
    assert.equal(canonicalizeKeyMaterial('\b\f\n\r\t\\\u001f\u007f\u2028\u2029'), '"\\b\\f\\n\\r\\t\\\\\\u001f\u007f\u2028\u2029"');
    assert.equal(canonicalizeKeyMaterial({ '\uff61': 1, '\u{1F600}': 2 }), '{"\u{1F600}":2,"\uff61":1}');
    assert.equal(canonicalizeKeyMaterial({ ab: 1, '\uff61': 1, a: 1, B: 1, '\u{1F600}': 1 }), '{"B":1,"a":1,"ab":1,"\u{1F600}":1,"\uff61":1}');
  });
  it('JS-only values (CAN-11 … CAN-13)', () => {
    const fn = (): void => {};
    assert.equal(canonicalizeKeyMaterial(undefined), 'null');
    assert.equal(canonicalizeKeyMaterial(fn), 'null');
    assert.equal(canonicalizeKeyMaterial(Symbol('s')), 'null');
    assert.equal(canonicalizeKeyMaterial([undefined, fn, Symbol('s')]), '[null,null,null]');
    assert.equal(canonicalizeKeyMaterial({ a: undefined, b: fn, c: Symbol('s') }), '{}');
  });
  it('an own member named __proto__ is an ordinary member (DATA-18)', () => {
    const value = JSON.parse('{"__proto__":{"x":1},"a":2}') as unknown;
    assert.equal(canonicalizeKeyMaterial(value), '{"__proto__":{"x":1},"a":2}');
  });
});
