// The routes of this Neovim, wired: the engine and its backend, what sets them off (a terminal's
// finished turn from the tracker, a job's from the fleet), and what the Lua side asks of them.
import path from 'node:path';
import { MADO } from './mado-script.js';
import type { NeovimClient } from 'neovim';
import { quietIo } from '../jobs/client/daemon.js';
import type { FleetHub } from '../fleet/hub.js';
import type { FromLua } from './from-lua.js';
import type { TerminalWatchers } from '../state/terminal-watchers.js';
import { RouteEngine } from '../routes/engine.js';
import type { RouteRequest, RouteSettings } from '../routes/engine.js';
import { NeovimRouteBackend } from './route-backend.js';
import { closesCycle } from '../routes/chain.js';
import { completionAt, parseRouteCommand, routeCompletion, routeOptionWords } from '../routes/command.js';
import { commandWords, endArg, optionsOf, settingsOf } from './route-args.js';
import type { RouteCommand, RouteOptions } from '../routes/command.js';
import { resolveEnd, targetName } from './route-ends.js';
import type { ListedRoute, LuaWire } from './lua-wire.js';
import type { BufferFacts, EndContext } from './route-ends.js';
import { readRoutes } from '../routes/store.js';
import { DAEMON_ENDS, NEOVIM_ENDS, routeOf } from '../shared/route-check.js';
import type { Route } from '../shared/route-types.js';
import { ask } from '../jobs/client/daemon.js';
import { jobsDir } from '../jobs/store.js';
import type { StateChange } from '../state/tracker.js';
import { idIsOf, SHORT_ID, termId } from '../shared/fleet-id.js';

/** The `mado` script beside this bundle, which starts the daemon when a job is asked for. */

/** What the Lua side asks of routes, each with its op's message as its guard let it through. */
export interface RoutesRpc {
  /** `madohub.route(source, target, opts)`: the ends as the user named them, made ids here. */
  add(m: FromLua<'route_add'>): Promise<unknown>;
  /** `:MadoRoute …` as typed: parsed here, and done; Lua shows what it answers. */
  command(m: FromLua<'route_command'>): Promise<unknown>;
  /** What can follow the words before the cursor of `:MadoRoute`. */
  complete(m: FromLua<'route_complete'>): Promise<string[]>;
  /** Every route, this Neovim's and the daemon's. */
  list(): ListedRoute[];
  /** Removes a route: this Neovim's, else the daemon's. */
  remove(id: string): void;
  /** This Neovim's routes, as Lua kept them, back after the Node process started again. */
  restore(routes: unknown[]): void;
  /** The user's word on a delivery held for review (`null`: dropped). */
  reviewed(review: number, text: string | null): void;
  /** A route's target is gone (its buffer wiped). */
  gone(target: string): void;
  /** The user typed into an entry (Terminal mode) or replied to it: a new chain starts there. */
  userInput(id: string): void;
  /** Terminals' state changes: finished turns set routes off. */
  changes(changes: readonly StateChange[]): void;
}

/** A route as Lua lists it: who keeps it (Lua gives this Neovim's back to a Node process that starts again). */
const listed = (r: Route, keeper: 'neovim' | 'daemon'): ListedRoute => ({
  ...r,
  keeper,
  options: routeOptionWords(r),
});

/** What `:MadoRoute` answers: words to say (an error's too), the list to open, or the route made. */
type CommandAnswer = { message: string; error?: true } | { list: true } | { route: ListedRoute };

/** This Neovim's routes: its engine and backend, and what the Lua side asks of them. */
export class NeovimRoutes implements RoutesRpc {
  private readonly io = quietIo(process.env, MADO);
  private readonly backend: NeovimRouteBackend;
  private readonly engine: RouteEngine;
  /** What Neovim says of its buffers, asked of its API (Lua keeps no rule of route ends). */
  private readonly buffers: BufferFacts;

