/**
 * Doom-loop monitor — TypeScript port of the doomloop-kit specification
 * (spec/01-scope.md … spec/14-open-questions.md).
 *
 * The public surface (names, signatures, async-ness, constants) is the one of
 * the `@openrouter/agent` 0.9.0 module `doom-loop`; the behaviour follows the
 * specification. Statement ids (CFG-xx, MON-xx, …) in comments point at the
 * spec paragraph a piece of code implements.
 *
 * Internals worth knowing:
 * - the module behaves as the SDK does at every edge of its input domain
 *   (spec §10 of the brief, issue 11): options are read with plain JS
 *   property access and JS operators, so null members, coercion of
 *   non-number options, slice semantics and double-precision counters come
 *   out exactly as in the SDK, and a `null` option, `text` or `escalation`
 *   throws the same `TypeError`;
 * - field-list presence is JS `in` (inherited names included), and the key
 *   material built from a field list has a null prototype (KEY-09);
 * - every text a caller can observe (warnings, errors, logs, verdict
 *   messages) is the SDK's, byte for byte, and `console.warn` is called with
 *   the SDK's arguments;
 * - every map keyed by a caller-chosen string (tool names, fingerprints from a
 *   restored blob) is a `Map`, so names such as `__proto__` are ordinary keys
 *   (MON-02); objects handed back to callers are built with
 *   `Object.defineProperty`, so such names become ordinary own members;
 * - a monitor memoises call fingerprints per key-material object and tool
 *   name for its lifetime (MON-08);
 * - recording the W calls of one declared round costs O(W): hash sets for
 *   membership, the prior-round comparison cached per tool and round,
 *   per-call counts updated in place (MON-55, MON-56).
 */

import * as nodeCrypto from 'node:crypto';

// ---------------------------------------------------------------------------
// Public types (same shapes as the SDK's declarations)
// ---------------------------------------------------------------------------

/** Escalation actions, weakest to strongest (LAD-01). */
export type DoomLoopAction = 'observe' | 'steer' | 'escalate' | 'block' | 'stop';

/** Which detector produced a verdict. */
export type DoomLoopDetectorKind =
  | 'tool-fingerprint'
  | 'server-tool-fingerprint'
  | 'text-repetition'
  | 'text-streak';

/** A doom-loop detection event (MON-37, MON-44, MON-47). */
export interface DoomLoopVerdict {
  detector: DoomLoopDetectorKind;
  action: DoomLoopAction;
  streak: number;
  /** Deterministic fingerprint of the repeated unit (call identity or text). */
  fingerprint: string;
  /** Present for fingerprint verdicts. */
  toolName?: string;
  /** Verbatim message for block outputs and steer messages (§11). */
  message: string;
}

/** Result of recording one tool call (MON-36). */
export interface DoomLoopCallRecord {
  fingerprint: string;
  streak: number;
  duplicateInRound: boolean;
  verdict?: DoomLoopVerdict;
}

/** Streak thresholds per action; `false` disables a rung (§3.2). */
export interface DoomLoopLadder {
  observe?: number | false;
  steer?: number | false;
  escalate?: number | false;
  block?: number | false;
  stop?: number | false;
}

/** Recovery configuration for the `escalate` rung (§3.4). */
export interface DoomLoopEscalationConfig {
  model?: string;
  advisor?: boolean | Record<string, unknown>;
  maxEscalations?: number;
}

/** Options for the text detectors (§3.3). */
export interface DoomLoopTextOptions {
  enabled?: boolean;
  maxPeriodTokens?: number;
  minRepeats?: number;
  minCoveredTokens?: number;
  maxWindowTokens?: number;
}

/** Configuration for doom-loop detection. */
export interface DoomLoopConfig {
  ladder?: DoomLoopLadder;
  text?: boolean | DoomLoopTextOptions;
  escalation?: DoomLoopEscalationConfig;
}

/** The `doomLoop` option: `true` for defaults, or a config object. */
export type DoomLoopOption = boolean | DoomLoopConfig;

/** Consecutive-repetition counter for one identity (a tool, or step text). */
export interface DoomLoopStreak {
  fingerprint: string;
  streak: number;
  /** The last round's fingerprint set, when it had more than one member (STATE-04). */
  roundFingerprints?: readonly string[];
  /** Per-call streaks of the last round, when they say more than the round does. */
  callStreaks?: Record<string, number>;
}

/** Plain-JSON detector state (§10). */
export interface DoomLoopSerializedState {
  tools: Record<string, DoomLoopStreak>;
  text?: DoomLoopStreak;
  stopVerdict?: DoomLoopVerdict;
  pendingSteer?: string[];
  escalationsUsed?: number;
}

/** The result of resolving a tool's `loopKey` declaration (KEY-01). */
export type LoopKeyResolution =
  | { kind: 'exempt' }
  | { kind: 'key'; keyMaterial: unknown }
  | { kind: 'fallback'; keyMaterial: unknown; warning: string };

/** Escalation config with the budget resolved. */
export interface ResolvedEscalationConfig {
  model?: string;
  advisor?: boolean | Record<string, unknown>;
  maxEscalations: number;
}

/** Fully-resolved config used by the monitor (CFG-06). */
export interface ResolvedDoomLoopConfig {
  ladder: Required<DoomLoopLadder>;
  text: Required<DoomLoopTextOptions>;
  escalation: ResolvedEscalationConfig | null;
}

/** A detected repeating token block at the tail of a response (TXT-14). */
export interface TextRepetitionResult {
  /** Consecutive repeats of the block (feeds the ladder as the streak). */
  repeats: number;
  /** Block length in whitespace-delimited tokens. */
  periodTokens: number;
  /** repeats × periodTokens. */
  coveredTokens: number;
  /** The repeating block itself, tokens joined by one space. */
  sample: string;
}

// ---------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------

