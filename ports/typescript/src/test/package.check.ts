/**
 * The npm package as a port author uses it, outside this checkout (issue 12):
 * `npm pack` the built package, install the tarball into a fresh project in a
 * temporary directory, then
 * - run the `doomloop-kit-harness` bin (its own port, `--module` by package
 *   specifier and by path, a module without the API);
 * - run a port author's glue script that hosts the harness with `serve`;
 * - type-check that glue as TypeScript against the installed declarations.
 *
 * Run after `npm run build`: `npm run test:package` (not part of `npm test`:
 * it spawns npm and tsc, a few seconds).
 */

import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { PACKAGE_ROOT } from './support.js';

const NAME = 'doomloop-kit-harness';

/** The glue a TypeScript port author writes (here the port is the package's own, as a stand-in). */
const GLUE = `import { serve } from 'doomloop-kit-harness';
import * as port from 'doomloop-kit-harness/doom-loop';

await serve(port, { implementation: { name: 'consumer-port', version: '1.2.3' } });
`;

const REQUESTS = [
  '{"id":1,"op":"hello","protocol":1}',
  '{"id":2,"op":"fingerprintKeyMaterial","keyMaterial":"I am stuck."}',
  '{"id":3,"op":"resolveOption","option":null}',
  '{"id":4,"op":"resolveLoopKey","loopKey":["__proto__"],"args":{"path":"x"}}',
  '{"id":5,"op":"runScenario","scenario":{"id":"pkg","doomLoop":true,"runs":[{"input":"hi","model":[{"output":[{"type":"message","content":[{"type":"output_text","text":"hello"}]}]}]}]}}',
  '{"id":6,"op":"runScenario","scenario":{"id":"pkg"}}',
].join('\n');

function run(command: string, args: readonly string[], cwd: string, input = ''): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, input, encoding: 'utf8', timeout: 120_000 });
  if (result.error !== undefined) throw result.error;
  return result;
}

function answers(result: SpawnSyncReturns<string>): Record<string, unknown>[] {
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The answers every host of a doom-loop module gives to REQUESTS; `engine`: the host was
 * given a run loop of the port's own (only the package's own port here), else the harness
 * must neither declare `engine` nor answer `runScenario` (issue 33).
 */
function assertConversation(result: SpawnSyncReturns<string>, implementation: string, engine: boolean): void {
  const [hello, fingerprint, nullOption, protoKey, scenario, badScenario] = answers(result);
  const handshake = hello?.result as { implementation: { name: string }; features: string[] };
  assert.equal(handshake.implementation.name, implementation);
  assert.ok(handshake.features.includes('js-inherited-members'));
  assert.equal(handshake.features.includes('engine'), engine);
  assert.equal(fingerprint?.result, '37c38ab53f4c3570d8baf87392cb035ef8b2ad98ca1c1e083ea84184173911aa');
  assert.equal((nullOption?.error as { code: string }).code, 'type-error');
  // JSON.parse makes __proto__ an own member, as the answer has it
  assert.deepEqual(protoKey?.result, JSON.parse('{"kind":"key","keyMaterial":{"__proto__":{}}}'));
  if (!engine) {
    assert.deepEqual([(scenario?.error as { code: string }).code, (badScenario?.error as { code: string }).code], ['unknown-op', 'unknown-op']);
    return;
  }
  // the engine level (protocol 1.2) ships in the package: a one-response run ends complete (ENG-161)
  const transcript = scenario?.result as { scenario: string; runs: { end: { status: string; finalResponseId: string } }[] };
  assert.equal(transcript.scenario, 'pkg');
  assert.deepEqual([transcript.runs[0]?.end.status, transcript.runs[0]?.end.finalResponseId], ['complete', 'resp_1']);
  assert.equal((badScenario?.error as { code: string }).code, 'bad-scenario');
}