  /** `delivered`: told of each delivery's target (its turn is the route's business: see Attention). */
  constructor(
    nvim: NeovimClient,
    private readonly lua: LuaWire,
    private readonly hub: FleetHub,
    watchers: TerminalWatchers,
    delivered: (target: string) => void = () => undefined,
  ) {
    this.backend = new NeovimRouteBackend(
      hub,
      watchers,
      {
        append: async (buf, lines) => {
          const why = await lua.ask({ type: 'append', buf, lines });
          return typeof why === 'string' ? why : '';
        },
        review: (review, route, text) => lua.send({ type: 'review', review, route, text }),
        event: (kind, data) => {
          if (kind === 'fired' && 'target' in data && typeof data.target === 'string') delivered(data.target);
          lua.send({ type: 'route_event', kind, data });
        },
        say: (message, warn) => lua.send({ type: 'say', message, warn }),
        routes: () => this.push(),
      },
      this.io,
    );
    const engine = new RouteEngine(this.backend);
    this.engine = engine;
    hub.listen({
      jobState: (id, from, to, turnEnded) => engine.changed(id, from, to, turnEnded),
      gone: (id) => engine.gone(id),
      replyExpired: (buf) => {
        const name = hub.all().find((e) => e.id === termId(buf))?.name ?? `buffer ${buf}`;
        lua.send({
          type: 'say',
          message: `${name} stayed busy: the text routed to it was dropped (routes.busy_ms)`,
          warn: true,
        });
      },
    });
    this.buffers = {
      async of(buf) {
        if (!Number.isInteger(buf) || buf < 1 || !(await nvim.request('nvim_buf_is_valid', [buf]))) return undefined;
        const [buftype, name, job] = await Promise.all([
          nvim.request('nvim_get_option_value', ['buftype', { buf }]) as Promise<unknown>,
          nvim.request('nvim_buf_get_name', [buf]) as Promise<unknown>,
          (nvim.request('nvim_buf_get_var', [buf, 'madohub_job']) as Promise<unknown>).catch(() => undefined),
        ]);
        return {
          file: buftype === '',
          name: typeof name === 'string' ? name : '',
          job: typeof job === 'string' && SHORT_ID.test(job) ? job : undefined,
        };
      },
    };
  }

  add(m: FromLua<'route_add'>): Promise<unknown> {
    const target = endArg(m.target) ?? '';
    return this.addRoute(this.contextOf(m), endArg(m.source), target, optionsOf(m.opts), settingsOf(m.settings));
  }

  command(m: FromLua<'route_command'>): Promise<unknown> {
    return this.routeCommand(parseRouteCommand(commandWords(m.args)), this.contextOf(m), settingsOf(m.settings));
  }

  complete(m: FromLua<'route_complete'>): Promise<string[]> {
    const templates = Object.keys(settingsOf(m.settings).templates);
    // Where the cursor is (the line cut there): what can follow the words before it.
    const at = m.line !== undefined ? completionAt(m.line.slice(0, 4096)) : { before: [], lead: m.lead };
    const ends = this.hub
      .all()
      .filter((e) => e.kind === 'terminal' || e.kind === 'job')
      .map((e) => ({ id: e.id, name: e.name, remote: e.host !== '', ended: e.ended }));
    const ids = this.list().map((r) => r.id);
    return Promise.resolve(routeCompletion({ before: at.before, lead: m.lead }, ends, templates, ids));
  }

  /** Every route Lua shows: this Neovim's, and the daemon's (read from its file: no daemon is woken). */
  list(): ListedRoute[] {
    return [
      ...this.engine.list().map((r) => listed(r, 'neovim')),
      ...readRoutes(jobsDir()).map((r) => listed(r, 'daemon')),
    ];
  }

  remove(id: string): void {
    if (this.engine.remove(id)) return;
    // Not this Neovim's: the daemon's.
    ask(this.io, { op: 'route-remove', id }, 5000).then(
      () => this.push(),
      (err: unknown) =>
        this.lua.send({ type: 'say', message: err instanceof Error ? err.message : String(err), warn: true }),
    );
  }

  restore(routes: unknown[]): void {
    this.engine.restore(routes.map((v) => routeOf(v, NEOVIM_ENDS)).filter((r): r is Route => r !== undefined));
    this.push();
  }