/** Default ladder (CFG-12): observe 2, block 3, stop 6; steer and escalate off. */
export const DEFAULT_DOOM_LOOP_LADDER: Readonly<Required<DoomLoopLadder>> = Object.freeze({
  observe: 2,
  steer: false,
  escalate: false,
  block: 3,
  stop: 6,
});

/** Default escalation budget (CFG-24). */
export const DEFAULT_MAX_ESCALATIONS = 2;

/** Deepest accepted nesting; the root is depth 0 (CAN-15, CAN-16). */
export const MAX_CANONICALIZE_DEPTH = 64;

const DEFAULT_TEXT_OPTIONS: Readonly<Required<DoomLoopTextOptions>> = Object.freeze({
  enabled: true,
  maxPeriodTokens: 16,
  minRepeats: 4,
  minCoveredTokens: 12,
  maxWindowTokens: 400,
});

/** Code units of text examined per window token (TXT-02). */
const CODE_UNITS_PER_WINDOW_TOKEN = 64;

/** A restored tool streak is clamped into [1, MAX_RESTORED_STREAK] (STATE-21). */
const MAX_RESTORED_STREAK = 1_000_000;

type Rung = keyof Required<DoomLoopLadder>;

/** Rungs weakest to strongest (LAD-01). */
const RUNGS: readonly Rung[] = ['observe', 'steer', 'escalate', 'block', 'stop'];

const ACTION_STRENGTH: Readonly<Record<DoomLoopAction, number>> = {
  observe: 0,
  steer: 1,
  escalate: 2,
  block: 3,
  stop: 4,
};

// ---------------------------------------------------------------------------
// Observable texts (brief §9): the SDK's, byte for byte (CFG-29 … CFG-32,
// KEY-07 … KEY-12, CAN-05, CAN-14, CAN-16, CAN-19, MON-08, STATE-13)
// ---------------------------------------------------------------------------

const WARNING_BLOCK_WITHOUT_STOP =
  '[DoomLoop] ladder has block enabled with stop disabled: a model that keeps re-issuing a blocked call loops indefinitely (each blocked round still costs a model request). Bound the run with stopWhen, or enable the stop rung.';

function deadRungWarning(rung: Rung, threshold: number, stronger: Rung, strongerThreshold: number): string {
  return `[DoomLoop] ladder rung "${rung}" (${String(threshold)}) can never fire: stronger rung "${stronger}" (${String(strongerThreshold)}) already wins at that streak (strongest crossed rung is applied).`;
}

const WARNING_ESCALATION_UNUSED =
  '[DoomLoop] escalation config provided but the escalate ladder rung is disabled; set ladder.escalate to a streak threshold for recovery to trigger.';

const WARNING_ESCALATION_UNCONFIGURED =
  '[DoomLoop] ladder.escalate is enabled but no escalation config (model/advisor) was provided; the rung is skipped and verdicts fall through to weaker rungs.';

const LOOP_KEY_EMPTY_LIST =
  'loopKey is an empty field list, which would give every call to this tool the same identity; falling back to full arguments. Use `false` to exempt the tool.';

function loopKeyFieldsAbsent(names: readonly string[]): string {
  return `loopKey fields [${names.join(', ')}] are all absent from the arguments, which would give every call the same identity; falling back to full arguments.`;
}

function loopKeyThrew(reason: string): string {
  return `loopKey threw (${reason}); falling back to full arguments`;
}

const LOOP_KEY_RETURNED_UNDEFINED =
  'loopKey returned undefined; falling back to full arguments. Return null to exempt a call, or a value to use as identity.';

function loopKeyUnsupported(type: string): string {
  return `loopKey has unsupported shape (${type}); falling back to full arguments`;
}

const CANONICAL_TOO_DEEP = `Cannot canonicalize key material nested deeper than ${String(MAX_CANONICALIZE_DEPTH)} levels for doom-loop fingerprinting`;
const CANONICAL_NON_FINITE =
  'Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: RFC 8785 has no representation';
const CANONICAL_BIGINT =
  'Cannot canonicalize bigint for doom-loop fingerprinting: RFC 8785 has no representation (convert to string or number in loopKey)';
const CANONICAL_CIRCULAR = 'Cannot canonicalize circular key material for doom-loop fingerprinting';

function declareRoundLog(toolName: string, round: number): string {
  return `[DoomLoop] could not fingerprint a "${toolName}" call while declaring round ${String(round)}; excluding it from the round set:`;
}

const RESTORE_LOG = '[DoomLoop] Ignoring invalid persisted doom-loop state';

// ---------------------------------------------------------------------------
// Small helpers over JS values
// ---------------------------------------------------------------------------

/**
 * `target[name]` with JS property access: inherited names resolve, a
 * primitive is boxed, and `null`/`undefined` throw the JS `TypeError`
 * (CFG-02): the SDK reads its options exactly this way.
 */
function read(target: unknown, name: string): unknown {
  return (target as Record<string, unknown>)[name];
}