describe('the npm package, installed outside the checkout', () => {
  let work = '';
  let project = '';
  let tarball = '';

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'doomloop-kit-harness-'));
    const packed = run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], PACKAGE_ROOT);
    assert.equal(packed.status, 0, packed.stderr);
    const file = readdirSync(work).find((name) => name.endsWith('.tgz'));
    assert.ok(file !== undefined, 'npm pack wrote no tarball');
    tarball = join(work, file);
    process.stdout.write(`# tarball ${file}: ${statSync(tarball).size} bytes\n`);
    project = join(work, 'project');
    run('mkdir', ['-p', project], work);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const installed = run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball], project);
    assert.equal(installed.status, 0, installed.stderr);
  });

  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it('ships only the built modules, their declarations and the README', () => {
    const listed = run('tar', ['-tzf', tarball], work);
    const files = listed.stdout.trim().split('\n').sort();
    assert.ok(files.includes('package/dist/serve.d.ts'));
    assert.ok(files.includes('package/dist/harness.js'));
    // --sdk-engine reads the kit's table of ENG-141 error kinds beside its modules
    assert.ok(files.includes('package/dist/sdk-engine/sdk-error-kinds.json'));
    assert.ok(files.includes('package/dist/sdk-engine/index.js'));
    assert.deepEqual(files.filter((file) => file.includes('/test/') || file.includes('/bench/') || file.includes('/src/')), []);
  });

  it('the bin serves the package’s own port', () => {
    assertConversation(run(join(project, 'node_modules', '.bin', NAME), [], project, REQUESTS), 'doomloop-kit-typescript-port', true);
  });

  it('the bin serves a module named by package specifier or by path, without the engine level', () => {
    const bin = join(project, 'node_modules', '.bin', NAME);
    assertConversation(run(bin, ['--module', `${NAME}/doom-loop`], project, REQUESTS), NAME, false);
    assertConversation(run(bin, ['--module', `./node_modules/${NAME}/dist/doom-loop.js`], project, REQUESTS), NAME, false);
  });

  it('the bin refuses a module without the doom-loop API, before any output', () => {
    writeFileSync(join(project, 'not-a-port.mjs'), 'export const x = 1;\n');
    const result = run(join(project, 'node_modules', '.bin', NAME), ['--module', './not-a-port.mjs'], project, REQUESTS);
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /does not export resolveDoomLoopOption, .*DoomLoopMonitor/);
  });

  it('exports the SDK engine harness for a glue of one\'s own', () => {
    const script = "import { loadSdkEngine, sdkEngineRunner } from 'doomloop-kit-harness/sdk-engine';\n" +
      "process.stdout.write(typeof loadSdkEngine + ' ' + typeof sdkEngineRunner);\n";
    writeFileSync(join(project, 'sdk-engine-glue.mjs'), script);
    const result = run(process.execPath, ['sdk-engine-glue.mjs'], project);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'function function');
  });

  it('the bin refuses --sdk-engine with a package, naming the reason, before any output', () => {
    const result = run(join(project, 'node_modules', '.bin', NAME), ['--sdk-engine', '@openrouter/agent'], project, REQUESTS);
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /documents no way to give callModel a client/);
  });

  it('a port author hosts the harness with serve in a few lines', () => {
    writeFileSync(join(project, 'glue.mjs'), GLUE);
    assert.ok(GLUE.trim().split('\n').length <= 4);
    assertConversation(run(process.execPath, ['glue.mjs'], project, REQUESTS), 'consumer-port', false);
  });

  it('the glue type-checks against the installed declarations (strict, NodeNext)', () => {
    writeFileSync(join(project, 'glue.ts'), GLUE);
    const tsc = resolve(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const types = resolve(PACKAGE_ROOT, 'node_modules', '@types');
    const checked = run(process.execPath, [
      tsc, '--noEmit', '--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022',
      '--typeRoots', types, '--types', 'node', 'glue.ts',
    ], project);
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  });
});
