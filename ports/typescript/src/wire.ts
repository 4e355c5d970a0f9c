/**
 * The tagged-JSON encoding of JS-only values used by vector files and the
 * harness protocol (design notes "Value encoding"; jsvalue/wire.py).
 *
 * `decode` turns tagged JSON (as `JSON.parse` returns it) into real JS values;
 * `encode` turns JS values back into tagged JSON. Objects are always built
 * with own members (`Object.defineProperty`), so a member named `__proto__`
 * stays an ordinary member in both directions.
 */

import { hasOwn, isObject, type Json } from './engine/json.js';

export const TAG = '$js';

/** The controlled feature vocabulary (vectorset/vocabulary.py FEATURES). */
export const FEATURES: readonly string[] = [
  'undefined',
  'non-finite-numbers',
  'negative-zero',
  'bigint',
  'function-values',
  'loop-key-functions',
  'circular-references',
  'deep-nesting',
  'lone-surrogates',
  'large-integers',
  'json-own-members',
  'js-inherited-members',
  'js-coercion',
  'shared-objects',
  'object-identity',
  'engine',
];

/**
 * The features a harness over a JS module declares: the whole vocabulary but
 * `json-own-members`, since a JS module (this port, like the SDK) tests
 * field-list presence with `in` and so declares `js-inherited-members`
 * instead; a harness declares at most one of the two (KEY-09). `engine` is not
 * among them: a harness declares it only with a run loop of the port's own
 * (`serve(module, { engine })`).
 */
export const JS_MODULE_FEATURES: readonly string[] = FEATURES.filter(
  (feature) => feature !== 'json-own-members' && feature !== 'engine',
);

/** A tagged value that does not follow the encoding. */
export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}


export function setMember(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** Functions built by `decode`, mapped to the tagged form they came from. */
const functionTags = new WeakMap<object, Json>();

const NUMBERS: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
  '-0': -0,
};

/**
 * The state of one `decode` call: the enclosing containers (`ref`), the
 * complete anchors and the anchors still being decoded (PROT-33, PROT-34),
 * and the session's bound objects (PROT-37), undefined outside a session.
 */
interface Context {
  stack: object[];
  anchors: Map<string, object>;
  open: Set<string>;
  bindings: ReadonlyMap<string, object> | undefined;
}

/**
 * A tagged value inside this many enclosing arrays and objects is undecodable
 * (PROT-41): an `object` tag's literal counts as one object, other tags do not
 * count. Plain JSON that deep is decoded as it is.
 */
export const DECODE_DEPTH_LIMIT = 100;

/** The deepest `nest` tag: past it the tag is undecodable (PROT-42). */
export const NEST_DEPTH_LIMIT = 100_000;

/** Tagged JSON → JS values. Throws {@link WireError}. */
export function decode(value: unknown, bindings?: ReadonlyMap<string, object>): unknown {
  return decodeValue(value, { stack: [], anchors: new Map(), open: new Set(), bindings });
}

function decodeValue(value: unknown, context: Context): unknown {
  if (context.stack.length >= DECODE_DEPTH_LIMIT && typeof value === 'object' && value !== null) {
    return undecoded(value);
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    context.stack.push(items);
    for (const item of value as unknown[]) items.push(decodeValue(item, context));
    context.stack.pop();
    return items;
  }
  if (!isObject(value)) return value;
  if (!hasOwn(value, TAG)) return decodeMembers(value, context);
  return decodeTag(value, context);
}

/**
 * Plain JSON at the decode limit, kept as it is (PROT-27); a tag there is
 * undecodable (PROT-41). Walked without recursion: the value may be nested
 * thousands of levels deep, and a cold start's stack holds fewer.
 */
function undecoded(value: object): unknown {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      for (const inner of item as unknown[]) pending.push(inner);
    } else if (isObject(item)) {
      if (hasOwn(item, TAG)) {
        throw new WireError(`a tagged value inside ${DECODE_DEPTH_LIMIT} or more containers (PROT-41)`);
      }
      for (const name of Object.keys(item)) pending.push(item[name]);
    }
  }
  return value;
}

