import { attach } from 'neovim';
import type { NeovimClient } from 'neovim';
import { AGENT_MODULES, agentModule } from '../agents/index.js';
import { LuaWire } from './lua-wire.js';
import { LuaPush } from './push.js';
import type { AgentInfo } from './lua-wire.js';
import { programProblem } from '../jobs/program.js';
import { FleetHub } from '../fleet/hub.js';
import { isObj } from '../shared/checks.js';
import { socketLive } from '../jobs/protocol/socket.js';
import { daemonSocket, runtimeDir } from '../jobs/paths.js';
import { jobsDir, stateDir } from '../jobs/store.js';
import { log } from '../shared/log.js';
import { TerminalWatchers } from '../state/terminal-watchers.js';
import { Tracker } from '../state/tracker.js';
import type { StateChange } from '../state/tracker.js';
import { parseExit, parseForget, parseScreen } from './messages.js';
import { parseFromLua } from './from-lua.js';
import type { FromLua, FromLuaOp } from './from-lua.js';
import { fleetCall } from './fleet-calls.js';
import { jobCall } from './job-calls.js';
import { routesRpc } from './routes-rpc.js';
import { checkNodePty } from './node-pty-check.js';
import type { NodePtyHealth } from './node-pty-check.js';
import { sqliteSupport } from '../records/sqlite.js';
import type { SqliteSupport } from '../records/sqlite.js';

