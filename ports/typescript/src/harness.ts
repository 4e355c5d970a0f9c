#!/usr/bin/env node
/**
 * Conformance harness, protocol v1 (revision 1.3): JSON lines on stdin/stdout.
 *
 *   doomloop-kit-harness [--module PATH|PACKAGE] [--without-feature NAME]...
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
 * Every non-blank input line gets exactly one output line, in order. Bad
 * input never crashes the process; stderr is free-form logging. End of stdin
 * ends the process with status 0; bad arguments or a module that cannot be
 * loaded end it with status 2 before any output.
 */

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModule } from './load-module.js';
import { asDoomLoopModule, PROTOCOL_REVISION, serve, typescriptPortEngine } from './serve.js';

const here = dirname(fileURLToPath(import.meta.url));

/** This package's own port, the module served by default. */
const OWN_PORT = { name: 'doomloop-kit-typescript-port', file: resolve(here, 'doom-loop.js') };

const USAGE = `usage: doomloop-kit-harness [--module PATH|PACKAGE] [--without-feature NAME]...

Serves the doom-loop conformance protocol (v1, revision ${PROTOCOL_REVISION}) on
stdin/stdout over a module with the doom-loop API of @openrouter/agent 0.9.0
(default: this package's TypeScript port). The engine level (runScenario) is
declared for this package's own port only, whose run loop it is; a module given
with --module is served as a monitor, and the runner skips the engine vectors.
Run it with the kit's runner:
  doomloop-kit conformance run --port "doomloop-kit-harness --module ./dist/doom-loop.js"
`;

function log(line: string): void {
  process.stderr.write(`[doomloop-kit-harness] ${line}\n`);
}

interface Arguments {
  module: string | undefined;
  without: Set<string>;
  help: boolean;
}

function parseArguments(argv: readonly string[]): Arguments {
  const parsed: Arguments = { module: process.env.DOOMLOOP_TS_MODULE || undefined, without: new Set<string>(), help: false };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    const [flag, inline] = argument.startsWith('--') && argument.includes('=')
      ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)]
      : [argument, undefined];
    if (flag === '--help' || flag === '-h') {
      parsed.help = true;
      continue;
    }
    if (flag !== '--module' && flag !== '--without-feature') throw new Error(`unknown argument ${JSON.stringify(argument)}`);
    const value = inline ?? argv[index + 1];
    if (value === undefined || value === '') throw new Error(`${flag} needs a value`);
    if (inline === undefined) index += 1;
    if (flag === '--module') parsed.module = value;
    else parsed.without.add(value);
  }
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
  const specifier = args.module ?? OWN_PORT.file;
  let loaded: Awaited<ReturnType<typeof loadModule>>;
  try {
    loaded = await loadModule(specifier);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
    return;
  }
  log(`module ${loaded.url}`);
  const implementation =
    args.module === undefined
      ? { name: OWN_PORT.name, version: ownVersion() }
      : (loaded.implementation ?? { name: specifier, version: '0.0.0' });
  // the kit's engine is this package's port's own run loop, never a --module's (serve: engine)
  const engine = args.module === undefined ? { engine: typescriptPortEngine(asDoomLoopModule(loaded.module)) } : {};
  await serve(loaded.module, { implementation: { ...implementation, language: 'typescript' }, withoutFeatures: args.without, log, ...engine });
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
