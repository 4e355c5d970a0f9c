#!/usr/bin/env node
/**
 * Conformance harness, protocol v1 (revision 1.3): JSON lines on stdin/stdout.
 *
 *   doomloop-kit-harness [--module PATH|PACKAGE] [--without-feature NAME]...
 *   doomloop-kit-harness --sdk-engine BUNDLE [--without-feature NAME]...
 *   node dist/harness.js  (the same, from this checkout)
 *
 * The doom-loop module under test is `--module`, else the environment
 * variable DOOMLOOP_TS_MODULE, else this package's own TypeScript port
 * (`dist/doom-loop.js`), the only one served with the engine level (its run
 * loop is this package's engine; another module brings none here). A module is a file path or a package specifier
 * (`@openrouter/agent/doom-loop`), resolved from the working directory. Only
 * the module's public API is used, so the SDK's own build is tested with the
 * same harness and the same features (both test field-list presence with JS
 * `in`: `js-inherited-members`).
 *
 * With `--sdk-engine`, `runScenario` is answered by the SDK's own run loop, an
 * engine bundle of `@openrouter/agent` (`sdk-engine/`), and every other
 * operation by the bundle's doom-loop module.
 *
 * Every non-blank input line gets exactly one output line, in order. Bad
 * input never crashes the process; stderr is free-form logging. End of stdin
 * ends the process with status 0; bad arguments or a module that cannot be
 * loaded end it with status 2 before any output.
 */

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModule } from './load-module.js';
import type { DoomLoopModule, Implementation, ScenarioRunner } from './protocol.js';
import { loadSdkEngine, sdkEngineRunner } from './sdk-engine/index.js';
import { asDoomLoopModule, PROTOCOL_REVISION, serve, typescriptPortEngine } from './serve.js';

const here = dirname(fileURLToPath(import.meta.url));

/** This package's own port, the module served by default. */
const OWN_PORT = { name: 'doomloop-kit-typescript-port', file: resolve(here, 'doom-loop.js') };

const USAGE = `usage: doomloop-kit-harness [--module PATH|PACKAGE] [--without-feature NAME]...
       doomloop-kit-harness --sdk-engine BUNDLE [--without-feature NAME]...

Serves the doom-loop conformance protocol (v1, revision ${PROTOCOL_REVISION}) on
stdin/stdout over a module with the doom-loop API of @openrouter/agent 0.9.0
(default: this package's TypeScript port). The engine level (runScenario) is
declared for this package's own port only, whose run loop it is; a module given
with --module is served as a monitor, and the runner skips the engine vectors.
Run it with the kit's runner:
  doomloop-kit conformance run --port "doomloop-kit-harness --module ./dist/doom-loop.js"

--sdk-engine BUNDLE answers runScenario with the SDK's own run loop instead: an
engine bundle of @openrouter/agent (callModel with its transport replaced by
globalThis.__sdkEngineSend; see the kit's docs/guide/write-a-harness.md), every
other operation with the bundle's doom-loop module:
  doomloop-kit conformance run --family 'engine-*' --port "doomloop-kit-harness --sdk-engine ./sdk-engine.mjs"
`;

function log(line: string): void {
  process.stderr.write(`[doomloop-kit-harness] ${line}\n`);
}

interface Arguments {
  module: string | undefined;
  sdkEngine: string | undefined;
  without: Set<string>;
  help: boolean;
}

const VALUED_FLAGS = ['--module', '--sdk-engine', '--without-feature'];

function parseArguments(argv: readonly string[]): Arguments {
  const parsed: Arguments = { module: undefined, sdkEngine: undefined, without: new Set<string>(), help: false };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    const [flag, inline] = argument.startsWith('--') && argument.includes('=')
      ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)]
      : [argument, undefined];
    if (flag === '--help' || flag === '-h') {
      parsed.help = true;
      continue;
    }
    if (!VALUED_FLAGS.includes(flag ?? '')) throw new Error(`unknown argument ${JSON.stringify(argument)}`);
    const value = inline ?? argv[index + 1];
    if (value === undefined || value === '') throw new Error(`${flag} needs a value`);
    if (inline === undefined) index += 1;
    if (flag === '--module') parsed.module = value;
    else if (flag === '--sdk-engine') parsed.sdkEngine = value;
    else parsed.without.add(value);
  }
  if (parsed.module !== undefined && parsed.sdkEngine !== undefined) throw new Error('--module and --sdk-engine exclude each other');
  if (parsed.sdkEngine === undefined) parsed.module ??= process.env.DOOMLOOP_TS_MODULE || undefined;
  return parsed;
}

function ownVersion(): string {
  try {
    const parsed = JSON.parse(readFileSync(resolve(here, '..', 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof parsed.version === 'string') return parsed.version;
  } catch {
    // fall through
  }
  return '0.0.0';
}

async function main(): Promise<void> {
  let args: Arguments;
  try {
    args = parseArguments(process.argv.slice(2));
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  let served: Served;
  try {
    served = args.sdkEngine === undefined ? await moduleServed(args.module) : await sdkEngineServed(args.sdkEngine);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
    return;
  }
  await serve(served.module, {
    implementation: { ...served.implementation, language: 'typescript' },
    withoutFeatures: args.without,
    log,
    ...(served.engine === undefined ? {} : { engine: served.engine }),
  });
}

/** What the bin serves: a doom-loop module, and the engine behind runScenario when not the kit's. */
interface Served {
  module: DoomLoopModule;
  implementation: Pick<Implementation, 'name' | 'version'>;
  engine?: ScenarioRunner;
}

/**
 * `--module`, or the package's own port: only the package's own port brings a run
 * loop (its engine); a `--module` is served as a monitor (serve: `engine` is opt-in).
 */
async function moduleServed(given: string | undefined): Promise<Served> {
  const specifier = given ?? OWN_PORT.file;
  const loaded = await loadModule(specifier);
  log(`module ${loaded.url}`);
  if (given !== undefined) {
    return { module: loaded.module, implementation: loaded.implementation ?? { name: specifier, version: '0.0.0' } };
  }
  const implementation = { name: OWN_PORT.name, version: ownVersion() };
  return { module: loaded.module, implementation, engine: typescriptPortEngine(asDoomLoopModule(loaded.module)) };
}

/** `--sdk-engine`: the SDK's own run loop behind runScenario, its doom-loop module for the rest. */
async function sdkEngineServed(given: string): Promise<Served> {
  const loaded = await loadSdkEngine(given);
  log(`SDK engine bundle ${loaded.path}`);
  return { module: loaded.sdk.doomLoop, implementation: loaded.implementation, engine: sdkEngineRunner(loaded.sdk, log) };
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
