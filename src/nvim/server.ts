import path from 'node:path';
import type { UsageTally } from '../usage/tally.js';
import { attach } from 'neovim';
import type { NeovimClient } from 'neovim';
import { AGENT_MODULES, useUserRules, userRulesNow } from '../agents/index.js';
import { watchPath } from '../shared/watch-path.js';
import { RECHECK_MS, rulesDir } from '../agents/user-rules.js';
import { LuaWire } from './lua-wire.js';
import { LuaPush } from './push.js';
import type { AgentInfo } from './lua-wire.js';
import { FleetHub } from '../fleet/hub.js';
import { isObj } from '../shared/checks.js';
import { log } from '../shared/log.js';
import { TerminalWatchers } from '../state/terminal-watchers.js';
import { Tracker } from '../state/tracker.js';
import type { StateChange } from '../state/tracker.js';
import { parseFromLua } from './from-lua.js';
import { NeovimRoutes } from './routes-rpc.js';
import { luaHandlers, runHandler } from './handlers.js';
import type { Handlers } from './handlers.js';
import { healthOf } from './health.js';
import type { Health } from './health.js';
import { checkNodePty } from '../jobs/node-pty-check.js';
import { NvimAttention } from './attention.js';
import { TerminalTurns } from './terminal-turns.js';
import { endGitRuns } from '../review/git.js';

/** The agent modules as Lua lists them: the Lua side keeps no list of its own. */
function agentInfos(): AgentInfo[] {
  return AGENT_MODULES.map((a) => ({ id: a.id, name: a.displayName, fallback: a.fallback === true }));
}

/**
 * The Node side of the plugin: takes screens from the Lua watcher, runs the detectors, keeps each
 * terminal's state and pushes every change to Lua in one notification per batch.
 */
export function serve(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): NeovimClient {
  return new NeovimSide(stdin, stdout).start();
}

/** The Node side's parts, made and wired once: each of its jobs is a part's, named here. */
class NeovimSide {
  private readonly nvim: NeovimClient;
  private readonly lua: LuaWire;
  /** Every change goes to Lua once per batch (one redraw). */
  private readonly pushed: LuaPush;
  private readonly tracker = new Tracker();
  private readonly watchers: TerminalWatchers;
  /** The fleet: every agent this Neovim can show (terminals, jobs, sessions elsewhere, other Neovims'). */
  private readonly hub: FleetHub;
  /** Attention: a change that needs the user, told inside Neovim and, where it matters, outside it. */
  private readonly attention: NvimAttention;
  /** Routes: a finished turn of one agent handed to another. */
  private readonly routes: NeovimRoutes;
  private readonly handlers: Handlers;
  /** Each terminal's turns recorded for the review. */
  private readonly turns: TerminalTurns;
  /** A state held back (an Idle that may be a turn's end still to be read) shows when it is due. */
  private releaseTimer: NodeJS.Timeout | undefined;
  /** Set once it leaves (Neovim hung up, or a signal): the first cause ends it. */
  private leaving = false;

  constructor(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream) {
    this.nvim = attach({ reader: stdin, writer: stdout });
    this.lua = new LuaWire(this.nvim);
    this.pushed = new LuaPush(this.lua, () => this.hub.editorsNotShown);
    this.watchers = new TerminalWatchers(
      {
        process: (buf, agent) => {
          this.pushOne(this.tracker.process(buf, agent, Date.now()));
          this.hub.agentsChanged();
        },
        record: (buf, signal) => this.pushOne(this.tracker.record(buf, signal, Date.now())),
        // $MADOHUB_USAGE=off: no usage counted (the benchmark measures what counting it costs).
        ...(process.env.MADOHUB_USAGE === 'off'
          ? {}
          : { usage: (buf: number, tally: UsageTally | null) => this.hub.terminalUsage(buf, tally) }),
        place: (buf) => this.hub.placeTerminal(buf),
      },
      log,
    );
    this.hub = new FleetHub(
      this.tracker,
      this.watchers,
      (change) => {
        this.pushed.fleet(change);
        this.attention.fleet(change);
      },
      log,
      // Writing into a terminal is Lua's (its channel); it answers '' or why not.
      async (buf, data, how) => {
        const why = await this.lua.ask({ type: 'write', buf, data, how });
        return typeof why === 'string' ? why : '';
      },
    );
    this.hub.listen({
      // hosts.json changed while Neovim runs: what is wrong with it now, in one short line.
      hostProblems: (problems) => {
        const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
        this.lua.send({ type: 'say', message: `${problems[0]!.slice(0, 200)}${more}`, warn: true });
      },
      replyKept: (buf, replies) => this.lua.send({ type: 'kept', buf, replies }),
      spending: (s) => {
        this.pushed.spending(s);
        this.attention.spending(s);
      },
    });
    this.attention = new NvimAttention(this.hub, {
      notice: (n) => this.pushed.notice(n),
      wanted: (ids) => this.pushed.wanted(ids),
      mutes: (mutes) => this.lua.send({ type: 'mutes', mutes }),
      jump: (id) => this.lua.send({ type: 'jump', id }),
      warn: (m) => log.warn(m),
      debug: (m) => log.debug(m),
    });
    this.routes = new NeovimRoutes(this.nvim, this.lua, this.hub, this.watchers, (target) =>
      this.attention.routeDelivered(target),
    );
    this.turns = new TerminalTurns(this.hub);
    const { tracker, watchers, hub, routes, attention } = this;
    const turns = this.turns;
    const health = (): Promise<Health> => healthOf(tracker, watchers, hub, attention, () => turns.health());
    this.handlers = luaHandlers({ tracker, watchers, hub, routes, attention, health, turns });
  }

