/**
 * The tagged encoding's revision-1.2 tags (PROT-33..PROT-38): an alias is the
 * anchor's very object, a cycle is still a ref, a bound tag is the held
 * object, and malformed tags are wire errors. Through the protocol, a
 * session's held objects reach the monitor's memo (MON-60).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import * as port from '../doom-loop.js';
import { Dispatcher } from '../protocol.js';
import { decode, DECODE_DEPTH_LIMIT, WireError } from '../wire.js';

describe('anchor and alias', () => {
  it('decode to one JS object at every place', () => {
    const decoded = decode({
      a: { $js: 'anchor', name: 'x', value: { k: [1] } },
      b: [{ $js: 'alias', name: 'x' }, { c: { $js: 'alias', name: 'x' } }],
    }) as { a: unknown; b: [unknown, { c: unknown }] };
    assert.equal(decoded.a, decoded.b[0]);
    assert.equal(decoded.a, decoded.b[1].c);
    assert.deepEqual(decoded.a, { k: [1] });
  });

  it('canonicalize as copies, while a shared object that contains itself stays circular', () => {
    const shared = decode({ a: { $js: 'anchor', name: 'x', value: [1] }, b: { $js: 'alias', name: 'x' } });
    assert.equal(port.canonicalizeKeyMaterial(shared), '{"a":[1],"b":[1]}');
    const both = decode({
      a: { $js: 'anchor', name: 'x', value: [{ $js: 'ref', up: 1 }] },
      b: { $js: 'alias', name: 'x' },
    });
    assert.throws(() => port.canonicalizeKeyMaterial(both), /circular/);
  });

  it('refuse an alias before or inside its anchor, a second anchor, a primitive, a bound tag outside a session', () => {
    const bad: [unknown, RegExp][] = [
      [{ $js: 'alias', name: 'x' }, /no earlier anchor/],
      [[{ $js: 'alias', name: 'x' }, { $js: 'anchor', name: 'x', value: [] }], /no earlier anchor/],
      [{ $js: 'anchor', name: 'x', value: [{ $js: 'alias', name: 'x' }] }, /cycle is written ref/],
      [[{ $js: 'anchor', name: 'x', value: [] }, { $js: 'anchor', name: 'x', value: {} }], /twice/],
      [{ $js: 'anchor', name: 'x', value: 3 }, /no array or object/],
      [{ $js: 'alias', name: '' }, /non-empty string/],
      [{ $js: 'bound', name: 'k' }, /outside a session/],
    ];
    for (const [tagged, complaint] of bad) assert.throws(() => decode(tagged), (error: unknown) => error instanceof WireError && complaint.test(error.message));
  });
});

describe('objects held by a session', () => {
  const dispatcher = (): Dispatcher =>
    new Dispatcher(port, { implementation: { name: 't', language: 'ts', version: '0' }, features: [], log: () => {} });

  it('reach the memo: the declared object, changed, keeps its fingerprint', async () => {
    const harness = dispatcher();
    const answers = [];
    for (const request of [
      { id: 1, op: 'create', option: true },
      { id: 2, op: 'bindObject', session: 's1', name: 'k', value: { path: 'a' } },
      { id: 3, op: 'declareRound', session: 's1', round: 0, calls: [{ toolName: 'read', keyMaterial: { $js: 'bound', name: 'k' } }] },
      { id: 4, op: 'setMember', session: 's1', name: 'k', path: ['path'], value: 'b' },
      { id: 5, op: 'recordToolCall', session: 's1', toolName: 'read', keyMaterial: { $js: 'bound', name: 'k' }, round: 0 },
      { id: 6, op: 'setMember', session: 's1', name: 'k', path: ['nope', 0], value: 1 },
      { id: 7, op: 'canonicalize', value: { $js: 'bound', name: 'k' } },
    ]) answers.push(await harness.handle(request));
    const record = answers[4] as unknown as { result: { fingerprint: string } };
    assert.equal(record.result.fingerprint, await port.fingerprintToolCall('read', { path: 'a' }));
    assert.notEqual(record.result.fingerprint, await port.fingerprintToolCall('read', { path: 'b' }));
    assert.deepEqual(answers.slice(5).map((answer) => ('error' in answer ? answer.error.code : 'ok')), ['bad-request', 'bad-request']);
  });
});

describe('the decode depth limit (PROT-41)', () => {
  const inside = (depth: number, value: unknown): unknown => {
    let wrapped = value;
    for (let level = 0; level < depth; level += 1) wrapped = [wrapped];
    return wrapped;
  };
  const tag = { $js: 'object', value: {} };

  it('refuses a tag inside the limit of containers, an object literal counting as one', () => {
    assert.throws(() => decode(inside(DECODE_DEPTH_LIMIT, tag)), WireError);
    const literal = { $js: 'object', value: { b: tag } };
    assert.throws(() => decode({ a: inside(DECODE_DEPTH_LIMIT - 2, literal) }), /PROT-41/);
  });

  it('decodes a tag one level inside, and plain JSON deeper than the limit', () => {
    assert.deepEqual(decode(inside(DECODE_DEPTH_LIMIT - 1, tag)), inside(DECODE_DEPTH_LIMIT - 1, {}));
    assert.deepEqual(decode(inside(DECODE_DEPTH_LIMIT + 50, 1)), inside(DECODE_DEPTH_LIMIT + 50, 1));
  });
});
