// What the Lua side sends about routes, checked field by field: the settings (`routes` in setup()),
// a route's options and ends as the user gave them, and `:MadoRoute`'s words.
import { isObj } from '../shared/checks.js';
import { DEFAULT_SETTINGS } from '../routes/engine.js';
import type { RouteSettings } from '../routes/engine.js';
import type { RouteOptions } from '../routes/command.js';

/** The most words of one `:MadoRoute` taken. */
const MAX_WORDS = 20;

/** The settings Lua sends (`routes` in setup()), checked; the defaults where a value is missing or wrong. */
export function settingsOf(v: unknown): RouteSettings {
  if (!isObj(v)) return DEFAULT_SETTINGS;
  const templates: Record<string, string> = {};
  if (isObj(v.templates))
    for (const [k, t] of Object.entries(v.templates))
      if (typeof t === 'string' && /^[\w-]{1,40}$/.test(k)) templates[k] = t.slice(0, 16 * 1024);
  const int = (x: unknown, min: number, max: number, d: number): number =>
    typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max ? x : d;
  return {
    templates,
    maxBytes: int(v.maxBytes, 256, 1024 * 1024, DEFAULT_SETTINGS.maxBytes),
    busyMs: int(v.busyMs, 1000, 24 * 3600 * 1000, DEFAULT_SETTINGS.busyMs),
  };
}

/** `madohub.route()`'s options, each kept only with its type (the engine checks their values). */
export function optionsOf(v: unknown): RouteOptions {
  const opts = isObj(v) ? v : {};
  return {
    on: typeof opts.on === 'string' ? opts.on : undefined,
    send: typeof opts.send === 'string' ? opts.send : undefined,
    template: typeof opts.template === 'string' ? opts.template : undefined,
    hops: typeof opts.hops === 'number' ? opts.hops : undefined,
    once: opts.once === true,
    review: opts.review === true,
  };
}

/** An end as the user named it: a name or id, or a buffer number. */
export const endArg = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' && Number.isInteger(v) ? String(v) : undefined;

/** `:MadoRoute`'s words as typed (strings only, bounded). */
export const commandWords = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((a): a is string => typeof a === 'string').slice(0, MAX_WORDS) : [];
