/**
 * Protocol v1 (revision 1.3) request handling, independent of any transport.
 *
 * A {@link Dispatcher} answers one decoded request object at a time with a
 * response object. It drives a doom-loop module through its PUBLIC API only
 * (the shape of `doom-loop.d.ts`), so it can be pointed at this port or at the
 * SDK's own build. The stdin/stdout loop lives in `harness.ts`; the vector
 * replay test uses this same class, so both take one code path.
 */

import { runScenario, ScenarioError } from './engine/index.js';
import { hasOwn, isObject, type Json } from './engine/json.js';
import { classifyWarning } from './warning-codes.js';
import { decode, encode, setMember, WireError } from './wire.js';

/** The public API of a doom-loop module (this port's, or the SDK's). */
export type DoomLoopModule = typeof import('./doom-loop.js');
type Monitor = InstanceType<DoomLoopModule['DoomLoopMonitor']>;
type RecordOptions = NonNullable<Parameters<Monitor['recordToolCall']>[3]>;

export type { Json };

export interface ErrorBody {
  code: string;
  message: string;
}

export type Response = { id: Json; result: Json } | { id: Json; error: ErrorBody };

export interface Implementation {
  name: string;
  language: string;
  version: string;
}

/**
 * A port's own run loop (the engine level, spec §15): the transcript of one scenario
 * (§15.1.4), plain JSON; it throws {@link ScenarioError} for a malformed scenario
 * (`bad-scenario`, ENG-23).
 */
export type ScenarioRunner = (scenario: unknown) => unknown;

/** The engine of this package's TypeScript port over `mod`: the run loop of that port only. */
export function typescriptPortEngine(mod: DoomLoopModule): ScenarioRunner {
  return (scenario) => runScenario(mod, scenario);
}

export interface DispatcherOptions {
  implementation: Implementation;
  /** The features to declare; `engine` is declared only with an {@link engine}. */
  features: readonly string[];
  /**
   * The port's own run loop, which answers `runScenario`. Without it the harness does not
   * declare `engine` and the runner skips the engine vectors: the kit's engine is never
   * credited to a port that does not bring one.
   */
  engine?: ScenarioRunner;
  /** Where warnings not returned as data go (default: stderr). */
  log?: (line: string) => void;
}

export const PROTOCOL_VERSION = 1;
/** The compatible revision of protocol 1 this harness implements (PROT-30): 1.2 adds `runScenario`, 1.3 expected `bad-request` for undecodable tags (PROT-40). */
export const PROTOCOL_REVISION = '1.3';
/** The feature that makes the harness answer `runScenario` (the engine level, spec §15). */
export const ENGINE_FEATURE = 'engine';

/** The exports the harness calls (the SDK module's public API). */
export const REQUIRED_EXPORTS: readonly string[] = [
  'resolveDoomLoopOption',
  'resolveLoopKeyMaterial',
  'canonicalizeKeyMaterial',
  'fingerprintKeyMaterial',
  'fingerprintToolCall',
  'detectTextRepetition',
  'resolveLadderAction',
  'DoomLoopMonitor',
];

/**
 * The module's doom-loop API, or an error naming what is missing. A CommonJS
 * module imported from ESM may carry its exports on `default`.
 */
export function asDoomLoopModule(candidate: unknown, name = 'the module'): DoomLoopModule {
  const missing = (value: unknown): string[] =>
    REQUIRED_EXPORTS.filter((exported) => typeof (value as Record<string, unknown> | null)?.[exported] !== 'function');
  if (typeof candidate !== 'object' || candidate === null) throw new Error(`${name} is not a module namespace`);
  if (missing(candidate).length === 0) return candidate as DoomLoopModule;
  const fallback = (candidate as { default?: unknown }).default;
  if (missing(fallback).length === 0) return fallback as DoomLoopModule;
  throw new Error(`${name} does not export ${missing(candidate).join(', ')} (the doom-loop API of @openrouter/agent 0.9.0)`);
}


/** An operation that ends in an error response. */
export class OpError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
    this.name = 'OpError';
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type Request = Record<string, unknown>;