/** Whether a daemon answers on its socket: `running`, `not running`, or why it cannot be asked. */
async function daemonAnswers(): Promise<string> {
  try {
    return (await socketLive(daemonSocket(runtimeDir()))) ? 'running' : 'not running';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}


export interface Health {
  node: string;
  pid: number;
  terminals: number;
  nodePty: NodePtyHealth;
  foldersWatched: number;
  /** Where processes are read from: `proc` (/proc) or `ps` (ps-list and lsof, where there is no /proc). */
  processes: 'proc' | 'ps';
  /** Whether this Node reads SQLite (OpenCode's session store), and if not, why. */
  sqlite: SqliteSupport;
  jobsDir: string;
  fleet: { terminals: number; jobs: number; sessions: number; editors: number };
  /** `running` (its socket answers), `not running`, or why it cannot be asked. */
  daemon: string;
  scans: number;
  rssBytes: number;
  /** Every agent module, and whether the program of its jobs is on this Neovim's PATH (`problem`: why not). */
  agents: { id: string; name: string; program: string; problem: string | null }[];
}


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
    releaseTimer = setTimeout(() => {
      releaseTimer = undefined;
      push(tracker.release(Date.now()));
      releaseSoon();
    }, Math.max(0, due - Date.now()) + 5);
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
    (change) => pushed.fleet(change),
    log,
    // Writing into a terminal is Lua's (its channel); it answers '' or why not.
    async (buf, data, how) => {
      const why = await lua.ask({ type: 'write', buf, data, how });
      return typeof why === 'string' ? why : '';
    },
  );

  // Routes: a finished turn of one agent handed to another.
  const routes = routesRpc(nvim, lua, hub, watchers);

  /** What :checkhealth shows, with whether a daemon answers on its socket (a connection, then nothing more; never started here). */
  const health = async (): Promise<Health> => {
    const now: Health = {
      node: process.version,
      pid: process.pid,
      terminals: tracker.size,
      nodePty: checkNodePty(),
      foldersWatched: watchers.folders.size,
      processes: watchers.tree.kind,
      sqlite: sqliteSupport(),
      scans: watchers.scans,
      rssBytes: process.memoryUsage().rss,
      jobsDir: jobsDir(),
      fleet: { terminals: hub.count('terminal'), jobs: hub.count('job'), sessions: hub.count('session'), editors: hub.count('editor') },
      daemon: 'not running',
      agents: AGENT_MODULES.filter((a) => !a.fallback).map((a) => {
        const program = a.template.command[0] ?? '';
        return { id: a.id, name: a.displayName, program, problem: programProblem(program, process.env.PATH, process.cwd()) };
      }),
    };
    return daemonAnswers().then((daemon) => ({ ...now, daemon }), () => now);
  };

  // Every message of the Lua side, by its op (src/nvim/from-lua.ts guards each): what it does, and
  // what it answers (a call's result, a request's answer; a notification's is dropped). `changes`
  // gathers the state changes of one message, pushed to Lua as one.
  const handlers: Record<FromLuaOp, (m: FromLua, changes: StateChange[]) => unknown> = {
    screen: (m, changes) => {
      const msg = parseScreen(m);
      if (!msg) return;
      const now = Date.now();
      const before = tracker.agentOf(msg.buf);
      const change = tracker.screen(msg.buf, msg, now);
      const after = tracker.agentOf(msg.buf);
      hub.screen(msg.buf, msg.lines);
      if (after !== undefined) watchers.screen(msg.buf, msg.pid, now, before !== undefined && before !== after);
      if (change) changes.push(change);
      else hub.placeTerminal(msg.buf);
    },
    exit: (m, changes) => {
      const msg = parseExit(m);
      if (!msg) return;
      watchers.end(msg.buf);
      const change = tracker.exit(msg.buf, msg.status, Date.now());
      if (change) changes.push(change);
    },
    forget: (m) => {
      const msg = parseForget(m);
      if (!msg) return;
      watchers.forget(msg.buf);
      tracker.forget(msg.buf);
      hub.forgetTerminal(msg.buf);
    },
    // The user entered or left Terminal mode in a window of a terminal: a reply waits, a chain ends.
    typing: (m) => {
      hub.replies.typing(m.buf as number, m.typing === true);
      if (m.typing === true) routes.notify('user_input', { id: `term:${m.buf as number}` });
    },
    // Lua says who this Neovim is: its server address, for other Neovims.
    hello: (m) => hub.hello(m.server as string),
    // This Neovim's names and pins of its terminals, and their states since when, back after the Node process started again.
    restore: (m) => {
      tracker.restore(m.marks);
      hub.restoreMarks(m.marks);
    },
    route_rm: (m) => routes.notify('route_rm', m),
    route_restore: (m) => routes.notify('route_restore', m),
    route_review: (m) => routes.notify('route_review', m),
    route_gone: (m) => routes.notify('route_gone', m),
    background: (m) => jobCall('background', m),
    stop: (m) => jobCall('stop', m),
    kill: (m) => jobCall('kill', m),
    respawn: (m) => jobCall('respawn', m),
    remove: (m) => jobCall('remove', m),
    // A reply the user writes ends the chain of routed text that reached its agent.
    send: (m) => {
      routes.notify('user_input', { id: `job:${m.id as string}` });
      return jobCall('send', m);
    },
    choose: (m) => jobCall('choose', m),
    screen_of: (m) => jobCall('screen', m),
    dispatch: (m) => jobCall('dispatch', m),
    logs: (m) => jobCall('logs', m),
    terminal_reply: (m) => {
      routes.notify('user_input', { id: `term:${m.buf as number}` });
      return fleetCall(hub, 'terminal_reply', m);
    },
    terminal_choose: (m) => fleetCall(hub, 'terminal_choose', m),
    mark: (m) => fleetCall(hub, 'mark', m),
    reorder: (m) => fleetCall(hub, 'reorder', m),
    editor_show: (m) => fleetCall(hub, 'editor_show', m),
    health: () => health(),
    states: () => tracker.all(),
    fleet: () => hub.all(),
    job: (m) => hub.job(m.id as string),
    session: (m) => {
      const b = m.buf as number;
      const session = watchers.sessionOf(b);
      // Resumable: its agent's job template can resume a session, and its records named one.
      const resumable = session?.agent && session.sessionId ? agentModule(session.agent).template.resume !== undefined : false;
      return tracker.get(b) ? { ...session, agent: session?.agent ?? null, intent: tracker.intentOf(b) ?? null, resumable } : null;
    },
    route_add: (m) => routes.request('route_add', [m]),
    route_command: (m) => routes.request('route_command', [m]),
    route_complete: (m) => routes.request('route_complete', [m]),
    route_list: () => routes.request('route_list', []),
    // Where MadoHub keeps its state (the picker's own file is there): Lua builds no path of its own.
    paths: () => ({ stateDir: stateDir() }),
  };

  /** Runs one message; its answer (a promise for the calls that take time). */
  const handle = (raw: unknown): unknown => {
    const m = parseFromLua(raw);
    if (typeof m === 'string') throw new Error(`madohub: ${m}`);
    const changes: StateChange[] = [];
    const answer = handlers[m.op](m, changes);
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

  hub.onReplyKept = (buf, reply) => lua.send({ type: 'kept', buf, reply });
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
    hub.stop();
    process.exit(0);
  };
  nvim.on('disconnect', () => leave('neovim disconnected'));
  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.once(signal, () => leave(signal));
  return nvim;
}