function decodeMembers(value: Record<string, unknown>, context: Context): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  context.stack.push(members);
  for (const name of Object.keys(value)) setMember(members, name, decodeValue(value[name], context));
  context.stack.pop();
  return members;
}

function member(value: Record<string, unknown>, name: string): unknown {
  return hasOwn(value, name) ? value[name] : undefined;
}

function label(value: Record<string, unknown>): string {
  const name = member(value, 'name');
  if (typeof name !== 'string' || name === '') {
    throw new WireError(`${String(value[TAG])} name=${safeText(name)} is not a non-empty string`);
  }
  return name;
}

/** `anchor`: an array or object later `alias` tags of the same value name (PROT-33). */
function decodeAnchor(value: Record<string, unknown>, context: Context): object {
  const name = label(value);
  if (context.anchors.has(name) || context.open.has(name)) throw new WireError(`anchor "${name}" is defined twice`);
  context.open.add(name);
  const result = decodeValue(member(value, 'value'), context);
  context.open.delete(name);
  if (typeof result !== 'object' || result === null) throw new WireError(`anchor "${name}" holds no array or object`);
  context.anchors.set(name, result);
  return result;
}

/** `alias`: the very object an earlier, complete anchor decoded to (PROT-33, PROT-34). */
function decodeAlias(value: Record<string, unknown>, context: Context): object {
  const name = label(value);
  if (context.open.has(name)) throw new WireError(`alias "${name}" inside its own anchor: a cycle is written ref`);
  const found = context.anchors.get(name);
  if (found === undefined) throw new WireError(`alias "${name}" names no earlier anchor`);
  return found;
}

/** `bound`: the object the session bound to this name with bindObject (PROT-37). */
function decodeBound(value: Record<string, unknown>, context: Context): object {
  const name = label(value);
  if (context.bindings === undefined) throw new WireError(`bound "${name}" outside a session operation`);
  const found = context.bindings.get(name);
  if (found === undefined) throw new WireError(`bound "${name}" names no object bound in this session`);
  return found;
}

function decodeTag(value: Record<string, unknown>, context: Context): unknown {
  const kind = value[TAG];
  const inner = member(value, 'value');
  const stack = context.stack;
  switch (kind) {
    case 'undefined':
      return undefined;
    case 'number':
      if (typeof inner === 'string' && hasOwn(NUMBERS, inner)) return NUMBERS[inner];
      break;
    case 'bigint':
      if (typeof inner === 'string' && /^-?[0-9]+$/.test(inner)) return BigInt(inner);
      throw new WireError(`bad bigint ${JSON.stringify(inner)}`);
    case 'symbol':
      return Symbol('wire');
    case 'function': {
      if (hasOwn(value, 'returns')) {
        const returns = decodeValue(value.returns, context);
        const fn = (): unknown => returns;
        functionTags.set(fn, value as Json); // round-trips exactly as received
        return fn;
      }
      const throws = member(value, 'throws');
      if (typeof throws === 'string') {
        const fn = (): unknown => {
          throw new Error(throws);
        };
        functionTags.set(fn, { [TAG]: 'function', throws });
        return fn;
      }
      return function wireFunction(): void {};
    }
    case 'ref': {
      const up = member(value, 'up');
      if (typeof up !== 'number' || !Number.isInteger(up) || up < 1 || up > stack.length) {
        throw new WireError(`ref up=${JSON.stringify(up)} names no enclosing container`);
      }
      return stack[stack.length - up];
    }
    case 'nest': {
      const depth = member(value, 'depth');
      if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0 || depth > NEST_DEPTH_LIMIT) {
        throw new WireError(`nest depth=${JSON.stringify(depth)} is not an integer from 0 to ${String(NEST_DEPTH_LIMIT)}`);
      }
      let result = decodeValue(inner, context);
      for (let level = 0; level < depth; level += 1) result = [result];
      return result;
    }
    case 'anchor':
      return decodeAnchor(value, context);
    case 'alias':
      return decodeAlias(value, context);
    case 'bound':
      return decodeBound(value, context);
    case 'object':
      if (isObject(inner)) return decodeMembers(inner, context);
      break;
    default:
      break;
  }
  throw new WireError(`unknown or malformed tagged value ${safeText(value)}`);
}

