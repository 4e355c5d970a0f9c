/**
 * Function-form `loopKey` declarations written as data (ENG-39, ENG-40, ENG-41).
 *
 * A scenario cannot carry code, so function loop keys are named forms that
 * behave as the equivalent JS function would (spec §15.1.4):
 * `project` (listed fields with `trim`/`lower` transforms), `returns` (a fixed
 * value; null exempts), `returns-undefined`, `throws`, and the test double
 * `resolution-fails` (the resolution itself fails, ENG-40). Every built
 * function counts its invocations (ENG-41). Each form has exactly the members
 * shown (ENG-182): {@link checkForm} refuses any other, and a `message` that is
 * not a string, when the scenario is read.
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

/** Each function form and the members it has, exactly (ENG-182). */
const FORM_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  project: ['function', 'fields'],
  returns: ['function', 'value'],
  'returns-undefined': ['function'],
  throws: ['function', 'message'],
  'resolution-fails': ['function', 'message'],
};

/**
 * Refuse a function form that is not well formed (ENG-182, ENG-23): an unknown
 * `function`, a member the form does not have, `fields` that are not lists of
 * known transforms, a `message` that is not a string. `where` names the form.
 */
export function checkForm(form: JsonObject, where: string): void {
  const name = form.function;
  if (typeof name !== 'string' || !hasOwn(FORM_MEMBERS, name)) {
    throw new ScenarioError(`${where}: unknown loopKey function ${JSON.stringify(name) ?? 'undefined'}`);
  }
  const members = FORM_MEMBERS[name]!;
  const extra = Object.keys(form).filter((member) => !members.includes(member)).sort();
  if (extra.length > 0) throw new ScenarioError(`${where}: unknown member(s) ${extra.join(', ')} of the ${name} form`);
  if (hasOwn(form, 'message') && typeof form.message !== 'string') {
    throw new ScenarioError(`${where}.message: the ${name} form's message must be a string`);
  }
  if (name === 'project') {
    const fields = form.fields;
    if (!isObject(fields) || !Object.values(fields).every((steps) => Array.isArray(steps) && steps.every(knownTransform))) {
      throw new ScenarioError(`${where}.fields: project needs fields with known transforms`);
    }
  }
}

/** A `throws` or `resolution-fails` form's message: a string, `""` when left out (ENG-182). */
const messageOf = (form: JsonObject): string => (hasOwn(form, 'message') ? (form.message as string) : '');

function body(form: JsonObject): (args: unknown) => unknown {
  switch (form.function) {
    case 'project': {
      const fields = form.fields as Record<string, string[]>;
      return (args) => project(fields, args);
    }
    case 'returns': {
      const value = hasOwn(form, 'value') ? form.value : null;
      return () => value;
    }
    case 'returns-undefined':
      return () => undefined;
    default: {
      // throws
      const message = messageOf(form);
      return () => {
        throw new Error(message);
      };
    }
  }
}

/**
 * The monitor's `loopKey` for a JSON form (ENG-39), checked by {@link checkForm}
 * when the scenario was read: absent, `false`, field lists and other values pass
 * through; function forms become counting functions; `resolution-fails` becomes
 * a {@link ResolutionFault}.
 */
export function buildLoopKey(form: unknown, toolName: string, invocations: Invocations): unknown {
  if (!isObject(form)) return form;
  if (form.function === 'resolution-fails') return new ResolutionFault(messageOf(form));
  const run = body(form);
  return (args: unknown): unknown => {
    invocations.set(toolName, (invocations.get(toolName) ?? 0) + 1);
    return run(args);
  };
}
