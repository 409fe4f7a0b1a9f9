// `mado route add|ls|rm`: routes between background jobs, kept by the daemon (they work with Neovim
// closed). A route's options are those of :MadoRoute (help madohub-routes), and its words are made by
// the same function (routeOptionWords).
import path from 'node:path';
import { answerMs, askOrSay } from '../jobs/client/daemon.js';
import type { Io } from '../jobs/client/daemon.js';
import { findOnHost } from '../jobs/client/host-links.js';
import { resolveId } from '../jobs/client/jobs.js';
import { ROUTE_OPTIONS } from '../jobs/protocol/daemon-requests.js';
import { readHosts } from '../jobs/remote/hosts.js';
import { routeOptionWords } from '../routes/command.js';
import { parseArgs } from '../shared/args.js';
import { bool, oneOf, optional, plainLines, shape, strMax } from '../shared/checks.js';
import { UsageError } from '../shared/errors.js';
import { fileId, jobId } from '../shared/fleet-id.js';
import { daemonRoutes } from '../shared/route-check.js';
import type { Route } from '../shared/route-types.js';
import { safeText } from '../shared/text.js';
import { defineOp } from './op.js';
import type { OpContext } from './op.js';

/** What `mado route` does: add a route, list them, remove one. */
const ACTIONS = ['add', 'ls', 'rm'] as const;

/** How long the daemon may take to answer (it may be starting). */
const ROUTE_MS = 5000;

/** The daemon's routes (and what it could not take from routes.json) after asking it `message`. */
async function askRoutes(io: Io, message: object): Promise<{ routes: Route[]; problems: string[] }> {
  // An error reply is thrown by askOrSay().
  const reply = await askOrSay(io, message, answerMs(io.env, ROUTE_MS));
  return reply.type === 'routes'
    ? { routes: reply.routes, problems: (reply.problems ?? []).map(safeText) }
    : { routes: [], problems: [] };
}

/**
 * A route's end as a user named it: a job's id, prefix or name, (a target) file:PATH, or (a target)
 * HOST:ID, a job of a remote host of hosts.json, found in its list; with its name for a target.
 */
async function endOf(
  io: Io,
  cwd: string | undefined,
  what: string,
  role: 'source' | 'target',
): Promise<{ id: string; name?: string }> {
  if (what.startsWith('file:')) {
    if (role === 'source') throw new UsageError('a file is no source');
    return { id: fileId(path.resolve(cwd ?? process.cwd(), what.slice(5))) };
  }
  const remote = /^([^:]+):(.+)$/.exec(what);
  const host = remote?.[1];
  if (remote && host !== undefined && readHosts(io.env).hosts.has(host)) {
    if (role === 'source')
      throw new UsageError("a remote host's job is no source of a route here (add the route on that host)");
    const job = await findOnHost(io, host, remote[2] ?? '');
    return { id: jobId(job.short, host), name: `${host}:${job.name}` };
  }
  return { id: jobId(resolveId(io, what)) };
}

/** One route as a line of `mado route ls`. */
export function routeLine(r: Route): string {
  return safeText(`${r.id}  ${r.source} → ${r.targetName || r.target}  ${routeOptionWords(r)}`);
}

