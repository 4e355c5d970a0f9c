/**
 * Host the protocol-v1 (revision 1.3) conformance harness over a doom-loop module: a
 * TypeScript port of the SDK module passes the kit with a few lines of glue.
 *
 * ```ts
 * import { serve } from 'doomloop-kit-harness';
 * import * as port from './doom-loop.js';
 * await serve(port, { implementation: { name: 'my-port', version: '1.0.0' } });
 * ```
 *
 * A port with a run loop of its own (the engine level, spec §15) passes it as
 * `engine`: `serve(port, { engine: (scenario) => myRunLoop(scenario) })`. Only
 * then does the harness declare `engine` and answer `runScenario`.
 *
 * The module is driven through the public API of `@openrouter/agent` 0.9.0's
 * doom-loop module only (`REQUIRED_EXPORTS`). `serve` answers every
 * non-blank request line of standard input with one line on standard output,
 * in order, and returns when standard input ends. Lines are split on line
 * feeds as bytes (PROT-02); a blank line holds JSON whitespace only, and a line
 * that is not UTF-8 is not JSON: `bad-request` (PROT-44), as in every harness.
 */

import { isUtf8 } from 'node:buffer';
import type { Readable, Writable } from 'node:stream';

import { asDoomLoopModule, Dispatcher, ENGINE_FEATURE, type Implementation, type Json, type Response, type ScenarioRunner } from './protocol.js';
import { JS_MODULE_FEATURES } from './wire.js';

export { loadModule, resolveModule, type LoadedModule } from './load-module.js';
export {
  asDoomLoopModule,
  Dispatcher,
  ENGINE_FEATURE,
  PROTOCOL_REVISION,
  PROTOCOL_VERSION,
  REQUIRED_EXPORTS,
  type DoomLoopModule,
  type Implementation,
  type ScenarioRunner,
  typescriptPortEngine,
} from './protocol.js';
export { ScenarioError } from './engine/index.js';
export { FEATURES, JS_MODULE_FEATURES } from './wire.js';

export interface ServeOptions {
  /** What the `hello` answer names (default: `typescript-port`, `typescript`, `0.0.0`). */
  implementation?: Partial<Implementation>;
  /**
   * The features to declare (default: {@link JS_MODULE_FEATURES}, what a JS module supports,
   * and `engine` when {@link engine} is given).
   */
  features?: readonly string[];
  /**
   * The port's own run loop (the engine level, spec §15), which answers `runScenario`. Give it
   * only when the port brings its own engine: without it the harness does not declare `engine`
   * and the runner skips the engine vectors, so a monitor-only port is never credited with the
   * engine level.
   */
  engine?: ScenarioRunner;
  /** Features to leave out of the declared ones. */
  withoutFeatures?: Iterable<string>;
  /** Request lines (default: `process.stdin`). */
  input?: Readable;
  /** Response lines (default: `process.stdout`). */
  output?: Writable;
  /** Free-form log lines, such as warnings the module prints (default: standard error). */
  log?: (line: string) => void;
}

function defaultLog(line: string): void {
  process.stderr.write(`[doomloop-kit-harness] ${line}\n`);
}

/** One response as one line; a result JSON cannot hold becomes an `internal` error. */
function responseLine(response: Response): string {
  try {
    return `${JSON.stringify(response)}\n`;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `${JSON.stringify({ id: response.id, error: { code: 'internal', message: `unserialisable result: ${message}` } })}\n`;
  }
}

/** The lines of `input` (without their line feed), split as bytes, never decoded here. */
async function* byteLines(input: Readable): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    let start = 0;
    for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
      pending.push(bytes.subarray(start, end));
      yield Buffer.concat(pending);
      pending = [];
      start = end + 1;
    }
    if (start < bytes.length) pending.push(bytes.subarray(start));
  }
  if (pending.length > 0) yield Buffer.concat(pending);
}

/** A line of JSON whitespace only (space, tab, carriage return) gets no answer (PROT-44). */
function isBlank(line: Buffer): boolean {
  return line.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d);
}

async function writeLine(output: Writable, line: string): Promise<void> {
  if (!output.write(line)) await new Promise<void>((done) => output.once('drain', done));
}

/**
 * Serve protocol v1 over `module` until the input ends. Nothing the module
 * logs reaches the output: `console.log`, `console.info` and `console.debug`
 * go to the log while serving, and `console.warn` is captured per request.
 */
export async function serve(module: object, options: ServeOptions = {}): Promise<void> {
  const mod = asDoomLoopModule(module);
  const log = options.log ?? defaultLog;
  const without = new Set(options.withoutFeatures ?? []);
  const dispatcher = new Dispatcher(mod, {
    implementation: {
      name: options.implementation?.name ?? 'typescript-port',
      language: options.implementation?.language ?? 'typescript',
      version: options.implementation?.version ?? '0.0.0',
    },
    features: (options.features ?? [...JS_MODULE_FEATURES, ENGINE_FEATURE]).filter((feature) => !without.has(feature)),
    ...(options.engine === undefined ? {} : { engine: options.engine }),
    log,
    ...(options.engine === undefined ? {} : { engine: options.engine }),
  });
  const output = options.output ?? process.stdout;
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toLog = (...items: unknown[]): void => log(`log: ${items.map(String).join(' ')}`);
  console.log = toLog;
  console.info = toLog;
  console.debug = toLog;
  try {
    for await (const bytes of byteLines(options.input ?? process.stdin)) {
      if (isBlank(bytes)) continue;
      if (!isUtf8(bytes)) {
        await writeLine(output, responseLine({ id: null as Json, error: { code: 'bad-request', message: 'not JSON: the line is not UTF-8' } }));
        continue;
      }
      let request: unknown;
      try {
        request = JSON.parse(bytes.toString('utf8')) as unknown;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await writeLine(output, responseLine({ id: null as Json, error: { code: 'bad-request', message: `not JSON: ${message}` } }));
        continue;
      }
      await writeLine(output, responseLine(await dispatcher.handle(request)));
    }
  } finally {
    Object.assign(console, saved);
  }
}
