/**
 * The bounds of a protocol line (PROT-45, PROT-46), the same in every harness
 * (jsvalue/jsjson.py and conformance/protocol/server.py, ports/go/harness).
 *
 * A request line holds at most {@link MAX_LINE_BYTES} bytes and nests its
 * arrays and objects at most {@link MAX_DEPTH} levels deep (the request object
 * is the first level); a line past either bound is answered `bad-request` with
 * `id` null before it is parsed. A response is never written deeper than
 * {@link MAX_DEPTH} levels: such a result is answered `internal`. Within the
 * bounds a line is answered whatever the stack holds -- on a fresh start as
 * after warm-up -- so nothing here recurses over a value's depth.
 */

import type { Json } from './engine/json.js';

/** The longest request line, its line feed aside: 64 MiB (PROT-45). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The deepest nesting of arrays and objects in a request or response line (PROT-45, PROT-46). */
export const MAX_DEPTH = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/**
 * Whether JSON text nests arrays and objects deeper than `limit` (brackets
 * inside strings aside); one pass, stopping as soon as it knows.
 */
export function deeperThan(text: string, limit: number = MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (OPENERS.has(code)) {
      depth += 1;
      if (depth > limit) return true;
    } else if (CLOSERS.has(code)) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * `JSON.stringify` of a JSON value; a value too deep for the engine's stack
 * (a cold start overflows a few thousand levels down) is written without
 * recursion, to the same text.
 */
export function stringifyJson(value: Json): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyIteratively(value);
  }
}

type Pending = { close: string } | { value: Json; comma: boolean; name?: string };

function stringifyIteratively(value: Json): string {
  const parts: string[] = [];
  const pending: Pending[] = [{ value, comma: false }];
  while (pending.length > 0) {
    const next = pending.pop() as Pending;
    if ('close' in next) {
      parts.push(next.close);
      continue;
    }
    if (next.comma) parts.push(',');
    if (next.name !== undefined) parts.push(`${JSON.stringify(next.name)}:`);
    const item = next.value;
    if (Array.isArray(item)) {
      parts.push('[');
      pending.push({ close: ']' });
      for (let index = item.length - 1; index >= 0; index -= 1) {
        pending.push({ value: item[index] ?? null, comma: index > 0 });
      }
    } else if (typeof item === 'object' && item !== null) {
      parts.push('{');
      pending.push({ close: '}' });
      const names = Object.keys(item).filter((name) => item[name] !== undefined);
      for (let index = names.length - 1; index >= 0; index -= 1) {
        const name = names[index] as string;
        pending.push({ value: item[name] as Json, comma: index > 0, name });
      }
    } else {
      parts.push(JSON.stringify(item) ?? 'null');
    }
  }
  return parts.join('');
}