/** A non-null, non-array object (the spec's "object"). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Give `target` an ordinary own member `name` (safe for `__proto__`). */
function defineMember<T>(target: Record<string, T>, name: string, value: T): void {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The members of an object, or of an array by index name; nothing else (STATE-16). */
function jsEntries(value: unknown): [string, unknown][] {
  if (Array.isArray(value)) return value.map((item, index) => [String(index), item]);
  if (isPlainObject(value)) return Object.keys(value).map((key) => [key, value[key]]);
  return [];
}

/** Code-unit order of strings (DATA-04). */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------
// §3 Configuration
// ---------------------------------------------------------------------------

/** Sanitise one rung's threshold (CFG-09 … CFG-11). */
function sanitiseThreshold(given: unknown, fallback: number | false): number | false {
  if (given === false) return false;
  if (isFiniteNumber(given) && given >= 1) return Math.floor(given);
  return fallback;
}

/** `ladder` absent, null or not an object gives the defaults (CFG-07). */
function resolveLadder(given: unknown): Required<DoomLoopLadder> {
  const ladder = { ...DEFAULT_DOOM_LOOP_LADDER };
  if (given === undefined || given === null) return ladder;
  for (const rung of RUNGS) {
    ladder[rung] = sanitiseThreshold(read(given, rung), DEFAULT_DOOM_LOOP_LADDER[rung]);
  }
  return ladder;
}

/**
 * Text options (CFG-14 … CFG-16): `false` disables, absent or `true` gives the
 * defaults, anything else is read member by member with `??` and taken as
 * given (no sanitising, no coercion here). `null` throws the JS TypeError.
 */
function resolveTextOptions(given: unknown): Required<DoomLoopTextOptions> {
  if (given === false) return { ...DEFAULT_TEXT_OPTIONS, enabled: false };
  if (given === undefined || given === true) return { ...DEFAULT_TEXT_OPTIONS };
  const pick = <K extends keyof DoomLoopTextOptions>(name: K): Required<DoomLoopTextOptions>[K] =>
    (read(given, name) ?? DEFAULT_TEXT_OPTIONS[name]) as Required<DoomLoopTextOptions>[K];
  return {
    enabled: pick('enabled'),
    maxPeriodTokens: pick('maxPeriodTokens'),
    minRepeats: pick('minRepeats'),
    minCoveredTokens: pick('minCoveredTokens'),
    maxWindowTokens: pick('maxWindowTokens'),
  };
}

/**
 * Escalation (CFG-19 … CFG-24): a member is present when it is not
 * `undefined` (so `{model: null}` is a mechanism); `advisor: false` is no
 * advisor. `null` throws the JS TypeError.
 */
function resolveEscalation(given: unknown): ResolvedEscalationConfig | null {
  if (given === undefined) return null;
  const model = read(given, 'model');
  const advisor = read(given, 'advisor');
  const hasAdvisor = advisor !== undefined && advisor !== false;
  if (model === undefined && !hasAdvisor) return null;
  const cap = read(given, 'maxEscalations');
  return {
    ...(model !== undefined ? { model: model as string } : {}),
    ...(hasAdvisor ? { advisor: advisor as boolean | Record<string, unknown> } : {}),
    maxEscalations: isFiniteNumber(cap) && cap >= 1 ? Math.floor(cap) : DEFAULT_MAX_ESCALATIONS,
  };
}

/** The configuration warnings, in their fixed order (CFG-28 … CFG-32), as texts. */
/** The ladder's warnings: block without stop, then the dead rungs in rung order (CFG-28). */
function ladderWarnings(ladder: Required<DoomLoopLadder>): string[] {
  const warnings: string[] = [];
  if (ladder.block !== false && ladder.stop === false) warnings.push(WARNING_BLOCK_WITHOUT_STOP);
  RUNGS.forEach((rung, index) => {
    const own = ladder[rung];
    if (own === false) return;
    const shadow = RUNGS.slice(index + 1).find((stronger) => {
      const theirs = ladder[stronger];
      return theirs !== false && theirs <= own;
    });
    if (shadow !== undefined) warnings.push(deadRungWarning(rung, own, shadow, ladder[shadow] as number));
  });
  return warnings;
}

/** The escalation block's warning, if any (CFG-31, CFG-32). */
function escalationWarnings(ladder: Required<DoomLoopLadder>, escalation: ResolvedEscalationConfig | null): string[] {
  if (escalation !== null && ladder.escalate === false) return [WARNING_ESCALATION_UNUSED];
  if (escalation === null && ladder.escalate !== false) return [WARNING_ESCALATION_UNCONFIGURED];
  return [];
}

/**
 * Normalize the `doomLoop` option (§3). `undefined` / `false` give `null`;
 * `true` or any other value gives a resolved config (a primitive reads as
 * `{}`); `null` (and a `null` `text` or `escalation`) throws a TypeError, as
 * in the SDK. Each configuration warning is one `console.warn(message)` call.
 */
export function resolveDoomLoopOption(option: DoomLoopConfig | true): ResolvedDoomLoopConfig;
export function resolveDoomLoopOption(
  option: DoomLoopOption | undefined,
): ResolvedDoomLoopConfig | null;
export function resolveDoomLoopOption(option: unknown): ResolvedDoomLoopConfig | null {
  if (option === undefined || option === false) return null; // CFG-02
  const config: unknown = option === true ? {} : option; // CFG-03 … CFG-05
  // CFG-47: the ladder, then the escalation block, each printing its warnings, then
  // the text options; a null escalation or text throws after what came before printed.
  const ladder = resolveLadder(read(config, 'ladder'));
  for (const warning of ladderWarnings(ladder)) console.warn(warning);
  const escalation = resolveEscalation(read(config, 'escalation'));
  for (const warning of escalationWarnings(ladder, escalation)) console.warn(warning);
  const text = resolveTextOptions(read(config, 'text'));
  return { ladder, text, escalation };
}

// ---------------------------------------------------------------------------
// §4 Loop keys
// ---------------------------------------------------------------------------

function fallback(args: Record<string, unknown>, warning: string): LoopKeyResolution {
  return { kind: 'fallback', keyMaterial: args, warning };
}

/**
 * Resolve a tool's `loopKey` declaration (absent, `false`, a field-name list
 * or a function) against one call's arguments (§4). Never throws.
 */
export function resolveLoopKeyMaterial(
  loopKey: unknown,
  args: Record<string, unknown>,
): LoopKeyResolution {
  if (loopKey === undefined) return { kind: 'key', keyMaterial: args }; // KEY-05
  if (loopKey === false) return { kind: 'exempt' }; // KEY-06
  if (Array.isArray(loopKey)) {
    if (loopKey.length === 0) return fallback(args, LOOP_KEY_EMPTY_LIST); // KEY-08
    const names = (loopKey as unknown[]).filter((name): name is string => typeof name === 'string');
    // KEY-09: presence is JS `in` (inherited names too); the subset has a null
    // prototype, so any name (`__proto__` included) becomes an own member.
    const subset = Object.create(null) as Record<string, unknown>;
    let found = false;
    for (const name of names) {
      if (name in args) {
        subset[name] = args[name];
        found = true;
      }
    }
    if (!found) return fallback(args, loopKeyFieldsAbsent(names)); // KEY-10
    return { kind: 'key', keyMaterial: subset }; // KEY-11
  }
  if (typeof loopKey === 'function') {
    let result: unknown;
    try {
      result = (loopKey as (args: Record<string, unknown>) => unknown)(args); // KEY-12
    } catch (error) {
      return fallback(args, loopKeyThrew(error instanceof Error ? error.message : String(error)));
    }
    if (result === null) return { kind: 'exempt' };
    if (result === undefined) return fallback(args, LOOP_KEY_RETURNED_UNDEFINED);
    return { kind: 'key', keyMaterial: result }; // KEY-14
  }
  return fallback(args, loopKeyUnsupported(typeof loopKey)); // KEY-07
}

// ---------------------------------------------------------------------------
// §5 Canonical form
// ---------------------------------------------------------------------------

/** Values left out of objects and written `null` elsewhere (CAN-11 … CAN-13). */
function isDroppable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * The canonical text of `value` at `depth`. `ancestors` holds the containers
 * being written (at most MAX_CANONICALIZE_DEPTH + 1 of them, so a list scan is
 * cheap). Builds strings by concatenation: no per-value arrays or sets.
 */
function canonicalText(value: unknown, depth: number, ancestors: object[]): string {
  if (depth > MAX_CANONICALIZE_DEPTH) {
    throw new Error(CANONICAL_TOO_DEEP); // CAN-16
  }
  if (value === null || isDroppable(value)) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new Error(CANONICAL_NON_FINITE); // CAN-05
      // ECMAScript Number::toString; JSON.stringify writes -0 as 0 (CAN-22 … CAN-24).
      return JSON.stringify(value);
    case 'string':
      // JSON.stringify is the well-formed variant: lone surrogates as \udxxx (CAN-25 … CAN-28).
      return JSON.stringify(value);
    case 'bigint':
      throw new Error(CANONICAL_BIGINT); // CAN-14
    default:
      break;
  }
  const container = value as object;
  if (ancestors.includes(container)) throw new Error(CANONICAL_CIRCULAR); // CAN-19
  ancestors.push(container);
  let text: string;
  if (Array.isArray(container)) {
    text = '[';
    for (let index = 0; index < container.length; index += 1) {
      if (index > 0) text += ',';
      text += canonicalText(container[index], depth + 1, ancestors); // CAN-12: visited, then null
    }
    text += ']';
  } else {
    const record = container as Record<string, unknown>;
    const names = Object.keys(record);
    if (names.length > 1) names.sort(compareCodeUnits); // CAN-29, CAN-30
    text = '{';
    let first = true;
    for (const name of names) {
      const member = record[name];
      if (isDroppable(member)) continue; // CAN-11, CAN-18: never visited
      if (!first) text += ',';
      first = false;
      text += JSON.stringify(name) + ':' + canonicalText(member, depth + 1, ancestors);
    }
    text += '}';
  }
  ancestors.pop();
  return text;
}