/** A decoded input member; absent → undefined, or bad-request when required. */
function input(request: Request, name: string, required = true, bindings?: ReadonlyMap<string, object>): unknown {
  if (!hasOwn(request, name)) {
    if (required) throw new OpError('bad-request', `missing member "${name}"`);
    return undefined;
  }
  try {
    return decode(request[name], bindings);
  } catch (error) {
    if (error instanceof WireError) throw new OpError('bad-request', error.message);
    if (error instanceof RangeError) throw new OpError('bad-request', `member "${name}" is nested too deeply to decode`);
    throw error;
  }
}

function stringInput(request: Request, name: string): string {
  const value = input(request, name);
  if (typeof value !== 'string') throw new OpError('bad-request', `member "${name}" must be a string`);
  return value;
}

function numberInput(request: Request, name: string): number {
  const value = input(request, name);
  if (typeof value !== 'number') throw new OpError('bad-request', `member "${name}" must be a number`);
  return value;
}

function booleanInput(request: Request, name: string): boolean {
  const value = input(request, name);
  if (typeof value !== 'boolean') throw new OpError('bad-request', `member "${name}" must be a boolean`);
  return value;
}

function objectInput(request: Request, name: string): Record<string, unknown> {
  const value = input(request, name);
  if (!isObject(value)) throw new OpError('bad-request', `member "${name}" must be an object`);
  return value;
}

/** A JS TypeError thrown by the module: the SDK's answer to a null option (CFG-02), a bigint window (TXT-02), …. */
function isTypeError(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.name === 'TypeError');
}

/** Runs `compute`, turning any error it throws (but a TypeError) into a `canonicalization` error. */
async function canonical<T>(compute: () => T | Promise<T>): Promise<T> {
  try {
    return await compute();
  } catch (error) {
    if (error instanceof OpError || isTypeError(error)) throw error;
    throw new OpError('canonicalization', describe(error));
  }
}

interface CapturedWarning {
  args: unknown[];
}

/** A configuration warning as data (CFG-26): the text of the one-argument `console.warn` call, classified. */
function warningAsData(captured: CapturedWarning): Json {
  return classifyWarning(captured.args.map((arg) => (typeof arg === 'string' ? arg : String(arg))).join(' '));
}

type MonitorOp = (monitor: Monitor, request: Request) => Promise<Json>;
type FunctionOp = (request: Request) => Promise<Json>;

export class Dispatcher {
  private readonly mod: DoomLoopModule;
  private readonly options: DispatcherOptions;
  private readonly sessions = new Map<string, Monitor>();
  /** The objects each session holds by name (PROT-36); they go with the session. */
  private readonly held = new WeakMap<Monitor, Map<string, object>>();
  private nextSession = 1;
  private readonly monitorOps: ReadonlyMap<string, MonitorOp>;
  private readonly functionOps: ReadonlyMap<string, FunctionOp>;

  constructor(mod: DoomLoopModule, options: DispatcherOptions) {
    this.mod = mod;
    const claimed = options.engine === undefined ? options.features.filter((feature) => feature !== ENGINE_FEATURE) : options.features;
    this.options = { ...options, features: claimed };
    this.monitorOps = new Map<string, MonitorOp>([
      ['declareRound', (monitor, request) => this.declareRound(monitor, request)],
      ['recordToolCall', (monitor, request) => this.recordToolCall(monitor, request)],
      ['recordAssistantText', async (monitor, request) => {
        const verdict = await monitor.recordAssistantText(stringInput(request, 'text'));
        return verdict === undefined ? null : encode(verdict, { plain: true });
      }],
      ['resetTextStreak', async (monitor) => {
        monitor.resetTextStreak();
        return null;
      }],
      ['canEscalate', async (monitor) => monitor.canEscalate()],
      ['consumeEscalation', async (monitor) => {
        monitor.consumeEscalation();
        return null;
      }],
      ['getState', async (monitor) => encode(monitor.getState(), { plain: true })],
      ['restore', async (monitor, request) => {
        monitor.restore(input(request, 'state'));
        return null;
      }],
      ['bindObject', async (monitor, request) => {
        const held = this.bindings(monitor);
        const name = stringInput(request, 'name');
        const value = input(request, 'value', true, held);
        if (name === '' || typeof value !== 'object' || value === null) {
          throw new OpError('bad-request', 'bindObject needs a non-empty name and an array or object');
        }
        held.set(name, value);
        return null;
      }],
      ['setMember', async (monitor, request) => {
        setBoundMember(this.bindings(monitor), request);
        return null;
      }],
    ]);
    this.functionOps = new Map<string, FunctionOp>([
      ['resolveOption', (request) => this.resolveOption(request)],
      ['resolveLoopKey', async (request) => {
        const args = objectInput(request, 'args');
        const loopKey = input(request, 'loopKey', false);
        return encode(this.mod.resolveLoopKeyMaterial(loopKey, args));
      }],
      ['canonicalize', async (request) => {
        const value = input(request, 'value');
        return canonical(() => this.mod.canonicalizeKeyMaterial(value));
      }],
      ['fingerprintKeyMaterial', async (request) => {
        const keyMaterial = input(request, 'keyMaterial');
        return canonical(() => this.mod.fingerprintKeyMaterial(keyMaterial));
      }],
      ['fingerprintToolCall', async (request) => {
        const toolName = stringInput(request, 'toolName');
        const keyMaterial = input(request, 'keyMaterial');
        return canonical(() => this.mod.fingerprintToolCall(toolName, keyMaterial));
      }],
      ['detectTextRepetition', async (request) => {
        const text = stringInput(request, 'text');
        const options = input(request, 'options', false);
        const found = this.mod.detectTextRepetition(text, isObject(options) ? options : undefined);
        return found === null ? null : encode(found, { plain: true });
      }],
      ['resolveLadderAction', (request) => this.resolveLadderAction(request)],
    ]);
  }

