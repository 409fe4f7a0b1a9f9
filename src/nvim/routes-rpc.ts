// The routes of this Neovim, wired: the engine and its backend, what sets them off (a terminal's
// finished turn from the tracker, a job's from the fleet), and what the Lua side asks of them.
import path from 'node:path';
import type { NeovimClient } from 'neovim';
import type { Io } from '../jobs/client/jobs.js';
import type { FleetHub } from '../fleet/hub.js';
import { isObj } from '../shared/checks.js';
import type { TerminalWatchers } from '../state/terminal-watchers.js';
import { DEFAULT_SETTINGS, RouteEngine } from '../routes/engine.js';
import type { RouteRequest, RouteSettings } from '../routes/engine.js';
import { NeovimRouteBackend } from './route-backend.js';
import { closesCycle } from '../routes/chain.js';
import { NEOVIM_ENDS, readRoutes, routeOf } from '../routes/store.js';
import type { Route } from '../shared/route-types.js';
import { ask } from '../jobs/client/daemon.js';
import { jobsDir } from '../jobs/store.js';
import type { StateChange } from '../state/tracker.js';

/** The `mado` script beside this bundle, which starts the daemon when a job is asked for. */
const MADO = path.resolve(__dirname, '..', '..', '..', 'bin', 'mado');

const ROUTES = 'require("madohub.routes")';
/** The ends of a route the daemon keeps. */
const DAEMON_SOURCE = /^job:[0-9a-f]{8}$/;
const DAEMON_TARGET = /^(?:job:[0-9a-f]{8}|file:\/.*)$/;

export interface RoutesRpc {
  /** Answers a request of the Lua side about routes; undefined when `method` is none of theirs. */
  request(method: string, args: unknown[]): Promise<unknown> | undefined;
  /** Takes a notification of the Lua side about routes; false when `method` is none of theirs. */
  notify(method: string, item: unknown): boolean;
  /** Terminals' state changes: finished turns set routes off. */
  changes(changes: readonly StateChange[]): void;
}

/** The settings Lua sends (`routes` in setup()), checked; the defaults where a value is missing or wrong. */
function settingsOf(v: unknown): RouteSettings {
  if (!isObj(v)) return DEFAULT_SETTINGS;
  const templates: Record<string, string> = {};
  if (isObj(v.templates)) for (const [k, t] of Object.entries(v.templates)) if (typeof t === 'string' && /^[\w-]{1,40}$/.test(k)) templates[k] = t.slice(0, 16 * 1024);
  const int = (x: unknown, min: number, max: number, d: number): number => (typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max ? x : d);
  return {
    templates,
    maxBytes: int(v.max_bytes, 256, 1024 * 1024, DEFAULT_SETTINGS.maxBytes),
    busyMs: int(v.busy_ms, 1000, 24 * 3600 * 1000, DEFAULT_SETTINGS.busyMs),
  };
}

