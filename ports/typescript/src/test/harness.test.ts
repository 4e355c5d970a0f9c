/**
 * The harness as a process (protocol v1): handshake, pipelined requests
 * answered in order, structured errors for bad input, nothing but JSON lines
 * on stdout, exit status 0 when stdin closes.
 */

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';

import * as port from '../doom-loop.js';
import { asDoomLoopModule, serve } from '../serve.js';

import { PACKAGE_ROOT, servedOutput } from './support.js';

const HARNESS = resolve(PACKAGE_ROOT, 'dist', 'harness.js');

function converse(lines: string[], args: string[] = []): Promise<{ out: unknown[]; code: number | null }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [HARNESS, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', fail);
    child.on('close', (code) => {
      try {
        const out = stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as unknown);
        done({ out, code });
      } catch (error) {
        fail(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.stdin.end(lines.map((line) => `${line}\n`).join(''));
  });
}

describe('harness process', () => {
  it('speaks protocol 1 and answers pipelined requests in order', async () => {
    const { out, code } = await converse([
      '{"id":0,"op":"hello","protocol":1}',
      '{"id":1,"op":"create","option":true}',
      '{"id":2,"op":"recordToolCall","session":"s1","toolName":"read","keyMaterial":{"p":1},"round":0}',
      '{"id":3,"op":"recordToolCall","session":"s1","toolName":"read","keyMaterial":{"p":1},"round":1}',
      '{"id":4,"op":"close","session":"s1"}',
      '{"id":5,"op":"canonicalize","value":{"$js":"bigint","value":"1"}}',
      '{"id":6,"op":"canonicalize","value":"\\ud800"}',
      'not json',
      '{"id":7,"op":"noSuchOp"}',
      '{"id":8,"op":"getState","session":"s1"}',
      '{"id":9,"op":"hello","protocol":2}',
    ]);
    assert.equal(code, 0);
    const ids = out.map((response) => (response as { id: unknown }).id);
    assert.deepEqual(ids, [0, 1, 2, 3, 4, 5, 6, null, 7, 8, 9]);
    const [hello, , first, second, closed, bigint, lone, notJson, unknownOp, unknownSession, badVersion] = out as Record<string, unknown>[];
    const result = hello?.result as { protocol: number; implementation: { name: string; language: string; version: string }; features: string[] };
    assert.equal(result.protocol, 1);
    assert.equal(result.implementation.name, 'doomloop-kit-typescript-port');
    assert.equal(result.implementation.language, 'typescript');
    assert.ok(result.features.includes('js-inherited-members'));
    assert.ok(result.features.includes('js-coercion'));
    assert.ok(!result.features.includes('json-own-members'));
    assert.equal((first?.result as { streak: number }).streak, 1);
    assert.equal(((second?.result as { verdict: { action: string } }).verdict).action, 'observe');
    assert.equal(closed?.result, null);
    assert.equal((bigint?.error as { code: string }).code, 'canonicalization');
    assert.equal(lone?.result, '"\\ud800"');
    assert.equal((notJson?.error as { code: string }).code, 'bad-request');
    assert.equal((unknownOp?.error as { code: string }).code, 'unknown-op');
    assert.equal((unknownSession?.error as { code: string }).code, 'unknown-session');
    assert.equal((badVersion?.error as { code: string }).code, 'unsupported-protocol');
  });

  it('can drop a feature from the handshake', async () => {
    const { out } = await converse(['{"id":0,"op":"hello","protocol":1}'], ['--without-feature', 'js-coercion']);
    const features = ((out[0] as { result: { features: string[] } }).result).features;
    assert.ok(!features.includes('js-coercion'));
    assert.ok(features.includes('undefined'));
  });

  it('answers the protocol edges of issue 11 (D3, D10, D11)', async () => {
    const deep = `${'['.repeat(5000)}0${']'.repeat(5000)}`;
    const { out, code } = await converse([
      '{"id":0,"op":"canonicalize","value":1}',
      '{"id":-0,"op":"canonicalize","value":2}',
      '{"id":1.0,"op":"canonicalize","value":3}',
      '{"id":9007199254740993,"op":"canonicalize","value":4}',
      '{"id":5,"op":"canonicalize","value":{"$js":"bigint","value":"+1"}}',
      `{"id":6,"op":"canonicalize","value":${deep}}`,
      '{"id":7,"op":"resolveOption","option":null}',
      '{"id":8,"op":"create","option":{"text":null}}',
      '{"id":9,"op":"detectTextRepetition","text":"a a","options":{"maxWindowTokens":{"$js":"bigint","value":"4"}}}',
      '{"id":10,"op":"resolveLadderAction","ladder":{"observe":2.5,"steer":false,"escalate":false,"block":3,"stop":6},"streak":3,"allowBlock":true}',
      '{"id":11,"op":"resolveOption","option":{"ladder":{"observe":3,"block":3}}}',
    ]);
    assert.equal(code, 0);
    const answers = out as { id: unknown; result?: unknown; error?: { code: string; message: string } }[];
    assert.deepEqual(answers.slice(0, 3).map(({ id, result }) => [id, result]), [[0, '1'], [0, '2'], [1, '3']]);
    assert.deepEqual([answers[3]?.id, answers[3]?.error?.code], [null, 'bad-request']);
    assert.equal(answers[4]?.error?.code, 'bad-request');
    assert.deepEqual(answers[5]?.error, { code: 'canonicalization', message: 'Cannot canonicalize key material nested deeper than 64 levels for doom-loop fingerprinting' });
    assert.deepEqual(answers.slice(6, 9).map((answer) => answer.error?.code), ['type-error', 'type-error', 'type-error']);
    assert.equal(answers[9]?.error?.code, 'bad-request');
    assert.deepEqual((answers[10]?.result as { warnings: unknown }).warnings, [{
      code: 'dead-rung',
      rung: 'observe',
      shadowedBy: 'block',
      message: '[DoomLoop] ladder rung "observe" (3) can never fire: stronger rung "block" (3) already wins at that streak (strongest crossed rung is applied).',
    }]);
  });

  it('loads the module named by --module', async () => {
    const { out } = await converse(['{"id":0,"op":"fingerprintKeyMaterial","keyMaterial":"I am stuck."}'], ['--module', resolve(PACKAGE_ROOT, 'dist', 'doom-loop.js')]);
    assert.equal((out[0] as { result: string }).result, '37c38ab53f4c3570d8baf87392cb035ef8b2ad98ca1c1e083ea84184173911aa');
  });
});

describe('serve (the package export)', () => {
  it('answers each request line on the output and sends module logs to the log', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const logged: string[] = [];
    let written = '';
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      written += chunk;
    });
    const noisy = { ...port, canonicalizeKeyMaterial: (value: unknown): string => {
      console.log('noise');
      return port.canonicalizeKeyMaterial(value);
    } };
    const originalLog = console.log;
    const served = serve(noisy, { input, output, log: (line) => logged.push(line), implementation: { name: 'in-process' }, withoutFeatures: ['bigint'] });
    input.end('{"id":1,"op":"hello","protocol":1}\n\n{"id":2,"op":"canonicalize","value":[1]}\nnot json\n');
    await served;
    const lines = written.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines.length, 3);
    const hello = lines[0]?.result as { implementation: { name: string; language: string; version: string }; features: string[] };
    assert.deepEqual(hello.implementation, { name: 'in-process', language: 'typescript', version: '0.0.0' });
    assert.ok(!hello.features.includes('bigint') && hello.features.includes('js-coercion'));
    assert.equal(lines[1]?.result, '[1]');
    assert.deepEqual([lines[2]?.id, (lines[2]?.error as { code: string }).code], [null, 'bad-request']);
    assert.deepEqual(logged, ['log: noise']);
    assert.equal(console.log, originalLog); // restored once the input ended
  });

  it('answers a line that is not UTF-8 with bad-request and skips JSON-whitespace lines only (PROT-44)', async () => {
    const written = await servedOutput(Buffer.concat([
      Buffer.from('{"id":1,"op":"canonicalize","value":"a'),
      Buffer.from([0xff]),
      Buffer.from('"}\n{"id":2,\r"op":"canonicalize","value":1}\n \t\r\n\u00a0\n\u2028\n'),
    ]));
    const lines = written.split('\n').slice(0, -1).map((line) => JSON.parse(line) as { id: unknown; result?: unknown; error?: { code: string } });
    assert.deepEqual(lines.map((line) => [line.id, line.error?.code ?? line.result]), [
      [null, 'bad-request'], // never read with U+FFFD
      [2, '1'], // a carriage return inside a line does not end it
      [null, 'bad-request'], // U+00A0 is not JSON whitespace
      [null, 'bad-request'], // nor is U+2028
    ]);
  });

  it('takes a CommonJS module whose exports are on default', () => {
    assert.equal(asDoomLoopModule({ default: port }), port);
    assert.throws(() => asDoomLoopModule(null), /not a module namespace/);
  });

  it('refuses a module without the doom-loop API, naming what is missing', async () => {
    await assert.rejects(serve({ resolveDoomLoopOption: () => null }), /does not export resolveLoopKeyMaterial, canonicalizeKeyMaterial/);
  });
});

describe('the bin', () => {
  it('--help prints the usage; a bad argument or module ends with status 2', async () => {
    const help = spawnSync(process.execPath, [HARNESS, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: doomloop-kit-harness/);
    for (const args of [['--nope'], ['--module'], ['--module', resolve(PACKAGE_ROOT, 'package.json')], ['--module', 'no-such-package-anywhere']]) {
      const result = spawnSync(process.execPath, [HARNESS, ...args], { encoding: 'utf8', input: '{"id":1,"op":"hello","protocol":1}\n' });
      assert.equal(result.status, 2, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
    }
  });
});