  /** Starts it: the user's rules, Lua's messages, the fleet; the agents and what cannot run told to Lua. */
  start(): NeovimClient {
    this.followUserRules();
    this.nvim.on('notification', (method: string, args: unknown[]) => this.notification(method, args));
    this.nvim.on('request', (method: string, args: unknown[], resp: Responder) => this.request(method, args, resp));
    this.hub.start();
    // The agents and their display names: the Lua side keeps no list of its own.
    this.lua.send({ type: 'agents', agents: agentInfos() });
    // One warning when the jobs' node-pty cannot load in this Node, with the command that fixes it.
    setImmediate(() => {
      const pty = checkNodePty();
      if (pty.ok) return;
      log.warn(pty.error ?? 'node-pty does not load');
      this.lua.send({ type: 'say', message: `background jobs cannot run: ${pty.error}`, warn: true });
    });
    this.nvim.on('disconnect', () => this.leave('neovim disconnected'));
    for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.once(signal, () => this.leave(signal));
    return this.nvim;
  }

  /**
   * The user's rule files, read with the first screen and again when one changes (every terminal is
   * then read anew); their errors are said once a reading.
   */
  private followUserRules(): void {
    let readings = 0;
    useUserRules(rulesDir(), (rules) => {
      if (readings++ > 0) this.lua.send({ type: 'rescreen' });
      const bad = rules.files.filter((f) => f.errors.length > 0);
      if (bad.length === 0) return;
      // One short line (no hit-enter prompt): :checkhealth lists what each file refused, with why.
      const refused = bad.reduce((n, f) => n + f.errors.length, 0);
      this.lua.send({
        type: 'say',
        message: `${bad.map((f) => path.basename(f.file)).join(', ')}: ${refused} refused (:checkhealth madohub)`,
        warn: true,
      });
    });
    // After the source's own recheck interval, so that the change is read, not skipped as too recent.
    watchPath(rulesDir(), RECHECK_MS + 20, () => userRulesNow());
  }

  /** Shows the states held back once they are due. */
  private releaseSoon(): void {
    const due = this.tracker.nextRelease();
    clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
    if (due === undefined) return;
    this.releaseTimer = setTimeout(
      () => {
        this.releaseTimer = undefined;
        this.push(this.tracker.release(Date.now()));
        this.releaseSoon();
      },
      Math.max(0, due - Date.now()) + 5,
    );
    this.releaseTimer.unref();
  }

  /** Terminals' state changes: to Lua, to the fleet and to the routes. */
  private push(changes: StateChange[]): void {
    if (this.tracker.nextRelease() !== undefined || this.releaseTimer) this.releaseSoon();
    if (changes.length === 0) return;
    this.pushed.states(changes);
    for (const c of changes) this.hub.placeTerminal(c.buf);
    this.turns.changes(changes);
    this.routes.changes(changes);
  }

  private pushOne(change: StateChange | null): void {
    // Also without a change: one held back may need its timer.
    this.push(change ? [change] : []);
  }

  /** Runs one message; its answer (a promise for the calls that take time). */
  private handle(raw: unknown): unknown {
    const m = parseFromLua(raw);
    if (typeof m === 'string') throw new Error(`madohub: ${m}`);
    const changes: StateChange[] = [];
    const answer = runHandler(this.handlers, m.op, m, changes);
    this.push(changes);
    return answer;
  }

  /** A notification from Lua; a call carries its number, answered by it when done (Lua does not wait). */
  private notification(method: string, args: unknown[]): void {
    if (method !== 'madohub') return log.warn(`unknown notification ${method.slice(0, 40)}`);
    const ask = isObj(args[0]) && typeof args[0].ask === 'number' ? args[0].ask : undefined;
    try {
      const answer = this.handle(args[0]);
      if (ask !== undefined) {
        Promise.resolve(answer).then(
          (result) => this.lua.send({ type: 'answer', ask, result: result ?? null, error: null }),
          (err: unknown) => this.lua.send({ type: 'answer', ask, result: null, error: said(err) }),
        );
      } else if (answer instanceof Promise) answer.catch((err: unknown) => log.warn(said(err)));
    } catch (err) {
      log.error(`${method}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (ask !== undefined) this.lua.send({ type: 'answer', ask, result: null, error: said(err) });
    }
  }

  /** A request from Lua (it waits): answered at once, or when its promise settles. */
  private request(method: string, args: unknown[], resp: Responder): void {
    if (method !== 'madohub') return resp.send(`madohub: unknown request ${method.slice(0, 40)}`, true);
    try {
      Promise.resolve(this.handle(args[0])).then(
        (v) => resp.send(v ?? null),
        (err: unknown) => resp.send(said(err), true),
      );
    } catch (err) {
      resp.send(said(err), true);
    }
  }

  /**
   * Leaving (Neovim hung up, or stopped this process): this Neovim's summary goes with it, and no
   * review's git outlives it (each ended, its lock files removed, before the exit).
   */
  private leave(why: string): void {
    if (this.leaving) return;
    this.leaving = true;
    log.info(`${why}; exiting`);
    this.attention.stop();
    this.hub.stop();
    void endGitRuns().finally(() => process.exit(0));
  }
}

/** How an RPC request is answered. */
interface Responder {
  send(value: unknown, isError?: boolean): void;
}

const said = (err: unknown): string => (err instanceof Error ? err.message : String(err));
