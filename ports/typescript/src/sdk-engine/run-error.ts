/**
 * How a run of the SDK failed, as the transcript's `end.error` (ENG-20, ENG-141).
 *
 * The SDK throws plain `Error`s; their kind is read from the start of the
 * error's text by the kit's one table, `sdk-error-kinds.json` (the Python
 * replay reads the same file; the build copies it next to this module). A
 * row matches when the error's message, or its `Name: message` (a `TypeError`
 * reads `TypeError: …`), starts with the row's text. An error no row matches
 * is `sdk-error`: a kind ENG-141 does not have, so that it shows as a
 * difference. The message is kept: it is informative (ENG-141).
 */

import { readFileSync } from 'node:fs';

import { isObject } from '../engine/json.js';

import { ScriptExhausted } from './transport.js';

/** One row of the table: an error whose text starts with `start` is of kind `kind`. */
export interface ErrorKindRow {
  start: string;
  kind: string;
}

/** `end.error` of a failed run. */
export interface SdkRunError {
  kind: string;
  dispatch?: number;
  message?: string;
}

/** Where the build puts the table: beside this module. */
export const ERROR_KINDS_FILE = new URL('./sdk-error-kinds.json', import.meta.url);

/** Read and check the table (`kinds`: rows of `{start, kind}` strings). */
export function parseErrorKinds(text: string, where: string): ErrorKindRow[] {
  const data = JSON.parse(text) as unknown;
  const rows = isObject(data) ? data.kinds : undefined;
  if (!Array.isArray(rows) || !rows.every((row) => isObject(row) && typeof row.start === 'string' && typeof row.kind === 'string')) {
    throw new Error(`${where}: expected {"kinds": [{"start": string, "kind": string}, ...]}`);
  }
  return rows as ErrorKindRow[];
}

let table: ErrorKindRow[] | undefined;

/** The kit's table of error kinds (read once). */
export function errorKinds(): ErrorKindRow[] {
  if (table === undefined) {
    let text: string;
    try {
      text = readFileSync(ERROR_KINDS_FILE, 'utf8');
    } catch (error) {
      throw new Error(`the table of ENG-141 error kinds is missing (${(error as Error).message}); rebuild the package`);
    }
    table = parseErrorKinds(text, ERROR_KINDS_FILE.pathname);
  }
  return table;
}

/** The errors `failure` carries, itself first, then its `cause` chain. */
function causes(failure: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let error = failure; error !== undefined && error !== null && !chain.includes(error); error = (error as { cause?: unknown }).cause) {
    chain.push(error);
  }
  return chain;
}

/** The kind of a failure the SDK threw, by `rows`. */
export function kindOf(failure: unknown, rows: readonly ErrorKindRow[]): string {
  const message = failure instanceof Error ? failure.message : String(failure);
  const texts = failure instanceof Error ? [message, `${failure.name}: ${message}`] : [message];
  return rows.find((row) => texts.some((text) => text.startsWith(row.start)))?.kind ?? 'sdk-error';
}

/** `end.error` for a run that failed with `failure`. */
export function runError(failure: unknown, rows: readonly ErrorKindRow[] = errorKinds()): SdkRunError {
  const exhausted = causes(failure).find((error): error is ScriptExhausted => error instanceof ScriptExhausted);
  if (exhausted !== undefined) return { kind: 'script-exhausted', dispatch: exhausted.dispatch };
  return { kind: kindOf(failure, rows), message: failure instanceof Error ? failure.message : String(failure) };
}