export const route = defineOp({
  name: 'route',
  usage:
    'route add [--on done|turn|waiting] [--send last|diff|screen] [--template NAME] [--hops N] [--once] SOURCE TARGET | route ls [--json] | route rm ID',
  summary:
    "When job SOURCE ends a turn, hand its result to job TARGET (a job of this machine, HOST:ID of another, or file:PATH): kept by the daemon, with Neovim closed too. ls lists the daemon's routes (--json: as JSON), rm removes one.",
  args: {
    action: oneOf(...ACTIONS),
    source: optional(strMax(4096)),
    target: optional(strMax(4096)),
    ...ROUTE_OPTIONS,
    id: optional(strMax(16)),
    json: optional(bool),
  },
  result: shape(
    { action: oneOf(...ACTIONS), routes: daemonRoutes, problems: plainLines, id: optional(strMax(16)) },
    '{ action, routes, problems, id? }',
  ),
  fromArgv: (argv) => {
    const [action, ...rest] = argv;
    switch (action) {
      case 'add': {
        const args = parseArgs(
          rest,
          [
            { names: ['--on'], value: true },
            { names: ['--send'], value: true },
            { names: ['--template'], value: true },
            { names: ['--hops'], value: true },
            { names: ['--once'] },
          ],
          ['SOURCE', 'TARGET'],
        );
        const hops = args.flags.get('--hops');
        if (hops !== undefined && !/^\d{1,3}$/.test(hops))
          throw new UsageError(`--hops needs a number, not '${safeText(hops).slice(0, 20)}'`);
        const given = (flag: string, key: string) => {
          const value = args.flags.get(flag);
          return value === undefined ? {} : { [key]: value };
        };
        return {
          action,
          source: args.positional[0] ?? '',
          target: args.positional[1] ?? '',
          ...given('--on', 'on'),
          ...given('--send', 'send'),
          ...given('--template', 'template'),
          ...(hops === undefined ? {} : { hops: Number(hops) }),
          ...(args.flags.has('--once') ? { once: true } : {}),
        };
      }
      case 'ls':
        return { action, json: parseArgs(rest, [{ names: ['--json'] }], []).flags.has('--json') };
      case 'rm':
        return { action, id: parseArgs(rest, [], ['ID']).positional[0] ?? '' };
      default:
        throw new UsageError(
          action === undefined
            ? 'mado route needs add, ls or rm'
            : `unknown route command '${safeText(action)}' (add, ls, rm)`,
        );
    }
  },
  run: (ctx, args) => act(ctx, args),
  print: async (ctx, args) => {
    const done = await act(ctx, args);
    // What the daemon could not take from routes.json is said each time it lists them (on standard error).
    if (done.action === 'ls') for (const p of done.problems) ctx.io.err(`mado route: ${p}\n`);
    ctx.io.out(args.json === true ? `${JSON.stringify(done.routes)}\n` : shown(done));
  },
  show: shown,
});

/** What `mado route` did: its action, the routes it touched or listed, and what the daemon could not read. */
interface RouteDone {
  action: (typeof ACTIONS)[number];
  routes: Route[];
  problems: string[];
  id?: string;
}

/** Does what the arguments say, through the daemon. */
async function act(
  { io, cwd }: OpContext,
  args: {
    action: RouteDone['action'];
    source?: string;
    target?: string;
    on?: string;
    send?: string;
    template?: string;
    hops?: number;
    once?: boolean;
    id?: string;
  },
): Promise<RouteDone> {
  switch (args.action) {
    case 'add': {
      if (!args.source || !args.target) throw new UsageError('route add needs a SOURCE and a TARGET');
      const source = (await endOf(io, cwd, args.source, 'source')).id;
      const target = await endOf(io, cwd, args.target, 'target');
      const { routes, problems } = await askRoutes(io, {
        op: 'route-add',
        source,
        target: target.id,
        ...(target.name ? { targetName: target.name.slice(0, 200) } : {}),
        on: args.on,
        send: args.send,
        template: args.template,
        hops: args.hops,
        once: args.once,
      });
      return { action: args.action, routes, problems };
    }
    case 'ls':
      return { action: args.action, ...(await askRoutes(io, { op: 'route-list' })) };
    case 'rm': {
      if (!args.id) throw new UsageError('route rm needs a route ID');
      await askRoutes(io, { op: 'route-remove', id: args.id });
      return { action: args.action, routes: [], problems: [], id: args.id };
    }
  }
}

/** What it did, in words. */
function shown(done: RouteDone): string {
  switch (done.action) {
    case 'add':
      return done.routes[0] ? `route ${routeLine(done.routes[0])}\n` : '';
    case 'ls':
      return done.routes.length === 0 ? 'no routes\n' : done.routes.map((r) => `${routeLine(r)}\n`).join('');
    case 'rm':
      return `removed route ${safeText(done.id ?? '')}\n`;
  }
}
