// `mado route add|ls|rm`: routes between background jobs, kept by the daemon (they work with Neovim
// closed). A route's options are those of :MadoRoute (help madohub-routes).
import path from 'node:path';
import { routeOptionWords } from '../routes/command.js';
import type { Route } from '../shared/route-types.js';
import { parseArgs, safeText } from '../shared/args.js';
import { answerMs, askOrSay } from '../jobs/client/daemon.js';
import type { Io } from '../jobs/client/daemon.js';
import { UsageError } from '../shared/errors.js';
import { resolveId } from '../jobs/client/jobs.js';
import { readHosts } from '../jobs/remote/hosts.js';
import { findOnHost } from './remote.js';
import { fileId, jobId } from '../shared/fleet-id.js';

async function askDaemon(io: Io, message: object): Promise<Route[]> {
  return (await askRoutes(io, message)).routes;
}

async function askRoutes(io: Io, message: object): Promise<{ routes: Route[]; problems: string[] }> {
  // An error reply is thrown by ask().
  const reply = await askOrSay(io, message, answerMs(io.env, 5000));
  return reply.type === 'routes'
    ? { routes: reply.routes, problems: reply.problems ?? [] }
    : { routes: [], problems: [] };
}

/**
 * A route's end named on the command line: a job's id, prefix or name, (a target) file:PATH, or (a
 * target) HOST:ID, a job of a remote host of hosts.json, found in its list; with its name for a target.
 */
async function endOf(io: Io, what: string, role: 'source' | 'target'): Promise<{ id: string; name?: string }> {
  if (what.startsWith('file:')) {
    if (role === 'source') throw new UsageError('a file is no source');
    return { id: fileId(path.resolve(what.slice(5))) };
  }
  const remote = /^([^:]+):(.+)$/.exec(what);
  if (remote && readHosts(io.env).hosts.has(remote[1]!)) {
    if (role === 'source')
      throw new UsageError("a remote host's job is no source of a route here (add the route on that host)");
    const job = await findOnHost(io, remote[1]!, remote[2]!);
    return { id: jobId(job.short, remote[1]), name: `${remote[1]}:${job.name}` };
  }
  return { id: jobId(resolveId(io, what)) };
}

/** One route as a line of `mado route ls`. */
export function routeLine(r: Route): string {
  return safeText(`${r.id}  ${r.source} → ${r.targetName || r.target}  ${routeOptionWords(r)}`);
}

export async function routeVerb(io: Io, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  switch (sub) {
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
      const source = (await endOf(io, args.positional[0]!, 'source')).id;
      const target = await endOf(io, args.positional[1]!, 'target');
      const [route] = await askDaemon(io, {
        op: 'route-add',
        source,
        target: target.id,
        ...(target.name ? { targetName: target.name.slice(0, 200) } : {}),
        on: args.flags.get('--on'),
        send: args.flags.get('--send'),
        template: args.flags.get('--template'),
        hops: hops === undefined ? undefined : Number(hops),
        once: args.flags.has('--once') || undefined,
      });
      io.out(route ? `route ${routeLine(route)}\n` : '');
      return;
    }
    case 'ls': {
      const args = parseArgs(rest, [{ names: ['--json'] }], []);
      const { routes, problems } = await askRoutes(io, { op: 'route-list' });
      if (args.flags.has('--json')) io.out(`${JSON.stringify(routes)}\n`);
      else io.out(routes.length === 0 ? 'no routes\n' : routes.map((r) => `${routeLine(r)}\n`).join(''));
      // What the daemon could not take from routes.json is said each time (on standard error).
      for (const p of problems) io.err(`mado route: ${safeText(p)}\n`);
      return;
    }
    case 'rm': {
      const args = parseArgs(rest, [], ['ID']);
      await askDaemon(io, { op: 'route-remove', id: args.positional[0]! });
      io.out(`removed route ${safeText(args.positional[0]!)}\n`);
      return;
    }
    default:
      throw new UsageError(
        sub === undefined ? 'mado route needs add, ls or rm' : `unknown route command '${safeText(sub)}' (add, ls, rm)`,
      );
  }
}
