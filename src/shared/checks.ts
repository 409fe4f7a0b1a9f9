// Small checks of untrusted JSON values (job files, protocol messages): each says what a value
// must be, or null when it is that. A check carries the type of what passes it (`Check<string>`), so
// that a schema of checks makes the type of what it lets through (`Checked`, `Fields`): no cast and
// no second look after a guard.

import { safeText } from './text.js';

declare const passes: unique symbol;

/** What `v` must be, or null when it is that; what passes it is a T. */
export type Check<T = unknown> = ((v: unknown) => string | null) & { readonly [passes]?: T };

/** The type of what passes a check. */
export type Checked<C> = C extends Check<infer T> ? T : never;

/**
 * The fields a schema (field → check) lets through, each of the type its check passes; those whose
 * check passes undefined may be left out.
 */
export type Fields<S> = {
  [K in keyof S as undefined extends Checked<S[K]> ? never : K]: Checked<S[K]>;
} & {
  [K in keyof S as undefined extends Checked<S[K]> ? K : never]?: Checked<S[K]>;
};

export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value read as a string: itself when it is one, else undefined. */
export const strOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A time read from a record (epoch ms, or a date string): epoch ms, or undefined. */
export function timeOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}
export const str: Check<string> = (v) => (typeof v === 'string' ? null : 'a string');
export const strMax =
  (max: number): Check<string> =>
  (v) =>
    typeof v === 'string' && v.length <= max ? null : `a string of at most ${max} characters`;
export const num: Check<number> = (v) => (typeof v === 'number' && Number.isFinite(v) ? null : 'a number');
export const int =
  (min: number, max: number): Check<number> =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? null
      : `a whole number from ${min} to ${max}`;
export const bool: Check<boolean> = (v) => (typeof v === 'boolean' ? null : 'true or false');
export const orNull =
  <T>(c: Check<T>): Check<T | null> =>
  (v) =>
    v === null ? null : c(v) && `${c(v)} or null`;
export const optional =
  <T>(c: Check<T>): Check<T | undefined> =>
  (v) =>
    v === undefined ? null : c(v);
export const oneOf =
  <V extends string>(...values: V[]): Check<V> =>
  (v) =>
    typeof v === 'string' && values.some((x) => x === v) ? null : `one of ${values.join('|')}`;
export const pattern =
  (re: RegExp, what: string): Check<string> =>
  (v) =>
    typeof v === 'string' && re.test(v) ? null : what;
export const strings: Check<string[]> = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? null : 'a list of strings';
export const stringsMax =
  (max: number): Check<string[]> =>
  (v) =>
    strings(v) === null && (v as string[]).length <= max ? null : `a list of at most ${max} strings`;
/** Lines of plain text: no control character, no line break, no bidi override (what safeText leaves). */
export const plainLines: Check<string[]> = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string' && safeText(x) === x) ? null : 'lines of plain text';
/** One line of plain text (as plainLines). */
export const plainLine: Check<string> = (v) =>
  typeof v === 'string' && safeText(v) === v ? null : 'a line of plain text';
/** One plain line (as plainLine) of at most `max` characters. */
export const plainMax =
  (max: number): Check<string> =>
  (v) =>
    strMax(max)(v) ?? plainLine(v);
/** A list of at most `max` values, each passing `c`. */
export const listOf =
  <T>(c: Check<T>, max: number, what: string): Check<T[]> =>
  (v) =>
    Array.isArray(v) && v.length <= max && v.every((x) => c(x) === null) ? null : what;
/** A table of at most `max` keys, each passing `key`, each value passing `c`. */
export const mapOf =
  <T>(key: Check<string>, c: Check<T>, max: number, what: string): Check<Record<string, T>> =>
  (v) =>
    isObj(v) && Object.keys(v).length <= max && Object.entries(v).every(([k, x]) => key(k) === null && c(x) === null)
      ? null
      : what;
export const stringMap: Check<Record<string, string>> = (v) =>
  isObj(v) && Object.values(v).every((x) => typeof x === 'string') ? null : 'a table of strings';