/**
 * RFC 8785 (JCS) canonical JSON as JS produces it (§5). Throws on non-finite
 * numbers, bigints, circular references and nesting deeper than
 * {@link MAX_CANONICALIZE_DEPTH}.
 */
export function canonicalizeKeyMaterial(value: unknown): string {
  return canonicalText(value, 0, []);
}

// ---------------------------------------------------------------------------
// §6 Fingerprints
// ---------------------------------------------------------------------------

type OneShotHash = (algorithm: string, data: string, outputEncoding: 'hex') => string;
/** `crypto.hash` (Node >= 20.12) avoids a Hash object per call; older Nodes use createHash. */
const oneShotHash = (nodeCrypto as { hash?: OneShotHash }).hash;

/** SHA-256 over UTF-8, lowercase hex; Node encodes a lone surrogate as U+FFFD (FP-06). */
const sha256Hex: (text: string) => string =
  typeof oneShotHash === 'function'
    ? (text) => oneShotHash('sha256', text, 'hex')
    : (text) => nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex');

function keyMaterialFingerprint(keyMaterial: unknown): string {
  return sha256Hex(canonicalizeKeyMaterial(keyMaterial));
}

function toolCallFingerprint(toolName: string, keyMaterial: unknown): string {
  return sha256Hex(`${toolName}\n${canonicalizeKeyMaterial(keyMaterial)}`);
}

/** `sha256(utf8(jcs(keyMaterial)))`, lowercase hex (FP-01). */
export async function fingerprintKeyMaterial(keyMaterial: unknown): Promise<string> {
  return keyMaterialFingerprint(keyMaterial);
}

/** `sha256(utf8(toolName + "\n" + jcs(keyMaterial)))`, lowercase hex (FP-02). */
export async function fingerprintToolCall(toolName: string, keyMaterial: unknown): Promise<string> {
  return toolCallFingerprint(toolName, keyMaterial);
}

// ---------------------------------------------------------------------------
// §7 Text repetition
// ---------------------------------------------------------------------------

/** JS `\s` is exactly the whitespace set of TXT-04. */
const WHITESPACE_RUN = /\s+/;
const WHITESPACE_RUNS = /\s+/g;

/**
 * Detect a token block repeating at the tail of `text` (§7). Returns null when
 * no block meets `minRepeats` and `minCoveredTokens`.
 *
 * The options are used as JS numbers with JS operators and nothing else
 * (TXT-02 … TXT-14): `slice` truncates toward zero and counts a negative
 * argument from the end (so a window of 0 or NaN keeps everything), the
 * comparisons are double comparisons (NaN fails them all), and a non-number
 * value is coerced as JS coerces it (a bigint or symbol window throws a
 * TypeError, as in the SDK). A member holding `undefined` or `null` is absent.
 */
