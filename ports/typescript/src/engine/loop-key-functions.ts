/**
 * Function-form `loopKey` declarations written as data (ENG-39, ENG-40, ENG-41).
 *
 * A scenario cannot carry code, so function loop keys are named forms that
 * behave as the equivalent JS function would (spec §15.1.4):
 * `project` (listed fields with `trim`/`lower` transforms), `returns` (a fixed
 * value; null exempts), `returns-undefined`, `throws`, and the test double
 * `resolution-fails` (the resolution itself fails, ENG-40). Every built
 * function counts its invocations (ENG-41).
 */

import { ScenarioError } from './errors.js';
import { defineMember, hasOwn, isObject, type JsonObject } from './json.js';

const TRANSFORMS: Readonly<Record<string, (text: string) => string>> = {
  trim: (text) => text.trim(),
  lower: (text) => text.toLowerCase(),
};

/** The `resolution-fails` double: resolving this tool's identity fails (ENG-40). */
export class ResolutionFault {
  constructor(readonly message: string) {}
}

/** How many times each tool's function-form loop key ran (ENG-41). */
export type Invocations = Map<string, number>;

function knownTransform(step: unknown): step is string {
  return typeof step === 'string' && hasOwn(TRANSFORMS, step);
}

/**
 * `args[name]` as a JSON value's own member: an object's member, an array's
 * element or `length` (ENG-154); undefined on anything else.
 */
function member(args: unknown, name: string): unknown {
  if (!isObject(args) && !Array.isArray(args)) return undefined;
  return hasOwn(args, name) ? (args as JsonObject)[name] : undefined;
}

function project(fields: Readonly<Record<string, string[]>>, args: unknown): JsonObject {
  const result: JsonObject = {};
  for (const [name, transforms] of Object.entries(fields)) {
    let value: unknown = member(args, name);
    for (const transform of transforms) {
      if (typeof value !== 'string') throw new TypeError(`cannot ${transform} field ${JSON.stringify(name)}`);
      value = TRANSFORMS[transform]!(value);
    }
    defineMember(result, name, value);
  }
  return result;
}

function body(form: JsonObject, toolName: string): (args: unknown) => unknown {
  const name = form.function;
  switch (name) {
    case 'project': {
      const fields = form.fields;
      if (!isObject(fields) || !Object.values(fields).every((steps) => Array.isArray(steps) && steps.every(knownTransform))) {
        throw new ScenarioError(`tool ${JSON.stringify(toolName)}: project needs fields with known transforms`);
      }
      return (args) => project(fields as Record<string, string[]>, args);
    }
    case 'returns': {
      const value = hasOwn(form, 'value') ? form.value : null;
      return () => value;
    }
    case 'returns-undefined':
      return () => undefined;
    case 'throws': {
      const message = String(form.message ?? '');
      return () => {
        throw new Error(message);
      };
    }
    default:
      throw new ScenarioError(`tool ${JSON.stringify(toolName)}: unknown loopKey function ${JSON.stringify(name) ?? 'undefined'}`);
  }
}

/**
 * The monitor's `loopKey` for a JSON form (ENG-39): absent, `false`, field
 * lists and other values pass through; function forms become counting
 * functions; `resolution-fails` becomes a {@link ResolutionFault}. Throws
 * {@link ScenarioError} for an unknown form (ENG-23).
 */
export function buildLoopKey(form: unknown, toolName: string, invocations: Invocations): unknown {
  if (!isObject(form)) return form;
  if (form.function === 'resolution-fails') return new ResolutionFault(String(form.message ?? ''));
  const run = body(form, toolName);
  return (args: unknown): unknown => {
    invocations.set(toolName, (invocations.get(toolName) ?? 0) + 1);
    return run(args);
  };
}