  /** Answer one request (already parsed from JSON). Never throws. */
  async handle(raw: unknown): Promise<Response> {
    const given = isObject(raw) && hasOwn(raw, 'id') ? raw.id : undefined;
    const id: Json = typeof given === 'number' && Number.isSafeInteger(given) ? given : null;
    try {
      if (!isObject(raw)) throw new OpError('bad-request', 'a request must be a JSON object');
      if (id === null) throw new OpError('bad-request', 'member "id" must be an integer');
      const result = await this.dispatch(raw);
      return { id, result };
    } catch (error) {
      if (error instanceof OpError) return { id, error: { code: error.code, message: error.message } };
      if (isTypeError(error)) return { id, error: { code: 'type-error', message: describe(error) } };
      const kind = error instanceof Error ? error.name : typeof error;
      return { id, error: { code: 'internal', message: `${kind}: ${describe(error)}` } };
    }
  }

  private async dispatch(request: Request): Promise<Json> {
    const op = request.op;
    if (typeof op !== 'string') throw new OpError('bad-request', 'member "op" must be a string');
    if (op === 'hello') return this.hello(request);
    if (op === 'create') return this.create(request);
    const engine = this.options.features.includes(ENGINE_FEATURE) ? this.options.engine : undefined;
    if (op === 'runScenario' && engine !== undefined) return this.runScenario(engine, request);
    if (op === 'close') {
      const name = this.sessionName(request);
      this.sessions.delete(name);
      return null;
    }
    const monitorOp = this.monitorOps.get(op);
    if (monitorOp !== undefined) {
      const monitor = this.sessions.get(this.sessionName(request));
      if (monitor === undefined) throw new OpError('unknown-session', `no session "${String(request.session)}"`);
      return this.withWarnings(() => monitorOp(monitor, request));
    }
    const functionOp = this.functionOps.get(op);
    if (functionOp !== undefined) return this.withWarnings(() => functionOp(request));
    throw new OpError('unknown-op', `unknown operation "${op}"`);
  }

  private hello(request: Request): Json {
    const protocol = request.protocol;
    if (protocol !== PROTOCOL_VERSION) {
      throw new OpError(
        'unsupported-protocol',
        `this harness speaks protocol ${PROTOCOL_VERSION}, not ${JSON.stringify(protocol) ?? 'undefined'}`,
      );
    }
    const { name, language, version } = this.options.implementation;
    return {
      protocol: PROTOCOL_VERSION,
      implementation: { name, language, version },
      features: [...this.options.features],
    };
  }

  private bindings(monitor: Monitor): Map<string, object> {
    let held = this.held.get(monitor);
    if (held === undefined) {
      held = new Map<string, object>();
      this.held.set(monitor, held);
    }
    return held;
  }

