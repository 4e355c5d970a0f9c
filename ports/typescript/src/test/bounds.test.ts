/**
 * The bounds of a protocol line (PROT-45, PROT-46) in the TypeScript harness:
 * one answer at every depth whatever the stack holds, lines past the bounds
 * answered bad-request with id null, results past them internal. The three
 * harnesses are compared on the same lines by tests/test_hostile_lines.py.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { deeperThan, MAX_DEPTH, MAX_LINE_BYTES, stringifyJson } from '../bounds.js';
import type { Json } from '../engine/json.js';
import { decode, DECODE_DEPTH_LIMIT, encode } from '../wire.js';

import { servedOutput } from './support.js';

/** `levels` arrays around `inner`, built without recursion. */
function nested(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

async function answer(lines: string): Promise<Array<{ id: unknown; code: string | undefined }>> {
  const written = await servedOutput(lines);
  return written.split('\n').slice(0, -1).map((line) => {
    const parsed = JSON.parse(line) as { id: unknown; error?: { code: string } };
    return { id: parsed.id, code: parsed.error?.code };
  });
}

describe('deeperThan', () => {
  it('counts the brackets outside strings, escapes included', () => {
    assert.equal(deeperThan('[[1]]', 2), false);
    assert.equal(deeperThan('[[[1]]]', 2), true);
    assert.equal(deeperThan('["[[[[",{"a":"]]]"}]', 2), false);
    assert.equal(deeperThan('["\\"[[[["]', 2), false);
    assert.equal(deeperThan('[[{"a\\\\":[]}]]', 2), true);
  });
});

describe('values deeper than a stack holds', () => {
  const depth = 50_000; // past what a cold V8 stack recurses through

  it('stringifyJson writes what JSON.stringify would, without recursion', () => {
    const text = stringifyJson(nested(depth, { a: [1, 'x', null, true] }) as Json);
    assert.equal(text, `${'['.repeat(depth)}{"a":[1,"x",null,true]}${']'.repeat(depth)}`);
    const small = { b: [1, { c: 'd' }], e: null, f: -0 };
    assert.equal(stringifyJson(small as Json), JSON.stringify(small));
  });

  it('encode walks any depth; decode keeps plain JSON past the decode limit as it is', () => {
    const deep = nested(depth, { u: undefined, n: -0 });
    const encoded = stringifyJson(encode(deep));
    const leaf = '{"u":{"$js":"undefined"},"n":{"$js":"number","value":"-0"}}';
    assert.equal(encoded, `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`);
    const plain = JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`) as unknown[];
    let decoded = decode(plain) as unknown[];
    let original = plain;
    for (let level = 0; level < DECODE_DEPTH_LIMIT; level += 1) {
      assert.notEqual(decoded, original); // decoded: a copy
      [decoded, original] = [decoded[0] as unknown[], original[0] as unknown[]];
    }
    assert.equal(decoded, original); // past the limit: kept as it is, walked without recursion
  });

  it('encode still writes cycles as ref and keeps member order', () => {
    const cyclic: Record<string, unknown> = { z: 1, a: [] };
    (cyclic.a as unknown[]).push(cyclic);
    assert.equal(stringifyJson(encode(cyclic)), '{"z":1,"a":[{"$js":"ref","up":2}]}');
    assert.deepEqual(encode({ $js: 1, x: undefined }, { plain: true }), { $js: 'object', value: { $js: 1 } });
  });
});

describe('serve at the bounds (PROT-45, PROT-46)', () => {
  it('answers a line at the nesting bound, and one past it bad-request with id null', async () => {
    const at = `{"id":1,"op":"canonicalize","value":${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}}`;
    const past = `{"id":2,"op":"canonicalize","value":${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}}`;
    const echo = `{"id":3,"op":"resolveLoopKey","args":${'{"a":'.repeat(MAX_DEPTH - 1)}1${'}'.repeat(MAX_DEPTH - 1)}}`;
    const answers = await answer(`${at}\n${past}\n${echo}\n`);
    assert.deepEqual(
      answers.map(({ id, code }) => [id, code]),
      [
        [1, 'canonicalization'],
        [null, 'bad-request'],
        [3, 'internal'], // the echo would nest one level deeper than a line may
      ],
    );
  });

  it('answers a line longer than 64 MiB bad-request with id null, and reads one that long', async () => {
    const padded = (id: number, size: number): string => {
      const head = `{"id":${id},"op":"no-such-op","pad":"`;
      return `${head}${'x'.repeat(size - head.length - 2)}"}`;
    };
    const answers = await answer(`${padded(1, MAX_LINE_BYTES)}\n${padded(2, MAX_LINE_BYTES + 1)}\n`);
    assert.deepEqual(
      answers.map(({ id, code }) => [id, code]),
      [
        [1, 'unknown-op'],
        [null, 'bad-request'],
      ],
    );
  });
});
