/**
 * Find and import the doom-loop module a harness runs over: a file path, or a
 * package specifier (`@openrouter/agent/doom-loop`, `my-port`) resolved from
 * the working directory first, then from this package's own location.
 */

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { asDoomLoopModule, type DoomLoopModule, type Implementation } from './protocol.js';

export interface LoadedModule {
  module: DoomLoopModule;
  /** Where it was loaded from. */
  url: string;
  /** The name and version of the package that holds it, when it has a named package.json. */
  implementation: Pick<Implementation, 'name' | 'version'> | undefined;
}

function isPathLike(specifier: string, cwd: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier) || existsSync(resolve(cwd, specifier));
}

/** The URL `specifier` names, resolved from `cwd` (paths and packages) or, failing that, from here. */
export function resolveModule(specifier: string, cwd = process.cwd()): string {
  if (isPathLike(specifier, cwd)) return pathToFileURL(resolve(cwd, specifier)).href;
  try {
    return pathToFileURL(createRequire(join(cwd, 'package.json')).resolve(specifier)).href;
  } catch {
    // An ESM-only export map, or a package installed beside this one: resolve as this package would import it.
    return import.meta.resolve(specifier);
  }
}

/** The nearest package.json above `url` that has a name, as an implementation name and version. */
function owningPackage(url: string): LoadedModule['implementation'] {
  if (!url.startsWith('file:')) return undefined;
  let folder = dirname(fileURLToPath(url));
  for (;;) {
    const candidate = join(folder, 'package.json');
    if (existsSync(candidate)) {
      try {
        const parsed = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
        if (typeof parsed.name === 'string') {
          return { name: parsed.name, version: typeof parsed.version === 'string' ? parsed.version : '0.0.0' };
        }
      } catch {
        // not a readable manifest: keep climbing
      }
    }
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

/** Import the module `specifier` names and check that it has the doom-loop API. Throws a readable Error. */
export async function loadModule(specifier: string, cwd = process.cwd()): Promise<LoadedModule> {
  let url: string;
  try {
    url = resolveModule(specifier, cwd);
  } catch (error) {
    throw new Error(`cannot find module ${specifier}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let namespace: unknown;
  try {
    namespace = (await import(url)) as unknown;
  } catch (error) {
    throw new Error(`cannot load module ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { module: asDoomLoopModule(namespace, url), url, implementation: owningPackage(url) };
}