  /**
   * The engine level (protocol 1.2): run a plain-JSON scenario (spec §15.1.4)
   * through the port's run loop; a malformed one is `bad-scenario` (ENG-23).
   */
  private async runScenario(engine: ScenarioRunner, request: Request): Promise<Json> {
    if (!hasOwn(request, 'scenario')) throw new OpError('bad-request', 'missing member "scenario"');
    try {
      const transcript = await this.withWarnings(async () => engine(request.scenario));
      // PROT-31: the result is the transcript as JSON.stringify writes it (Infinity is null, -0 is 0),
      // whoever serializes the response afterwards.
      return JSON.parse(JSON.stringify(transcript)) as Json;
    } catch (error) {
      if (error instanceof ScenarioError) throw new OpError('bad-scenario', error.message);
      throw error;
    }
  }

  private sessionName(request: Request): string {
    const session = request.session;
    if (typeof session !== 'string') throw new OpError('bad-request', 'member "session" must be a string');
    if (!this.sessions.has(session)) throw new OpError('unknown-session', `no session "${session}"`);
    return session;
  }

  private async create(request: Request): Promise<Json> {
    const option = input(request, 'option');
    const hasState = hasOwn(request, 'state');
    const state = input(request, 'state', false);
    const monitor = await this.withWarnings(() => {
      const config = this.mod.resolveDoomLoopOption(option as Parameters<DoomLoopModule['resolveDoomLoopOption']>[0]);
      if (config === null) throw new OpError('bad-request', 'the option turns detection off: there is no monitor');
      return hasState ? new this.mod.DoomLoopMonitor(config, state) : new this.mod.DoomLoopMonitor(config);
    });
    const name = `s${this.nextSession}`;
    this.nextSession += 1;
    this.sessions.set(name, monitor);
    return { session: name };
  }

  /** Run `body` with console.warn captured; forward what it says unless `keep`. */
  private async withWarnings<T>(body: () => T | Promise<T>, keep?: CapturedWarning[]): Promise<T> {
    const original = console.warn;
    const sink: CapturedWarning[] = keep ?? [];
    console.warn = (...args: unknown[]): void => {
      sink.push({ args });
    };
    try {
      return await body();
    } finally {
      console.warn = original;
      if (keep === undefined) this.forward(sink);
    }
  }

  private forward(warnings: readonly CapturedWarning[]): void {
    const log = this.options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    for (const warning of warnings) {
      log(`warn: ${warning.args.map((arg) => (typeof arg === 'string' ? arg : safeJson(arg))).join(' ')}`);
    }
  }

  private async resolveOption(request: Request): Promise<Json> {
    const option = input(request, 'option', false);
    const warnings: CapturedWarning[] = [];
    const config = await this.withWarnings(
      () => this.mod.resolveDoomLoopOption(option as Parameters<DoomLoopModule['resolveDoomLoopOption']>[0]),
      warnings,
    );
    return {
      config: config === null ? null : encode(config),
      warnings: warnings.map(warningAsData),
    };
  }

  private async declareRound(monitor: Monitor, request: Request): Promise<Json> {
    const calls = input(request, 'calls', true, this.bindings(monitor));
    if (!Array.isArray(calls)) throw new OpError('bad-request', 'member "calls" must be an array');
    const parsed: { toolName: string; keyMaterial: unknown }[] = [];
    for (const call of calls as unknown[]) {
      if (!isObject(call) || typeof call.toolName !== 'string' || !hasOwn(call, 'toolName')) {
        throw new OpError('bad-request', 'each call needs a string toolName');
      }
      parsed.push({ toolName: call.toolName, keyMaterial: hasOwn(call, 'keyMaterial') ? call.keyMaterial : undefined });
    }
    const round = numberInput(request, 'round');
    await monitor.declareRound(round, parsed);
    return null;
  }