export function detectTextRepetition(
  text: string,
  options?: Partial<DoomLoopTextOptions>,
): TextRepetitionResult | null {
  const maxPeriod = options?.maxPeriodTokens ?? DEFAULT_TEXT_OPTIONS.maxPeriodTokens;
  const minRepeats = options?.minRepeats ?? DEFAULT_TEXT_OPTIONS.minRepeats;
  const minCovered = options?.minCoveredTokens ?? DEFAULT_TEXT_OPTIONS.minCoveredTokens;
  const maxWindow = options?.maxWindowTokens ?? DEFAULT_TEXT_OPTIONS.maxWindowTokens;

  const budget = maxWindow * CODE_UNITS_PER_WINDOW_TOKEN; // TXT-02
  const kept = text.length > budget ? text.slice(-budget) : text; // TXT-03
  const trimmed = kept.trim(); // TXT-05
  const tokens = (trimmed === '' ? [] : trimmed.split(WHITESPACE_RUN)).slice(-maxWindow); // TXT-06, TXT-07
  const count = tokens.length;
  if (count < Math.max(minCovered, 2)) return null; // TXT-08

  let best: TextRepetitionResult | null = null;
  const lastPeriod = Math.min(maxPeriod, Math.floor(count / 2));
  for (let period = 1; period <= lastPeriod; period += 1) {
    const blockStart = count - period;
    let repeats = 1; // TXT-10
    let start = count - 2 * period;
    while (start >= 0 && sameRun(tokens, start, blockStart, period)) {
      repeats += 1;
      start -= period;
    }
    const covered = repeats * period; // TXT-12
    if (repeats >= minRepeats && covered >= minCovered && (best === null || covered > best.coveredTokens)) {
      best = {
        repeats,
        periodTokens: period,
        coveredTokens: covered,
        sample: tokens.slice(blockStart).join(' '),
      }; // TXT-13, TXT-14
    }
  }
  return best;
}