export function routesRpc(nvim: NeovimClient, hub: FleetHub, watchers: TerminalWatchers): RoutesRpc {
  const lua = (fn: string, args: unknown[]): void => {
    nvim.notify('nvim_exec_lua', [`${ROUTES}.${fn}(...)`, args]);
  };
  // Every route Lua shows: this Neovim's, and the daemon's (read from its file: no daemon is woken).
  // Each says who keeps it: Lua gives this Neovim's back to a Node process that starts again.
  const all = (): (Route & { keeper: 'neovim' | 'daemon' })[] => [
    ...engine.list().map((r) => ({ ...r, keeper: 'neovim' as const })),
    ...readRoutes(jobsDir()).map((r) => ({ ...r, keeper: 'daemon' as const })),
  ];
  const push = (): void => lua('apply', [all()]);
  const io: Io = { out: () => undefined, err: () => undefined, stdin: async () => undefined, env: process.env, script: MADO };
  const backend = new NeovimRouteBackend(
    hub,
    watchers,
    {
      append: async (buf, lines) => {
        const why: unknown = await nvim.request('nvim_exec_lua', [`return ${ROUTES}.append(...)`, [buf, lines]]);
        return typeof why === 'string' ? why : '';
      },
      review: (id, route, text) => lua('review', [id, route, text]),
      event: (kind, data) => lua('event', [kind, data]),
      say: (message, warn) => lua('say', [message, warn]),
      routes: () => push(),
    },
    io,
  );
  const engine = new RouteEngine(backend);
  const finished = (id: string, how: 'done' | 'failed' | 'waiting'): void => void engine.finished(id, how);
  hub.onJobState = (id, from, to) => {
    if (to === 'stopped' || to === 'completed') finished(id, 'done');
    else if (to === 'failed') finished(id, 'failed');
    else if (to === 'waiting' && from !== 'waiting') finished(id, 'waiting');
  };
  hub.onGone = (id) => engine.gone(id);
  hub.onReplyExpired = (buf) => {
    const name = hub.all().find((e) => e.id === `term:${buf}`)?.name ?? `buffer ${buf}`;
    lua('say', [`${name} stayed busy: the text routed to it was dropped (routes.busy_ms)`, true]);
  };

  return {
    request(method, args) {
      switch (method) {
        case 'route_add': {
          const req = isObj(args[0]) ? args[0] : {};
          const settings = settingsOf(args[1]);
          engine.configure(settings);
          const r: RouteRequest = {
            source: typeof req.source === 'string' ? req.source : '',
            target: typeof req.target === 'string' ? req.target : '',
            targetName: typeof req.target_name === 'string' ? req.target_name : undefined,
            on: typeof req.on === 'string' ? req.on : undefined,
            send: typeof req.send === 'string' ? req.send : undefined,
            template: typeof req.template === 'string' ? req.template : undefined,
            hops: typeof req.hops === 'number' ? req.hops : undefined,
            once: req.once === true,
            review: req.review === true,
          };
          // Between jobs (or from a job to a file): the daemon keeps it, so that it works with Neovim closed.
          if (DAEMON_SOURCE.test(r.source) && DAEMON_TARGET.test(r.target) && !r.review) {
            // One chain across both places: the daemon sees only its own routes, this side sees both.
            if (r.hops === undefined && closesCycle([...engine.list(), ...readRoutes(jobsDir())], r)) {
              return Promise.resolve({ error: `this route closes a cycle (${r.target} leads back to ${r.source} through this Neovim's routes); give hops= to allow it` });
            }
            return ask(io, { op: 'route-add', ...r, once: r.once || undefined, templates: settings.templates }, 5000).then(
              (reply) => {
                push();
                return reply.type === 'routes' ? { route: reply.routes[0] } : { error: 'the daemon answered no route' };
              },
              (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
            );
          }
          try {
            return Promise.resolve({ route: engine.add(r) });
          } catch (err) {
            return Promise.resolve({ error: err instanceof Error ? err.message : String(err) });
          }
        }
        case 'route_list':
          return Promise.resolve(all());
        default:
          return undefined;
      }
    },
    notify(method, item) {
      const m = isObj(item) ? item : {};
      switch (method) {
        case 'route_rm':
          if (typeof m.id === 'string' && !engine.remove(m.id)) {
            // Not this Neovim's: the daemon's.
            ask(io, { op: 'route-remove', id: m.id }, 5000).then(
              () => push(),
              (err: unknown) => lua('say', [err instanceof Error ? err.message : String(err), true]),
            );
          }
          return true;
        case 'route_restore': {
          // This Neovim's routes, as Lua kept them, back after the Node process started again.
          const list = Array.isArray(m.routes) ? m.routes : [];
          engine.restore(list.map((v) => routeOf(v, NEOVIM_ENDS)).filter((r): r is Route => r !== undefined));
          push();
          return true;
        }
        case 'route_clear':
          engine.clear();
          push();
          return true;
        case 'route_pause':
          engine.pause(m.paused === true);
          return true;
        case 'route_review':
          if (typeof m.review === 'number') backend.reviewed(m.review, typeof m.text === 'string' ? m.text : null);
          return true;
        case 'route_gone':
          if (typeof m.target === 'string') engine.gone(m.target);
          return true;
        case 'user_input':
          // The user typed into an entry (Terminal mode) or replied to it: a new chain starts there.
          if (typeof m.id === 'string') engine.userInput(m.id);
          return true;
        default:
          return false;
      }
    },
    changes(changes) {
      for (const c of changes) {
        const id = `term:${c.buf}`;
        if (c.done) finished(id, 'done');
        else if (c.state === 'failed' && c.previous !== 'failed') finished(id, 'failed');
        if (c.state === 'waiting' && c.previous !== 'waiting') finished(id, 'waiting');
      }
    },
  };
}