  private async recordToolCall(monitor: Monitor, request: Request): Promise<Json> {
    // The decoded options object goes to the module as it is, so a member
    // holding undefined reaches it (MON-14); only the members' types are checked.
    const options = input(request, 'options', false);
    if (isObject(options)) {
      const { allowBlock, detector } = options;
      if (allowBlock !== undefined && typeof allowBlock !== 'boolean') {
        throw new OpError('bad-request', 'options.allowBlock must be a boolean');
      }
      if (detector !== undefined && detector !== 'tool-fingerprint' && detector !== 'server-tool-fingerprint') {
        throw new OpError('bad-request', 'options.detector must be tool-fingerprint or server-tool-fingerprint');
      }
    }
    const toolName = stringInput(request, 'toolName');
    const keyMaterial = input(request, 'keyMaterial', true, this.bindings(monitor));
    const round = numberInput(request, 'round');
    const record = await canonical(() =>
      isObject(options)
        ? monitor.recordToolCall(toolName, keyMaterial, round, options as RecordOptions)
        : monitor.recordToolCall(toolName, keyMaterial, round),
    );
    return encode(record, { plain: true });
  }

  private async resolveLadderAction(request: Request): Promise<Json> {
    const given = objectInput(request, 'ladder');
    const ladder = { observe: 0, steer: 0, escalate: 0, block: 0, stop: 0 } as Record<string, number | false>;
    for (const rung of ['observe', 'steer', 'escalate', 'block', 'stop']) {
      const value = hasOwn(given, rung) ? given[rung] : undefined;
      if (value !== false && (typeof value !== 'number' || !Number.isInteger(value))) {
        throw new OpError('bad-request', `ladder.${rung} must be an integer or false`);
      }
      ladder[rung] = value;
    }
    const streak = numberInput(request, 'streak');
    const allowBlock = booleanInput(request, 'allowBlock');
    const allowEscalate = input(request, 'allowEscalate', false);
    const resolved = ladder as unknown as Parameters<DoomLoopModule['resolveLadderAction']>[0];
    const action =
      allowEscalate === undefined
        ? this.mod.resolveLadderAction(resolved, streak, { allowBlock })
        : this.mod.resolveLadderAction(resolved, streak, { allowBlock, allowEscalate: Boolean(allowEscalate) });
    return action ?? null;
  }
}

/**
 * `setMember`: the JS assignment `bound[path[0]]…[path[n-1]] = value` (PROT-38).
 * A string step names an object member, a whole number an array index; the
 * last step may add a member or the index just past the end.
 */
function setBoundMember(held: ReadonlyMap<string, object>, request: Request): void {
  const name = stringInput(request, 'name');
  const path = input(request, 'path');
  let target: unknown = held.get(name);
  if (target === undefined || !Array.isArray(path) || path.length === 0) {
    throw new OpError('bad-request', `setMember needs a bound name and a non-empty path ("${name}")`);
  }
  for (const [index, step] of (path as unknown[]).entries()) {
    const last = index === path.length - 1;
    const inArray = Array.isArray(target) && typeof step === 'number' && Number.isInteger(step) && step >= 0
      && step < (target as unknown[]).length + (last ? 1 : 0);
    const inObject = isObject(target) && typeof step === 'string' && (last || hasOwn(target, step));
    if (!inArray && !inObject) throw new OpError('bad-request', `setMember path step ${safeJson(step)} names no member`);
    if (last) {
      const value = input(request, 'value', true, held);
      if (inArray) (target as unknown[])[step as number] = value;
      else setMember(target as Record<string, unknown>, step as string, value);
      return;
    }
    target = (target as Record<string | number, unknown>)[step as string | number];
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Compare two JSON values per the design notes: numbers as doubles, objects
 * by member set, arrays in order, strings exactly. Returns the JSON path of
 * the first difference, or undefined when equal.
 */
export function firstDifference(actual: unknown, expected: unknown, path = '$'): string | undefined {
  if (typeof expected === 'number' || typeof actual === 'number') {
    return typeof actual === 'number' && typeof expected === 'number' && (actual === expected || (Number.isNaN(actual) && Number.isNaN(expected)))
      ? undefined
      : path;
  }
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return path;
    if (expected.length !== actual.length) return `${path}.length`;
    for (let index = 0; index < expected.length; index += 1) {
      const difference = firstDifference(actual[index], expected[index], `${path}[${index}]`);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (isObject(expected) || isObject(actual)) {
    if (!isObject(expected) || !isObject(actual)) return path;
    const names = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const name of [...names].sort()) {
      const childPath = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
      if (!hasOwn(expected, name) || !hasOwn(actual, name)) return childPath;
      const difference = firstDifference(actual[name], expected[name], childPath);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  return actual === expected ? undefined : path;
}