function safeText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export interface EncodeOptions {
  /**
   * Plain-JSON mode for monitor results: `-0` is written `0` and members
   * holding `undefined` are left out, as `JSON.stringify` would.
   */
  plain?: boolean;
}

/**
 * JS values → tagged JSON (cycles become `ref`). Written without recursion: an
 * echoed value may be nested thousands of levels deep (PROT-27, PROT-46).
 */
export function encode(value: unknown, options: EncodeOptions = {}): Json {
  const plain = options.plain === true;
  const root: { value: Json } = { value: null };
  const frames: Frame[] = [];
  const open = new Map<object, number>(); // a container being encoded -> its frame's index
  const place = (item: unknown, into: Frame | null, name: string | number): void => {
    const leaf = encodeLeaf(item, plain);
    const set = (json: Json): void => {
      if (into === null) root.value = json;
      else if (Array.isArray(into.target)) into.target[name as number] = json;
      else setMember(into.target, name as string, json);
    };
    if (leaf !== CONTAINER) {
      set(leaf);
      return;
    }
    const container = item as object;
    const index = open.get(container);
    if (index !== undefined) {
      set({ [TAG]: 'ref', up: frames.length - index });
      return;
    }
    const source = container as Record<string, unknown>;
    const isArray = Array.isArray(container);
    const target: Json[] | { [name: string]: Json } = isArray ? new Array<Json>((container as unknown[]).length) : {};
    set(target);
    open.set(container, frames.length);
    frames.push({ container, source, target, names: isArray ? null : Object.keys(source), next: 0, set });
  };
  place(value, null, 0);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1] as Frame;
    const count = frame.names === null ? (frame.source as unknown as unknown[]).length : frame.names.length;
    if (frame.next < count) {
      const at = frame.next;
      frame.next += 1;
      if (frame.names === null) {
        if (hasOwn(frame.source, String(at))) place((frame.source as unknown as unknown[])[at], frame, at);
        continue;
      }
      const name = frame.names[at] as string;
      const item = frame.source[name];
      if (!(plain && item === undefined)) place(item, frame, name);
      continue;
    }
    frames.pop();
    open.delete(frame.container);
    if (!Array.isArray(frame.target) && hasOwn(frame.target, TAG)) {
      frame.set({ [TAG]: 'object', value: frame.target });
    }
  }
  return root.value;
}

/** A container being encoded: its source, the JSON it fills, how far it got, where it goes. */
interface Frame {
  container: object;
  source: Record<string, unknown>;
  target: Json[] | { [name: string]: Json };
  /** The member names of an object (null: an array). */
  names: string[] | null;
  next: number;
  /** Puts this container's JSON in its place (again, when an `object` tag must wrap it). */
  set: (json: Json) => void;
}

const CONTAINER = Symbol('container');

/** The tagged JSON of a value that is no array or object; {@link CONTAINER} for one that is. */
function encodeLeaf(value: unknown, plain: boolean): Json | typeof CONTAINER {
  switch (typeof value) {
    case 'undefined':
      return { [TAG]: 'undefined' };
    case 'number':
      if (Number.isNaN(value)) return { [TAG]: 'number', value: 'NaN' };
      if (value === Number.POSITIVE_INFINITY) return { [TAG]: 'number', value: 'Infinity' };
      if (value === Number.NEGATIVE_INFINITY) return { [TAG]: 'number', value: '-Infinity' };
      if (Object.is(value, -0)) return plain ? 0 : { [TAG]: 'number', value: '-0' };
      return value;
    case 'bigint':
      return { [TAG]: 'bigint', value: value.toString() };
    case 'symbol':
      return { [TAG]: 'symbol' };
    case 'function':
      return functionTags.get(value) ?? { [TAG]: 'function' };
    case 'string':
    case 'boolean':
      return value;
    default:
      return value === null ? null : CONTAINER;
  }
}
