// Small checks of untrusted JSON values (job files, protocol messages): each says what a value
// must be, or null when it is that. A check carries the type of what passes it (`Check<string>`), so
// that a schema of checks makes the type of what it lets through (`Checked`, `Fields`): no cast and
// no second look after a guard.

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
export const stringMap: Check<Record<string, string>> = (v) =>
  isObj(v) && Object.values(v).every((x) => typeof x === 'string') ? null : 'a table of strings';

/** An object whose fields pass their checks (fields not named are let through). */
export const shape =
  (fields: Record<string, Check>, what: string): Check =>
  (v) =>
    isObj(v) && Object.entries(fields).every(([k, c]) => c(v[k]) === null) ? null : what;

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

/** Each op of `schemas` as the message its checks let through: `{ op, ...its fields }`. */
export type MessagesOf<S> = { [Op in keyof S & string]: { op: Op } & Fields<S[Op]> };

/**
 * The guard of messages by their `op` (a schema of checks for each): the message, typed by its op's
 * schema, or why the value is none. The one place a value that passed its checks becomes their type.
 */
export function messageGuard<S extends Record<string, Record<string, Check>>>(
  schemas: S,
): (value: unknown) => MessagesOf<S>[keyof S & string] | string {
  const guard = requestGuard<MessagesOf<S>[keyof S & string]>(schemas);
  return guard;
}

/**
 * The guard of a protocol's requests: a request is a JSON object whose `op` names one of `schemas`
 * and whose fields pass that op's checks. Returns the request, or why the value is none.
 */
export function requestGuard<R extends { op: string }>(
  schemas: Record<R['op'], Record<string, Check>>,
): (value: unknown) => R | string {
  return (value) => {
    if (!isObj(value)) return 'a request is a JSON object';
    const op = value.op;
    if (typeof op !== 'string' || !Object.hasOwn(schemas, op)) return `unknown op ${JSON.stringify(op)}`;
    const problem = firstProblem(value, schemas[op as R['op']]);
    return problem ? `${op}: ${problem}` : (value as unknown as R);
  };
}
