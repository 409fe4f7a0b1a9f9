import path from 'node:path';
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
import { healthOf } from './health.js';
import type { Health } from './health.js';
import { checkNodePty } from '../jobs/node-pty-check.js';
import { NvimAttention } from './attention.js';

/** The agent modules as Lua lists them: the Lua side keeps no list of its own. */
function agentInfos(): AgentInfo[] {
  return AGENT_MODULES.map((a) => ({ id: a.id, name: a.displayName, fallback: a.fallback === true }));
}

/**
 * The Node side of the plugin: takes screens from the Lua watcher, runs the detectors, keeps each
 * terminal's state and pushes every change to Lua in one notification per batch.
 */
export function serve(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): NeovimClient {
  const nvim = attach({ reader: stdin, writer: stdout });
  const lua = new LuaWire(nvim);
  // The user's rule files, read with the first screen and again when one changes (every terminal is
  // then read anew); their errors are said once a reading.
  let readings = 0;
  useUserRules(rulesDir(), (rules) => {
    if (readings++ > 0) lua.send({ type: 'rescreen' });
    const bad = rules.files.filter((f) => f.errors.length > 0);
    if (bad.length === 0) return;
    // One short line (no hit-enter prompt): :checkhealth lists what each file refused, with why.
    const refused = bad.reduce((n, f) => n + f.errors.length, 0);
    lua.send({
      type: 'say',
      message: `${bad.map((f) => path.basename(f.file)).join(', ')}: ${refused} refused (:checkhealth madohub)`,
      warn: true,
    });
  });
  // After the source's own recheck interval, so that the change is read, not skipped as too recent.
  watchPath(rulesDir(), RECHECK_MS + 20, () => userRulesNow());
  // Every change goes to Lua once per batch (one redraw).
  const pushed = new LuaPush(lua, () => hub.editorsNotShown);
  const tracker = new Tracker();
  // A state held back (an Idle that may be a turn's end still to be read) shows when it is due.
  let releaseTimer: NodeJS.Timeout | undefined;
  const releaseSoon = (): void => {
    const due = tracker.nextRelease();
    clearTimeout(releaseTimer);
    releaseTimer = undefined;
    if (due === undefined) return;
    releaseTimer = setTimeout(
      () => {
        releaseTimer = undefined;
        push(tracker.release(Date.now()));
        releaseSoon();
      },
      Math.max(0, due - Date.now()) + 5,
    );
    releaseTimer.unref();
  };
  const push = (changes: StateChange[]): void => {
    if (tracker.nextRelease() !== undefined || releaseTimer) releaseSoon();
    if (changes.length === 0) return;
    pushed.states(changes);
    for (const c of changes) hub.placeTerminal(c.buf);
    routes.changes(changes);
  };
  const pushOne = (change: StateChange | null): void => {
    // Also without a change: one held back may need its timer.
    push(change ? [change] : []);
  };
  const watchers = new TerminalWatchers(
    {
      process: (buf, agent) => {
        pushOne(tracker.process(buf, agent, Date.now()));
        hub.agentsChanged();
      },
      record: (buf, signal) => pushOne(tracker.record(buf, signal, Date.now())),
      place: (buf) => hub.placeTerminal(buf),
    },
    log,
  );
  // The fleet: every agent this Neovim can show (terminals, jobs, sessions elsewhere, other Neovims').
  const hub = new FleetHub(
    tracker,
    watchers,
    (change) => {
      pushed.fleet(change);
      attention.fleet(change);
    },
    log,
    // Writing into a terminal is Lua's (its channel); it answers '' or why not.
    async (buf, data, how) => {
      const why = await lua.ask({ type: 'write', buf, data, how });
      return typeof why === 'string' ? why : '';
    },
  );

  // hosts.json changed while Neovim runs: what is wrong with it now, in one short line.
  hub.listen({
    hostProblems: (problems) => {
      const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
      lua.send({ type: 'say', message: `${problems[0]!.slice(0, 200)}${more}`, warn: true });
    },
    replyKept: (buf, replies) => lua.send({ type: 'kept', buf, replies }),
  });

  // Attention: a change that needs the user, told inside Neovim and, where it matters, outside it.
  const attention = new NvimAttention(hub, {
    notice: (n) => pushed.notice(n),
    wanted: (ids) => pushed.wanted(ids),
    mutes: (mutes) => lua.send({ type: 'mutes', mutes }),
    jump: (id) => lua.send({ type: 'jump', id }),
    warn: (m) => log.warn(m),
    debug: (m) => log.debug(m),
  });

  // Routes: a finished turn of one agent handed to another.
  const routes = new NeovimRoutes(nvim, lua, hub, watchers, (target) => attention.routeDelivered(target));

  const health = (): Promise<Health> => healthOf(tracker, watchers, hub, attention);
  const handlers = luaHandlers({ tracker, watchers, hub, routes, attention, health });

  /** Runs one message; its answer (a promise for the calls that take time). */
  const handle = (raw: unknown): unknown => {
    const m = parseFromLua(raw);
    if (typeof m === 'string') throw new Error(`madohub: ${m}`);
    const changes: StateChange[] = [];
    const answer = runHandler(handlers, m.op, m, changes);
    push(changes);
    return answer;
  };
  const said = (err: unknown): string => (err instanceof Error ? err.message : String(err));

  nvim.on('notification', (method: string, args: unknown[]) => {
    if (method !== 'madohub') return log.warn(`unknown notification ${method.slice(0, 40)}`);
    // A call carries its number: answered by it when done (or failed), without blocking Lua.
    const ask = isObj(args[0]) && typeof args[0].ask === 'number' ? args[0].ask : undefined;
    try {
      const answer = handle(args[0]);
      if (ask !== undefined) {
        Promise.resolve(answer).then(
          (result) => lua.send({ type: 'answer', ask, result: result ?? null, error: null }),
          (err: unknown) => lua.send({ type: 'answer', ask, result: null, error: said(err) }),
        );
      } else if (answer instanceof Promise) answer.catch((err: unknown) => log.warn(said(err)));
    } catch (err) {
      log.error(`${method}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (ask !== undefined) lua.send({ type: 'answer', ask, result: null, error: said(err) });
    }
  });

  nvim.on('request', (method: string, args: unknown[], resp: { send: (v: unknown, isError?: boolean) => void }) => {
    if (method !== 'madohub') return resp.send(`madohub: unknown request ${method.slice(0, 40)}`, true);
    try {
      Promise.resolve(handle(args[0])).then(
        (v) => resp.send(v ?? null),
        (err: unknown) => resp.send(said(err), true),
      );
    } catch (err) {
      resp.send(said(err), true);
    }
  });

  hub.start();

  // The agents and their display names: the Lua side keeps no list of its own.
  lua.send({ type: 'agents', agents: agentInfos() });

  // One warning when the jobs' node-pty cannot load in this Node, with the command that fixes it.
  setImmediate(() => {
    const pty = checkNodePty();
    if (pty.ok) return;
    log.warn(pty.error ?? 'node-pty does not load');
    lua.send({ type: 'say', message: `background jobs cannot run: ${pty.error}`, warn: true });
  });

  // Leaving (Neovim hung up, or stopped this process): this Neovim's summary goes with it.
  const leave = (why: string): void => {
    log.info(`${why}; exiting`);
    attention.stop();
    hub.stop();
    process.exit(0);
  };
  nvim.on('disconnect', () => leave('neovim disconnected'));
  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.once(signal, () => leave(signal));
  return nvim;
}
