/**
 * The SDK's run loop as the engine harness sees it: the exports of an engine
 * bundle of `@openrouter/agent` (its `callModel`, `ModelResult`, `HooksManager`,
 * `tool`, `stepCountIs`, `z` and the doom-loop module) and the few shapes of
 * them the harness drives. Loading checks every one of them, so that a build
 * that lacks something fails at once with a message naming what is missing.
 */

import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { isObject } from '../engine/json.js';
import { asDoomLoopModule, type DoomLoopModule } from '../protocol.js';

/** A `HooksManager.on` entry (the SDK's lifecycle hooks). */
export interface HookEntry {
  handler: (payload: unknown) => unknown;
  matcher?: string;
  filter?: (payload: unknown) => boolean;
}

export interface SdkHooksManager {
  on(hook: string, entry: HookEntry): unknown;
}

/** What `callModel` returns: the public getters the harness reads. */
export interface SdkModelResult {
  getResponse(): Promise<unknown>;
  getText(): Promise<unknown>;
  getDoomLoopVerdict(): Promise<unknown>;
}

/** The execute / onToolCalled context a tool body receives. */
export interface ToolContext {
  callId?: unknown;
  toolCall?: { callId?: unknown };
}

export type ToolBody = (input: unknown, context?: ToolContext) => unknown;

/** The exports of an engine bundle. */
export interface SdkEngineModule {
  callModel(client: object, request: Record<string, unknown>): SdkModelResult;
  ModelResult: { prototype: object };
  HooksManager: new () => SdkHooksManager;
  tool(config: Record<string, unknown>): unknown;
  stepCountIs(steps: number): unknown;
  z: { any(): unknown };
  doomLoop: DoomLoopModule;
}

/** The functions an engine bundle exports, besides `z` and `doomLoop`. */
const FUNCTIONS = ['callModel', 'ModelResult', 'HooksManager', 'tool', 'stepCountIs'] as const;

/** An SDK build the harness cannot drive; the message names what is missing. */
export class SdkBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SdkBuildError';
  }
}

/** Where the harness guide says how to build an engine bundle. */
export const BUNDLE_GUIDE = "the kit's docs/guide/write-a-harness.md#sdk-engine-bundle";

/**
 * Why an installed `@openrouter/agent` cannot be driven: callModel sends its
 * requests over HTTP, and the package documents no way to hand it a client
 * whose transport the caller controls.
 */
function installedPackageRefused(given: string): SdkBuildError {
  return new SdkBuildError(
    `--sdk-engine needs an engine bundle file, and ${JSON.stringify(given)} names a package or a folder. ` +
      'An installed @openrouter/agent documents no way to give callModel a client whose HTTP transport ' +
      'the harness controls (its README and @openrouter/sdk\'s document no custom HTTP client), so its ' +
      `model cannot be scripted; build a bundle from the SDK's source as ${BUNDLE_GUIDE} describes`,
  );
}

/** The bundle file `given` names, resolved from `cwd`; a package or folder is refused. */
export function bundlePath(given: string, cwd = process.cwd()): string {
  const path = resolve(cwd, given);
  const pathLike = given.startsWith('.') || isAbsolute(given) || existsSync(path);
  if (!pathLike || statSync(path, { throwIfNoEntry: false })?.isDirectory() === true) throw installedPackageRefused(given);
  return path;
}

/** The names of `wanted` that `target` lacks as functions. */
export function missingFunctions(target: unknown, wanted: readonly string[]): string[] {
  const holder = target as Record<string, unknown> | null | undefined;
  return wanted.filter((name) => typeof holder?.[name] !== 'function');
}

/** The bundle's exports checked: every one the harness uses is there. */
export function asSdkEngineModule(namespace: unknown, where: string): SdkEngineModule {
  if (!isObject(namespace)) throw new SdkBuildError(`${where} is not a module namespace`);
  const missing = missingFunctions(namespace, FUNCTIONS);
  if (!isObject(namespace.z) || typeof namespace.z.any !== 'function') missing.push('z (zod, with z.any)');
  if (!isObject(namespace.doomLoop)) missing.push('doomLoop (the doom-loop module)');
  if (missing.length > 0) {
    throw new SdkBuildError(`${where} does not export ${missing.join(', ')}: it is not an engine bundle (see ${BUNDLE_GUIDE})`);
  }
  try {
    asDoomLoopModule(namespace.doomLoop, `${where}'s doomLoop`);
  } catch (error) {
    throw new SdkBuildError((error as Error).message);
  }
  return namespace as unknown as SdkEngineModule;
}

/** Import the engine bundle `given` names and check its exports. Throws {@link SdkBuildError}. */
export async function importSdkEngine(given: string, cwd = process.cwd()): Promise<{ sdk: SdkEngineModule; path: string }> {
  const path = bundlePath(given, cwd);
  let namespace: unknown;
  try {
    namespace = (await import(pathToFileURL(path).href)) as unknown;
  } catch (error) {
    throw new SdkBuildError(`cannot load the engine bundle ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { sdk: asSdkEngineModule(namespace, `the engine bundle ${basename(path)}`), path };
}
