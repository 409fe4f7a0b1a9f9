import { attach } from 'neovim';
import type { NeovimClient } from 'neovim';
import { AGENT_MODULES, agentModule } from '../agents/index.js';
import { LuaWire } from './lua-wire.js';
import type { AgentInfo } from './lua-wire.js';
import { programProblem } from '../jobs/program.js';
import { FleetHub } from '../fleet/hub.js';
import { isObj } from '../shared/checks.js';
import { socketLive } from '../jobs/protocol/socket.js';
import { daemonSocket, runtimeDir } from '../jobs/paths.js';
import { jobsDir } from '../jobs/store.js';
import { log } from '../shared/log.js';
import { TerminalWatchers } from '../state/terminal-watchers.js';
import { Tracker } from '../state/tracker.js';
import type { StateChange } from '../state/tracker.js';
import { parseExit, parseForget, parseScreen } from './messages.js';
import { FLEET_CALLS, fleetCall } from './fleet-calls.js';
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
  const tracker = new Tracker();
  // A state held back (an Idle that may be a turn's end still to be read) shows when it is due.
  let settleTimer: NodeJS.Timeout | undefined;
  const settleSoon = (): void => {
    const due = tracker.nextSettle();
    clearTimeout(settleTimer);
    settleTimer = undefined;
    if (due === undefined) return;
    settleTimer = setTimeout(() => {
      settleTimer = undefined;
      push(tracker.settle(Date.now()));
      settleSoon();
    }, Math.max(0, due - Date.now()) + 5);
    settleTimer.unref();
  };
  const push = (changes: StateChange[]): void => {
    if (tracker.nextSettle() !== undefined || settleTimer) settleSoon();
    if (changes.length === 0) return;
    lua.send({ type: 'states', changes });
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
    (change) => lua.send({ type: 'fleet', put: change.put, removed: change.removed, editorsNotShown: hub.editorsNotShown }),
    log,
    // Writing into a terminal is Lua's (its channel); it answers '' or why not.
    async (buf, data, how) => {
      const why = await lua.ask({ type: 'write', buf, data, how });
      return typeof why === 'string' ? why : '';
    },
  );

  // Routes: a finished turn of one agent handed to another.
  const routes = routesRpc(nvim, lua, hub, watchers);

  nvim.on('notification', (method: string, args: unknown[]) => {
    const now = Date.now();
    try {
      const batch = Array.isArray(args[0]) ? (args[0] as unknown[]) : [args[0]];
      const changes: StateChange[] = [];
      for (const item of batch) {
        let change: StateChange | null = null;
        if (method === 'screen') {
          const msg = parseScreen(item);
          if (msg) {
            const before = tracker.agentOf(msg.buf);
            change = tracker.screen(msg.buf, msg, now);
            const after = tracker.agentOf(msg.buf);
            hub.screen(msg.buf, msg.lines);
            if (after !== undefined) watchers.screen(msg.buf, msg.pid, now, before !== undefined && before !== after);
            if (!change) hub.placeTerminal(msg.buf);
          }
        } else if (method === 'exit') {
          const msg = parseExit(item);
          if (msg) {
            watchers.end(msg.buf);
            change = tracker.exit(msg.buf, msg.status, now);
          }
        } else if (method === 'call') {
          // A job operation the Lua side waits for without blocking: answered by id, when done.
          if (isObj(item) && typeof item.id === 'number' && typeof item.method === 'string') {
            const id = item.id;
            // A reply the user writes ends the chain of routed text that reached its agent.
            const to = isObj(item.args) ? item.args : {};
            if (item.method === 'terminal_reply' && typeof to.buf === 'number') routes.notify('user_input', { id: `term:${to.buf}` });
            if (item.method === 'send' && typeof to.id === 'string') routes.notify('user_input', { id: `job:${to.id}` });
            const call = FLEET_CALLS.has(item.method) ? fleetCall(hub, item.method, item.args) : jobCall(item.method, item.args);
            call.then(
              (result) => lua.send({ type: 'answer', ask: id, result, error: null }),
              (err: unknown) => lua.send({ type: 'answer', ask: id, result: null, error: err instanceof Error ? err.message : String(err) }),
            );
          }
        } else if (method === 'typing') {
          // The user entered or left Terminal mode in a window of a terminal: a reply waits, a chain ends.
          if (isObj(item) && typeof item.buf === 'number') {
            hub.replies.typing(item.buf, item.typing === true);
            if (item.typing === true) routes.notify('user_input', { id: `term:${item.buf}` });
          }
        } else if (routes.notify(method, item)) {
          // A route's operation.
        } else if (method === 'hello') {
          // Lua says who this Neovim is: its server address, for other Neovims.
          hub.hello(isObj(item) && typeof item.server === 'string' ? item.server : '');
        } else if (method === 'marks_restore') {
          // This Neovim's names and pins of its terminals, back after the Node process started again.
          hub.restoreMarks(isObj(item) ? item.marks : undefined);
        } else if (method === 'forget') {
          const msg = parseForget(item);
          if (msg) {
            watchers.forget(msg.buf);
            tracker.forget(msg.buf);
            hub.forgetTerminal(msg.buf);
          }
        } else {
          log.warn(`unknown notification ${method}`);
        }
        if (change) changes.push(change);
      }
      push(changes);
    } catch (err) {
      log.error(`${method}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
  });

  nvim.on('request', (method: string, args: unknown[], resp: { send: (v: unknown, isError?: boolean) => void }) => {
    if (method === 'health') {
      const health: Health = {
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
      // Whether a daemon answers on its socket (a connection, then nothing more; never started here).
      daemonAnswers().then(
        (up) => resp.send({ ...health, daemon: up }),
        () => resp.send(health),
      );
    } else if (method === 'states') {
      resp.send(tracker.all());
    } else if (method.startsWith('route_')) {
      const answer = routes.request(method, args);
      if (answer === undefined) resp.send(`madohub: unknown request ${method}`, true);
      else answer.then((v) => resp.send(v), (err: unknown) => resp.send(err instanceof Error ? err.message : String(err), true));
    } else if (method === 'fleet') {
      resp.send(hub.all());
    } else if (method === 'job') {
      resp.send(hub.job(typeof args[0] === 'string' ? args[0] : ''));
    } else if (method === 'session') {
      const buf = typeof args[0] === 'number' ? args[0] : -1;
      const session = watchers.sessionOf(buf);
      // Resumable: its agent's job template can resume a session, and its records named one.
      const resumable = session?.agent && session.sessionId ? agentModule(session.agent).template.resume !== undefined : false;
      resp.send(tracker.get(buf) ? { ...session, agent: session?.agent ?? null, intent: tracker.intentOf(buf) ?? null, resumable } : null);
    } else {
      resp.send(`madohub: unknown request ${method}`, true);
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