/** An object whose fields pass their checks (fields not named are let through): of the type they make. */
export const shape =
  <S extends Record<string, Check>>(fields: S, what: string): Check<Fields<S>> =>
  (v) =>
    isObj(v) && Object.entries(fields).every(([k, c]) => c(v[k]) === null) ? null : what;
/**
 * The guard of a record whose fields pass `schema`'s checks: a new object of those fields only (what
 * else the value held is left behind), as their type, or why it is none.
 */
export function recordGuard<S extends Record<string, Check>>(schema: S): (value: unknown) => Fields<S> | string {
  return (value) => {
    if (!isObj(value)) return 'not a JSON object';
    const problem = firstProblem(value, schema);
    if (problem) return problem;
    const only: Record<string, unknown> = {};
    for (const key of Object.keys(schema)) if (key in value) only[key] = value[key];
    return only as Fields<S>;
  };
}

/** Any JSON object (its fields checked later, by what reads them). */
export const object: Check<Record<string, unknown>> = (v) => (isObj(v) ? null : 'an object');

/** The first field of `value` that fails its check, as `field 'x' must be …`; null when all pass. */
export function firstProblem(value: Record<string, unknown>, schema: Record<string, Check>): string | null {
  for (const [field, check] of Object.entries(schema)) {
    const problem = check(value[field]);
    if (problem) return field in value ? `field '${field}' must be ${problem}` : `field '${field}' is missing`;
  }
  return null;
}

/** Whether `v` passes check `c`: the one way a checked value takes its check's type. */
export function holdsCheck<T>(c: Check<T>, v: unknown): v is T {
  return c(v) === null;
}

/** The guard of an object whose fields pass `schema`'s checks: the object as their type, or why it is none. */
export function fieldsGuard<S extends Record<string, Check>>(schema: S): (value: unknown) => Fields<S> | string {
  return (value) => {
    if (!isObj(value)) return 'a table of arguments';
    return firstProblem(value, schema) ?? (value as Fields<S>);
  };
}

/** Each op of `schemas` as the message its checks let through: `{ op, ...its fields }` (`{ type, … }` for events). */
export type MessagesOf<S, K extends string = 'op'> = {
  [Op in keyof S & string]: { [_ in K]: Op } & Fields<S[Op]>;
};

/** A protocol's schemas: for each op (or event type), its fields' checks. */
export type Schemas = Record<string, Record<string, Check>>;

/** Any message of a protocol whose schemas are `S`, typed by its op's checks. */
export type MessageOf<S, K extends string = 'op'> = MessagesOf<S, K>[keyof S & string];

/**
 * The guard of a protocol's messages keyed by field `key`: a message is a JSON object whose `key`
 * names one of `schemas` and whose fields pass that one's checks. Returns the message, typed by its
 * schema, or why the value is none. The one place a value that passed its checks becomes their
 * type: every protocol's types are made by its schemas, none is written beside them.
 */
function guardBy<S extends Schemas, K extends string>(
  key: K,
  schemas: S,
): (value: unknown) => MessageOf<S, K> | string {
  return (value) => {
    if (!isObj(value)) return key === 'op' ? 'a request is a JSON object' : 'a message is a JSON object';
    const name = value[key];
    if (typeof name !== 'string' || !Object.hasOwn(schemas, name)) return `unknown ${key} ${JSON.stringify(name)}`;
    const problem = firstProblem(value, schemas[name] ?? {});
    return problem ? `${name}: ${problem}` : (value as MessageOf<S, K>);
  };
}

/** The guard of requests by their `op` (from Lua, a client, a link). */
export const messageGuard = <S extends Schemas>(schemas: S): ((value: unknown) => MessageOf<S> | string) =>
  guardBy('op', schemas);

/** The guard of events by their `type` (what a peer answers or tells). */
export const eventGuard = <S extends Schemas>(schemas: S): ((value: unknown) => MessageOf<S, 'type'> | string) =>
  guardBy('type', schemas);