  reviewed(review: number, text: string | null): void {
    this.backend.reviewed(review, text);
  }

  gone(target: string): void {
    this.engine.gone(target);
  }

  userInput(id: string): void {
    this.engine.userInput(id);
  }

  changes(changes: readonly StateChange[]): void {
    for (const c of changes) this.engine.changed(termId(c.buf), c.previous, c.state, c.done !== undefined);
  }

  /** Tells Lua every route. */
  private push(): void {
    this.lua.send({ type: 'routes', routes: this.list() });
  }

  private contextOf(m: { buf?: number; cwd?: string }): EndContext {
    return {
      hub: this.hub,
      buffers: this.buffers,
      current: m.buf ?? 0,
      cwd: m.cwd !== undefined && path.isAbsolute(m.cwd) ? m.cwd : process.cwd(),
    };
  }

  /** Adds a route between ends named as the user named them (no source: the current buffer); the route, or why not. */
  private async addRoute(
    ctx: EndContext,
    source: string | undefined,
    target: string,
    options: RouteOptions,
    settings: RouteSettings,
  ): Promise<{ route: ListedRoute } | { error: string }> {
    this.engine.configure(settings);
    const from = await resolveEnd(source ?? ctx.current, 'source', ctx);
    if ('error' in from) return from;
    const to = await resolveEnd(target, 'target', ctx);
    if ('error' in to) return to;
    const r: RouteRequest = { source: from.id, target: to.id, targetName: await targetName(to.id, ctx), ...options };
    // Between jobs (or from a job to a file): the daemon keeps it, so that it works with Neovim closed.
    if (idIsOf(r.source, DAEMON_ENDS.source) && idIsOf(r.target, DAEMON_ENDS.target) && !r.review) {
      // One chain across both places: the daemon sees only its own routes, this side sees both.
      if (r.hops === undefined && closesCycle([...this.engine.list(), ...readRoutes(jobsDir())], r)) {
        return {
          error: `this route closes a cycle (${r.target} leads back to ${r.source} through this Neovim's routes); give hops=N to allow it`,
        };
      }
      try {
        const reply = await ask(
          this.io,
          { op: 'route-add', ...r, once: r.once || undefined, review: undefined, templates: settings.templates },
          5000,
        );
        this.push();
        return reply.type === 'routes' && reply.routes[0]
          ? { route: listed(reply.routes[0], 'daemon') }
          : { error: 'the daemon answered no route' };
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      }
    }
    try {
      return { route: listed(this.engine.add(r), 'neovim') };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Does a `:MadoRoute` command; what to tell the user (`list`: open the list). */
  private async routeCommand(cmd: RouteCommand, ctx: EndContext, settings: RouteSettings): Promise<CommandAnswer> {
    switch (cmd.kind) {
      case 'error':
        return { message: cmd.message, error: true };
      case 'list':
        return { list: true };
      case 'clear': {
        const n = this.engine.clear();
        this.push();
        return { message: `removed ${n} route${n === 1 ? '' : 's'}` };
      }
      case 'pause':
      case 'resume':
        this.engine.pause(cmd.kind === 'pause');
        return { message: cmd.kind === 'pause' ? 'routes paused' : 'routes resumed' };
      case 'rm': {
        if (this.engine.remove(cmd.id)) return { message: `removed route ${cmd.id}` };
        if (!readRoutes(jobsDir()).some((r) => r.id === cmd.id))
          return { message: `no route ${JSON.stringify(cmd.id.slice(0, 40))}`, error: true };
        try {
          await ask(this.io, { op: 'route-remove', id: cmd.id }, 5000);
          this.push();
          return { message: `removed route ${cmd.id}` };
        } catch (err) {
          return { message: err instanceof Error ? err.message : String(err), error: true };
        }
      }
      case 'add': {
        const added = await this.addRoute(ctx, cmd.source, cmd.target, cmd.options, settings);
        return 'error' in added ? { message: added.error, error: true } : added;
      }
    }
  }
}
