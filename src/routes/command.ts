// `:MadoRoute …` as the user typed it: its subcommand, or the ends and options of a new route. Pure:
// the one parser of a route's options (the CLI's `mado route add` takes the same as flags).
import { ROUTE_ONS, ROUTE_SENDS } from '../shared/route-types.js';
import type { RouteRequest } from '../shared/route-types.js';
import { BUILTIN_TEMPLATES } from './payload.js';

/**
 * The options of a route as words: `on=`, `send=`, `template=`, `hops=` take a value; `once`,
 * `review` stand alone. Their values are the engine's to check (RouteEngine.add), as for every route.
 */
export type RouteOptions = Pick<RouteRequest, 'on' | 'send' | 'template' | 'hops' | 'once' | 'review'>;

export type RouteCommand =
  | { kind: 'list' | 'clear' | 'pause' | 'resume' }
  | { kind: 'rm'; id: string }
  /** A source (undefined: the current buffer) and a target, each as the user named it. */
  | { kind: 'add'; source?: string; target: string; options: RouteOptions }
  | { kind: 'error'; message: string };

export const ROUTE_USAGE = ':MadoRoute {target} | {source} {target} [on= send= template= hops= once review] | list | clear | pause | resume | rm {id}';

const VALUED = ['on', 'send', 'template', 'hops'] as const;
const FLAGS = ['once', 'review'] as const;

const error = (message: string): RouteCommand => ({ kind: 'error', message });

/** Reads the words of `:MadoRoute`. */
export function parseRouteCommand(args: readonly string[]): RouteCommand {
  const [sub, ...rest] = args;
  if (sub === undefined) return error(`usage: ${ROUTE_USAGE}`);
  if ((sub === 'list' || sub === 'clear' || sub === 'pause' || sub === 'resume') && rest.length === 0) return { kind: sub };
  if (sub === 'rm' && rest.length === 1) return { kind: 'rm', id: rest[0]! };
  const ends: string[] = [];
  const options: RouteOptions = {};
  for (const word of args) {
    const m = /^(\w+)=(.*)$/.exec(word);
    if (m) {
      const [, key, value] = m as unknown as [string, string, string];
      if (!(VALUED as readonly string[]).includes(key)) return error(`unknown option ${key.slice(0, 20)}= (on=, send=, template=, hops=, once, review)`);
      if (key === 'hops') {
        if (!/^\d{1,9}$/.test(value)) return error(`hops=${value.slice(0, 20)} is no number`);
        options.hops = Number(value);
      } else options[key as 'on' | 'send' | 'template'] = value;
    } else if ((FLAGS as readonly string[]).includes(word)) {
      options[word as (typeof FLAGS)[number]] = true;
    } else ends.push(word);
  }
  if (ends.length < 1 || ends.length > 2) return error('name a target, or a source and a target');
  return ends.length === 2 ? { kind: 'add', source: ends[0], target: ends[1]!, options } : { kind: 'add', target: ends[0]!, options };
}

/** The words that complete `:MadoRoute`'s arguments (the subcommands and options; the ends are the fleet's); `templates`: the user's. */
export function routeWords(templates: readonly string[]): string[] {
  return [
    'list', 'clear', 'pause', 'resume', 'rm',
    ...ROUTE_ONS.map((o) => `on=${o}`),
    ...ROUTE_SENDS.map((s) => `send=${s}`),
    ...[...Object.keys(BUILTIN_TEMPLATES), ...templates].map((t) => `template=${t}`),
    'hops=', ...FLAGS, 'file:',
  ];
}

/** A route's options as words (`on=done send=last hops=3 template=review once`), for its line in a list. */
export function routeOptionWords(r: { on: string; send: string; hops: number; template: string; once: boolean; review: boolean; paused: boolean }): string {
  return [`on=${r.on}`, `send=${r.send}`, `hops=${r.hops}`, ...(r.template ? [`template=${r.template}`] : []), ...(r.once ? ['once'] : []), ...(r.review ? ['review'] : []), ...(r.paused ? ['paused'] : [])].join(' ');
}
