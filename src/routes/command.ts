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

export const ROUTE_USAGE =
  ':MadoRoute {target} | {source} {target} [on= send= template= hops= once review] | list | clear | pause | resume | rm {id}';

const VALUED = ['on', 'send', 'template', 'hops'] as const;
const FLAGS = ['once', 'review'] as const;

const error = (message: string): RouteCommand => ({ kind: 'error', message });

const isFlag = (word: string): word is (typeof FLAGS)[number] => (FLAGS as readonly string[]).includes(word);

/** The option a word of `:MadoRoute` gives (`on` of `on=done`, a flag's own name), or undefined for an end. */
function optionOf(word: string): string | undefined {
  return /^(\w+)=/.exec(word)?.[1] ?? (isFlag(word) ? word : undefined);
}

/** Reads the words of `:MadoRoute`. */
export function parseRouteCommand(args: readonly string[]): RouteCommand {
  const [sub, ...rest] = args;
  if (sub === undefined) return error(`usage: ${ROUTE_USAGE}`);
  if ((sub === 'list' || sub === 'clear' || sub === 'pause' || sub === 'resume') && rest.length === 0)
    return { kind: sub };
  if (sub === 'rm' && rest.length === 1) return { kind: 'rm', id: rest[0]! };
  const ends: string[] = [];
  const options: RouteOptions = {};
  for (const word of args) {
    const key = optionOf(word);
    if (key === undefined) ends.push(word);
    else if (isFlag(word)) options[word] = true;
    else {
      const value = word.slice(key.length + 1);
      if (!(VALUED as readonly string[]).includes(key))
        return error(`unknown option ${key.slice(0, 20)}= (on=, send=, template=, hops=, once, review)`);
      if (key === 'hops') {
        if (!/^\d{1,9}$/.test(value)) return error(`hops=${value.slice(0, 20)} is no number`);
        options.hops = Number(value);
      } else options[key as 'on' | 'send' | 'template'] = value;
    }
  }
  if (ends.length < 1 || ends.length > 2) return error('name a target, or a source and a target');
  return ends.length === 2
    ? { kind: 'add', source: ends[0], target: ends[1]!, options }
    : { kind: 'add', target: ends[0]!, options };
}

const SUBCOMMANDS = ['list', 'clear', 'pause', 'resume', 'rm'] as const;

/** An agent a route could name, as completion weighs it. */
export interface RouteEndChoice {
  id: string;
  name: string;
  /** On a remote host: a target only. */
  remote: boolean;
  /** Its program ended (an exited terminal, a job whose host is gone): no route to or from it works. */
  ended: boolean;
}

/** Where `:MadoRoute`'s completion is: the words typed before the one being completed, and that one's start. */
export interface RouteCompletionAt {
  before: readonly string[];
  lead: string;
}

/**
 * The words that complete `:MadoRoute`'s argument at `at`, only those that can work there: a
 * subcommand first; after `rm` a route's id; the ends (a source, then a target: a remote host's job
 * is a target only, an ended agent neither; a name two agents share names none) until two are given;
 * then the options not given yet. `templates`: the user's; `routeIds`: the routes there are.
 */
export function routeCompletion(
  at: RouteCompletionAt,
  ends: readonly RouteEndChoice[],
  templates: readonly string[],
  routeIds: readonly string[],
): string[] {
  const { before, lead } = at;
  const first = before[0];
  const words = ((): string[] => {
    if (first !== undefined && (SUBCOMMANDS as readonly string[]).includes(first))
      return first === 'rm' && before.length === 1 ? [...routeIds] : [];
    const given = new Set(before.map(optionOf));
    const options = [
      ...(given.has('on') ? [] : ROUTE_ONS.map((o) => `on=${o}`)),
      ...(given.has('send') ? [] : ROUTE_SENDS.map((v) => `send=${v}`)),
      ...(given.has('template') ? [] : [...Object.keys(BUILTIN_TEMPLATES), ...templates].map((t) => `template=${t}`)),
      ...(given.has('hops') ? [] : ['hops=']),
      ...FLAGS.filter((f) => !given.has(f)),
    ];
    const typed = before.filter((w) => optionOf(w) === undefined);
    // Two ends given, or one that is a remote host's job (a target only: no source precedes it).
    if (
      typed.length >= 2 ||
      (typed.length === 1 && ends.some((e) => e.remote && (e.id === typed[0] || e.name === typed[0])))
    )
      return options;
    const shared = new Map<string, number>();
    for (const e of ends) shared.set(e.name, (shared.get(e.name) ?? 0) + 1);
    const named = (e: RouteEndChoice): string[] => [
      e.id,
      ...(e.name !== '' && shared.get(e.name) === 1 && !/[\s\p{Cc}]/u.test(e.name) ? [e.name] : []),
    ];
    const live = ends.filter((e) => !e.ended);
    // The first end is a source, or the target alone (`:MadoRoute critic`): any live agent; the second a target.
    const agents = live.flatMap(named);
    return [...(first === undefined ? SUBCOMMANDS : []), ...agents, 'file:', ...options];
  })();
  return words.filter((w) => w.startsWith(lead));
}

/**
 * The words typed before the one at the cursor of a command line (`MadoRoute a b c`, cut at the cursor),
 * and that one.
 */
export function completionAt(line: string): RouteCompletionAt {
  const words = line.split(/\s+/);
  const lead = words.pop() ?? '';
  // The command's own name (as typed: `MadoR`, `:MadoRoute!`) is no argument.
  return { before: words.slice(1).filter((w) => w !== ''), lead };
}

/** A route's options as words (`on=done send=last hops=3 template=review once`), for its line in a list. */
export function routeOptionWords(r: {
  on: string;
  send: string;
  hops: number;
  template: string;
  once: boolean;
  review: boolean;
  paused: boolean;
}): string {
  return [
    `on=${r.on}`,
    `send=${r.send}`,
    `hops=${r.hops}`,
    ...(r.template ? [`template=${r.template}`] : []),
    ...(r.once ? ['once'] : []),
    ...(r.review ? ['review'] : []),
    ...(r.paused ? ['paused'] : []),
  ].join(' ');
}
