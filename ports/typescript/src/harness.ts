#!/usr/bin/env node
/**
 * Conformance harness, protocol v1: JSON lines on stdin/stdout.
 *
 *   node dist/harness.js [--module PATH] [--without-feature NAME]...
 *
 * The doom-loop module under test is `--module PATH`, else the environment
 * variable DOOMLOOP_TS_MODULE, else this port's compiled `doom-loop.js` next to
 * this file. Only the module's public API is used, so the SDK's own build can
 * be tested with the same harness and the same features (both test field-list
 * presence with JS `in`: `js-inherited-members`).
 *
 * Every non-blank input line gets exactly one output line, in order. Bad
 * input never crashes the process; stderr is free-form logging. End of stdin
 * ends the process with status 0.
 */

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Dispatcher, type DoomLoopModule, type Json, type Response } from './protocol.js';
import { JS_MODULE_FEATURES } from './wire.js';

const here = dirname(fileURLToPath(import.meta.url));

function log(line: string): void {
  process.stderr.write(`[doomloop-ts-harness] ${line}\n`);
}

interface Arguments {
  module: string;
  without: Set<string>;
}

function parseArguments(argv: readonly string[]): Arguments {
  let module = process.env.DOOMLOOP_TS_MODULE ?? '';
  const without = new Set<string>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const next = argv[index + 1];
    if ((argument === '--module' || argument === '--without-feature') && next === undefined) {
      throw new Error(`${argument} needs a value`);
    }
    if (argument === '--module') {
      module = next ?? '';
      index += 1;
    } else if (argument === '--without-feature') {
      without.add(next ?? '');
      index += 1;
    } else if (argument?.startsWith('--module=') === true) {
      module = argument.slice('--module='.length);
    } else {
      throw new Error(`unknown argument ${JSON.stringify(argument)}`);
    }
  }
  return { module: module === '' ? resolve(here, 'doom-loop.js') : resolve(module), without };
}

function packageVersion(): string {
  try {
    const text = readFileSync(resolve(here, '..', 'package.json'), 'utf8');
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string') {
      return parsed.version;
    }
  } catch {
    // fall through
  }
  return '0.0.0';
}

function write(response: Response): void {
  let line: string;
  try {
    line = JSON.stringify(response);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    line = JSON.stringify({ id: response.id, error: { code: 'internal', message: `unserialisable result: ${message}` } });
  }
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  let args: Arguments;
  try {
    args = parseArguments(process.argv.slice(2));
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
    return;
  }
  let mod: DoomLoopModule;
  try {
    mod = (await import(pathToFileURL(args.module).href)) as DoomLoopModule;
  } catch (error) {
    log(`cannot load module ${args.module}: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
    return;
  }
  // Anything the module prints must not reach stdout, which carries the protocol.
  console.log = (...items: unknown[]): void => log(`log: ${items.map(String).join(' ')}`);
  console.info = console.log;
  console.debug = console.log;
  log(`module ${args.module}`);

  const dispatcher = new Dispatcher(mod, {
    implementation: { name: 'doomloop-kit-typescript-port', language: 'typescript', version: packageVersion() },
    features: JS_MODULE_FEATURES.filter((feature) => !args.without.has(feature)),
    log,
  });

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let request: unknown;
    try {
      request = JSON.parse(line) as unknown;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      write({ id: null as Json, error: { code: 'bad-request', message: `not JSON: ${message}` } });
      continue;
    }
    write(await dispatcher.handle(request));
  }
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