function sameRun(tokens: readonly string[], start: number, blockStart: number, period: number): boolean {
  for (let offset = 0; offset < period; offset += 1) {
    if (tokens[start + offset] !== tokens[blockStart + offset]) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// §8 Ladder
// ---------------------------------------------------------------------------

function meets(threshold: number | false, streak: number): boolean {
  return threshold !== false && streak >= threshold; // LAD-02
}

/** The first rung meeting the streak, checked stop, block, escalate, steer, observe (§8). */
export function resolveLadderAction(
  ladder: Required<DoomLoopLadder>,
  streak: number,
  options: { allowBlock: boolean; allowEscalate?: boolean },
): DoomLoopAction | undefined {
  const allowEscalate = options.allowEscalate ?? true; // LAD-05
  if (meets(ladder.stop, streak)) return 'stop';
  if (options.allowBlock && meets(ladder.block, streak)) return 'block';
  if (allowEscalate && meets(ladder.escalate, streak)) return 'escalate';
  if (meets(ladder.steer, streak)) return 'steer';
  if (meets(ladder.observe, streak)) return 'observe';
  return undefined;
}

// ---------------------------------------------------------------------------
// §11 Messages
// ---------------------------------------------------------------------------

const CLOSING = 'Take a different approach, or explain why repetition is required.';
const TEXT_CLOSING = 'Stop repeating and take a different approach.';

function repeatedCallMessage(toolName: string): string {
  return `Doom loop suspected: this exact "${toolName}" call has been repeated across consecutive rounds. Repeating it will not change the result. ${CLOSING}`;
}

function roundIdentity(set: readonly string[]): string {
  const head = set
    .slice(0, 3)
    .map((member) => member.slice(0, 8))
    .join('+');
  return set.length > 3 ? `${head}+${set.length - 3} more\u2026` : `${head}\u2026`;
}

function fanOutMessage(toolName: string, rounds: number, set: readonly string[]): string {
  return `Doom loop suspected: tool "${toolName}" was invoked in ${String(rounds)} consecutive rounds with the same set of ${set.length} parallel calls (round identity ${roundIdentity(set)}). Reissuing the same fan-out will not change the results. ${CLOSING}`;
}

function identicalArgumentsMessage(toolName: string, rounds: number, fingerprint: string): string {
  return `Doom loop suspected: tool "${toolName}" was invoked in ${String(rounds)} consecutive rounds with identical arguments (fingerprint ${fingerprint.slice(0, 16)}\u2026). Repeating the call will not change the result. ${CLOSING}`;
}

function repeatedBlockMessage(sample: string, repeats: number): string {
  return `Doom loop suspected: the response repeats "${sample}" ${String(repeats)} times in a row. ${TEXT_CLOSING}`;
}

function repeatedTextMessage(streak: number): string {
  return `Doom loop suspected: the assistant produced identical text for ${String(streak)} consecutive turns. ${TEXT_CLOSING}`;
}

// ---------------------------------------------------------------------------
// §9 / §10 Monitor
// ---------------------------------------------------------------------------

/** One tool's evidence (MON-03, MON-04). */
interface ToolEntry {
  // persisted
  fingerprint: string;
  streak: number;
  /** Sorted by code units; a restored set may hold duplicates. */
  roundSet: readonly string[];
  /**
   * Per-call counts of this round AND of the previous one, in one map (one
   * hash lookup per record): a slot whose `epoch` is the entry's `epoch`
   * belongs to the current round's per-call counts (MON-03), one whose epoch
   * (or `prevEpoch`) is `epoch - 1` carries the baseline `priorCalls`
   * (MON-22, MON-23). Slots older than that are stale and pruned in bulk.
   */
  slots: Map<string, CallSlot>;
  /** Counts the tool's rounds; restored entries are at epoch 0. */
  epoch: number;
  /** Number of slots in the current epoch (the size of the per-call counts). */
  width: number;
  /** `width` of the previous epoch (bounds the stale slots kept). */
  priorWidth: number;
  // run-local
  /**
   * The round number of the last record, or undefined after a restore. The
   * seen set of MON-30 is the set of current-epoch slots (both start as {fp}
   * and gain each recorded fp), so it is not stored separately (MON-20).
   */
  round: number | undefined;
  priorSet: readonly string[] | undefined;
  priorStreak: number;
  /** Cached `priorSet equals set` for the declared set object `set` of this round. */
  priorMatch: { set: readonly string[]; equal: boolean } | undefined;
  /** The last fan-out message built for this tool (see cachedFanOutMessage). */
  fanOutMessage: { set: readonly string[]; rounds: number; text: string } | undefined;
}

/**
 * `score(S)` of MON-25: `priorStreak + 1` when the baseline's set equals `S`,
 * else 1. A multi-member comparison is made once per declared set object and
 * round, then reused (MON-56).
 */
function scoreSet(entry: ToolEntry, set: readonly string[]): number {
  const prior = entry.priorSet;
  if (prior === undefined) return 1;
  if (set.length === 1) return prior.length === 1 && prior[0] === set[0] ? entry.priorStreak + 1 : 1;
  let match = entry.priorMatch;
  if (match === undefined || match.set !== set) {
    match = { set, equal: sameList(prior, set) };
    entry.priorMatch = match;
  }
  return match.equal ? entry.priorStreak + 1 : 1;
}

/**
 * Every member of a repeated fan-out gets the same message (MSG-04), so it is
 * built once per tool, set and round count rather than once per call.
 */
function cachedFanOutMessage(entry: ToolEntry, toolName: string, rounds: number, set: readonly string[]): string {
  const cached = entry.fanOutMessage;
  if (cached !== undefined && cached.set === set && cached.rounds === rounds) return cached.text;
  const text = fanOutMessage(toolName, rounds, set);
  entry.fanOutMessage = { set, rounds, text };
  return text;
}

/** One call's per-call streak, for the current and the previous epoch of its tool. */
interface CallSlot {
  /** The fingerprint this slot is keyed by (the very string instance). */
  fp: string;
  epoch: number;
  count: number;
  prevEpoch: number;
  prevCount: number;
}

function newEntry(fp: string): ToolEntry {
  return {
    fingerprint: fp,
    streak: 1,
    roundSet: [fp],
    slots: new Map<string, CallSlot>(),
    epoch: 0,
    width: 0,
    priorWidth: 0,
    round: undefined,
    priorSet: undefined,
    priorStreak: 0,
    priorMatch: undefined,
    fanOutMessage: undefined,
  };
}

/** The per-call counts of the entry's current round (MON-03), in slot order. */
function currentCounts(entry: ToolEntry): [string, number][] {
  const counts: [string, number][] = [];
  for (const [fingerprint, slot] of entry.slots) {
    if (slot.epoch === entry.epoch) counts.push([fingerprint, slot.count]);
  }
  return counts;
}

/** Start a new round of `entry`: the current counts become the baseline (MON-23). */
function startRound(entry: ToolEntry): void {
  entry.priorSet = entry.roundSet;
  entry.priorStreak = entry.streak;
  entry.priorMatch = undefined;
  entry.epoch += 1;
  entry.priorWidth = entry.width;
  entry.width = 0;
  // Slots not used in the previous round are stale; drop them once they are
  // the majority, so the map stays within about twice one round's width and
  // each slot is deleted at most once (amortised O(1) per record).
  if (entry.slots.size > 2 * entry.priorWidth + 16) {
    const keep = entry.epoch - 1;
    for (const [fingerprint, slot] of entry.slots) {
      if (slot.epoch !== keep) entry.slots.delete(fingerprint);
    }
  }
}

interface TextStreak {
  fingerprint: string;
  streak: number;
}

interface DeclaredRound {
  round: number;
  sets: Map<string, readonly string[]>;
  /** Per tool, each declared fingerprint mapped to itself (membership + one shared string instance). */
  members: Map<string, Map<string, string>>;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) {
    if (a[index] !== b[index]) return false;
  }
  return true;
}

/**
 * The memo of one key-material object (MON-08): the first tool name it was
 * fingerprinted for, inline (the usual case), and any other tool names.
 */
interface MemoEntry {
  toolName: string;
  fingerprint: string;
  others: Map<string, string> | undefined;
}

/** A valid `{fingerprint: string, streak: finite number}` record, or undefined. */
function streakRecord(value: unknown): TextStreak | undefined {
  if (!isPlainObject(value)) return undefined;
  const fingerprint = value.fingerprint;
  const streak = value.streak;
  if (typeof fingerprint !== 'string' || !isFiniteNumber(streak)) return undefined;
  return { fingerprint, streak };
}

/**
 * Pure state machine over the recorded transcript (§9): feed it tool calls and
 * assistant texts, get verdicts back. State round-trips through
 * {@link DoomLoopMonitor.getState} / {@link DoomLoopMonitor.restore} (§10).
 */
export class DoomLoopMonitor {
  private readonly config: ResolvedDoomLoopConfig;
  private tools = new Map<string, ToolEntry>();
  private text: TextStreak | undefined = undefined;
  private escalationsUsed = 0;
  private declaredRound: DeclaredRound | undefined = undefined;
  /**
   * Call fingerprints per key-material object, then per tool name, for the
   * monitor's lifetime (MON-08): declareRound and recordToolCall reuse the
   * first fingerprint computed for the very same object, even after it was
   * mutated; restore does not clear it. Primitives and null are not memoised.
   */
  private readonly fingerprints = new WeakMap<object, MemoEntry>();

  constructor(config: ResolvedDoomLoopConfig, initialState?: unknown) {
    this.config = config;
    if (initialState !== undefined) this.restore(initialState); // MON-06
  }

  /** The call fingerprint of MON-08 and MON-15, through the per-object memo. Throws like canonicalizeKeyMaterial. */
  private fingerprintCall(toolName: string, keyMaterial: unknown): string {
    if (typeof keyMaterial !== 'object' || keyMaterial === null) return toolCallFingerprint(toolName, keyMaterial);
    const entry = this.fingerprints.get(keyMaterial);
    if (entry?.toolName === toolName) return entry.fingerprint;
    const known = entry?.others?.get(toolName);
    if (known !== undefined) return known;
    const fingerprint = toolCallFingerprint(toolName, keyMaterial);
    if (entry === undefined) this.fingerprints.set(keyMaterial, { toolName, fingerprint, others: undefined });
    else (entry.others ??= new Map<string, string>()).set(toolName, fingerprint);
    return fingerprint;
  }

  /**
   * Declare the complete set of calls a round will make, before any of them
   * is recorded (§9.3). Unhashable key material is left out with a warning.
   */
  async declareRound(
    round: number,
    calls: readonly { toolName: string; keyMaterial: unknown }[],
  ): Promise<void> {
    const grouped = new Map<string, Map<string, string>>();
    for (const call of calls) {
      let fingerprint: string;
      try {
        fingerprint = this.fingerprintCall(call.toolName, call.keyMaterial); // MON-08
      } catch (error) {
        console.warn(declareRoundLog(call.toolName, round), error); // MON-08
        continue;
      }
      let members = grouped.get(call.toolName);
      if (members === undefined) {
        members = new Map<string, string>();
        grouped.set(call.toolName, members);
      }
      if (!members.has(fingerprint)) {
        // Share the string instance the tool's per-call slot is keyed by, so
        // that recording the call finds its slot by identity (cheap lookups).
        const instance = this.tools.get(call.toolName)?.slots.get(fingerprint)?.fp ?? fingerprint;
        members.set(instance, instance);
      }
    }
    const sets = new Map<string, readonly string[]>();
    for (const [toolName, members] of grouped) {
      sets.set(toolName, [...members.keys()].sort(compareCodeUnits)); // MON-09
    }
    this.declaredRound = { round, sets, members: grouped }; // MON-10
  }

  /** True when the escalate rung can still fire (MON-52). */
  canEscalate(): boolean {
    const escalation = this.config.escalation;
    return escalation !== null && this.escalationsUsed < escalation.maxEscalations;
  }

  /** Consume one escalation, unconditionally (MON-54). */
  consumeEscalation(): void {
    this.escalationsUsed += 1;
  }

  /** A fresh plain-JSON snapshot of the persisted state (§10.1). */
  getState(): DoomLoopSerializedState {
    const tools: Record<string, DoomLoopStreak> = {};
    for (const [name, entry] of this.tools) {
      const streak: DoomLoopStreak = { fingerprint: entry.fingerprint, streak: entry.streak };
      if (entry.roundSet.length > 1) streak.roundFingerprints = [...entry.roundSet];
      const current = currentCounts(entry);
      if (!callStreaksImplied(entry, current)) {
        const counts: Record<string, number> = {};
        for (const [fingerprint, count] of current) defineMember(counts, fingerprint, count);
        streak.callStreaks = counts;
      }
      defineMember(tools, name, streak);
    }
    const state: DoomLoopSerializedState = { tools };
    if (this.text !== undefined) {
      state.text = { fingerprint: this.text.fingerprint, streak: this.text.streak };
    }
    if (this.escalationsUsed > 0) state.escalationsUsed = this.escalationsUsed;
    return state;
  }

  /**
   * Restore persisted state (§10.2). Fail-open: a value that is not an object
   * is ignored with a warning; invalid members are skipped. Engine-owned
   * fields (`stopVerdict`, `pendingSteer`) are ignored.
   */
  restore(state: unknown): void {
    if (!isPlainObject(state)) {
      console.warn(RESTORE_LOG); // STATE-13
      return;
    }
    const tools = new Map<string, ToolEntry>();
    for (const [name, value] of jsEntries(state.tools)) {
      const record = streakRecord(value);
      if (record === undefined) continue;
      tools.set(name, restoredEntry(value as Record<string, unknown>, record));
    }
    const text = streakRecord(state.text);
    const used = state.escalationsUsed;
    this.tools = tools;
    this.text = text;
    this.escalationsUsed = isFiniteNumber(used) && used >= 0 ? Math.floor(used) : 0;
  }

  /**
   * Record one tool call and return its streak record plus any verdict (§9.4).
   * Rejects (without touching state) when the key material cannot be
   * canonicalized.
   */
  async recordToolCall(
    toolName: string,
    keyMaterial: unknown,
    round: number,
    options?: {
      allowBlock?: boolean;
      detector?: Extract<DoomLoopDetectorKind, 'tool-fingerprint' | 'server-tool-fingerprint'>;
    },
  ): Promise<DoomLoopCallRecord> {
    const allowBlock = options?.allowBlock ?? true;
    const detector = options?.detector ?? 'tool-fingerprint';
    let fp = this.fingerprintCall(toolName, keyMaterial); // MON-15
    const prev = this.tools.get(toolName); // MON-16
    const sameRound = prev !== undefined && prev.round !== undefined && prev.round === round; // MON-17

    let declared: readonly string[] | undefined; // MON-18
    let member = false; // MON-19
    const declaration = this.declaredRound;
    if (declaration !== undefined && declaration.round === round) {
      declared = declaration.sets.get(toolName);
      const shared = declaration.members.get(toolName)?.get(fp);
      if (shared !== undefined) {
        member = true;
        // Equal string, but the declaration's instance: what the entry keeps then
        // stays one allocation per declared call rather than one per record.
        fp = shared;
      }
    }

    // MON-21 … MON-24: the baseline is fixed by the round's first record.
    let entry: ToolEntry;
    if (prev === undefined) {
      entry = newEntry(fp); // no baseline (MON-24)
      entry.epoch = 1;
    } else {
      entry = prev;
      if (!sameRound) startRound(entry); // MON-23
    }
    const epoch = entry.epoch;
    let slot = entry.slots.get(fp);
    const duplicateInRound = sameRound && slot !== undefined && slot.epoch === epoch; // MON-20
    let priorCount = 0; // priorCalls[fp], own keys only (MON-26)
    if (slot !== undefined) {
      if (slot.epoch === epoch - 1) priorCount = slot.count;
      else if (slot.epoch === epoch && slot.prevEpoch === epoch - 1) priorCount = slot.prevCount;
    }

    const callStreak = priorCount + 1; // MON-26
    const callSet = member && declared !== undefined ? declared : [fp]; // MON-27
    const roundStreak = scoreSet(entry, callSet);
    const roundSet = declared ?? callSet; // MON-28

    // MON-29 … MON-33: the new entry (updated in place).
    entry.fingerprint = declared !== undefined && !member && prev !== undefined ? prev.fingerprint : fp;
    entry.round = round;
    entry.roundSet = roundSet;
    entry.streak = scoreSet(entry, roundSet);
    if (slot === undefined) {
      slot = { fp, epoch, count: callStreak, prevEpoch: -1, prevCount: 0 };
      entry.slots.set(fp, slot);
      entry.width += 1;
    } else if (slot.epoch !== epoch) {
      slot.prevEpoch = slot.epoch;
      slot.prevCount = slot.count;
      slot.epoch = epoch;
      slot.count = callStreak;
      entry.width += 1;
    } else {
      slot.count = callStreak;
    }
    if (prev === undefined) this.tools.set(toolName, entry);

    const streak = Math.max(roundStreak, callStreak); // MON-34
    const action = resolveLadderAction(this.config.ladder, streak, {
      allowBlock,
      allowEscalate: this.canEscalate(),
    }); // MON-35
    const record: DoomLoopCallRecord = { fingerprint: fp, streak, duplicateInRound };
    if (action !== undefined) {
      let message: string; // MSG-04
      if (callStreak > roundStreak || !member) message = repeatedCallMessage(toolName);
      else if (callSet.length > 1) message = cachedFanOutMessage(entry, toolName, roundStreak, callSet);
      else message = identicalArgumentsMessage(toolName, roundStreak, fp);
      record.verdict = { detector, action, streak, fingerprint: fp, toolName, message };
    }
    return record;
  }

  /** Forget the cross-step text streak; tool streaks are kept (MON-51). */
  resetTextStreak(): void {
    this.text = undefined;
  }

  /** Record one step's assistant text; return the stronger text verdict (§9.5). */
  async recordAssistantText(text: string): Promise<DoomLoopVerdict | undefined> {
    const options = this.config.text;
    if (!options.enabled) return undefined; // MON-40
    const normalised = text.replace(WHITESPACE_RUNS, ' ').trim(); // MON-41
    if (normalised === '') return undefined; // MON-42
    const allowEscalate = this.canEscalate();
    const ladder = this.config.ladder;

    let within: DoomLoopVerdict | undefined;
    const found = detectTextRepetition(normalised, options); // MON-43
    if (found !== null) {
      const action = resolveLadderAction(ladder, found.repeats, { allowBlock: false, allowEscalate });
      if (action !== undefined) {
        within = {
          detector: 'text-repetition',
          action,
          streak: found.repeats,
          fingerprint: keyMaterialFingerprint(found.sample),
          message: repeatedBlockMessage(found.sample, found.repeats),
        }; // MON-44
      }
    }

    const fingerprint = keyMaterialFingerprint(normalised); // MON-45
    const previous = this.text;
    const count = previous !== undefined && previous.fingerprint === fingerprint ? previous.streak + 1 : 1;
    this.text = { fingerprint, streak: count }; // MON-46
    let across: DoomLoopVerdict | undefined;
    const action = resolveLadderAction(ladder, count, { allowBlock: false, allowEscalate });
    if (action !== undefined) {
      across = {
        detector: 'text-streak',
        action,
        streak: count,
        fingerprint,
        message: repeatedTextMessage(count),
      }; // MON-47
    }

    // MON-48: a tie goes to the within-response verdict.
    if (within === undefined) return across;
    if (across !== undefined && ACTION_STRENGTH[across.action] > ACTION_STRENGTH[within.action]) return across;
    return within;
  }
}

/** True when the per-call counts say nothing beyond the round (STATE-05). */
function callStreaksImplied(entry: ToolEntry, counts: readonly [string, number][]): boolean {
  if (counts.length !== entry.roundSet.length) return false;
  const members = new Set(entry.roundSet);
  for (const [fingerprint, count] of counts) {
    if (!members.has(fingerprint) || count !== entry.streak) return false;
  }
  return true;
}

/** Rebuild one tool entry from a valid persisted record (§10.2). */
function restoredEntry(value: Record<string, unknown>, record: TextStreak): ToolEntry {
  const persistedSet = value.roundFingerprints;
  const roundSet =
    Array.isArray(persistedSet) &&
    persistedSet.length > 1 &&
    persistedSet.every((member): member is string => typeof member === 'string')
      ? [...persistedSet].sort(compareCodeUnits)
      : [record.fingerprint];
  const streak = Math.min(Math.max(Math.floor(record.streak), 1), MAX_RESTORED_STREAK);
  const entry = newEntry(record.fingerprint);
  entry.streak = streak;
  entry.roundSet = roundSet;
  const keep = (fingerprint: string, count: number): void => {
    const slot = entry.slots.get(fingerprint);
    if (slot === undefined) {
      entry.slots.set(fingerprint, { fp: fingerprint, epoch: 0, count, prevEpoch: -1, prevCount: 0 });
      entry.width += 1;
    } else {
      slot.count = count; // a duplicated round-set member yields one key (STATE-25)
    }
  };
  for (const [fingerprint, count] of jsEntries(value.callStreaks)) {
    if (isFiniteNumber(count) && count >= 1) keep(fingerprint, Math.floor(count)); // STATE-24
  }
  if (entry.width === 0) {
    for (const member of roundSet) keep(member, streak); // STATE-25
  }
  return entry; // no round number, no baseline (STATE-26)
}
