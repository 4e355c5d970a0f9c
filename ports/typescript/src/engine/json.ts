/** Plain JSON values and the few helpers the engine needs to handle them as data (ENG-57, ENG-121). */

export type Json = null | boolean | number | string | Json[] | { [name: string]: Json };
export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const hasOwn = (target: object, name: string): boolean => Object.prototype.hasOwnProperty.call(target, name);

/** Set a member as data, so that a name like `__proto__` is an own member, never a prototype (ENG-57). */
export function defineMember(target: JsonObject, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** A private deep copy of a JSON value; members named `__proto__` stay data. */
export function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => clone(item)) as T;
  if (isObject(value)) {
    const copy: JsonObject = {};
    for (const [name, member] of Object.entries(value)) defineMember(copy, name, clone(member));
    return copy as T;
  }
  return value;
}

/** A JSON round trip, as a store or the wire makes one (undefined members drop, a non-finite number is null). */
export function viaJson(value: unknown): Json {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as Json);
}

/** Deep equality of JSON values (members in any order). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => jsonEqual(item, right[index]))
    );
  }
  if (!isObject(left) || !isObject(right)) return false;
  const names = Object.keys(left);
  return (
    names.length === Object.keys(right).length &&
    names.every((name) => hasOwn(right, name) && jsonEqual(left[name], right[name]))
  );
}
