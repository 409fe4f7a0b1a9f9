// Every message of the Lua side, by its op (src/nvim/from-lua.ts guards each): what it does, and
// what it answers (a call's result, a request's answer; a notification's is dropped). One entry per
// op, as tmux has one per command.
import { agentModule } from '../agents/index.js';
import { oscNotification } from '../detect/osc.js';
import type { FleetHub } from '../fleet/hub.js';
import { stateDir } from '../jobs/store.js';
import type { TerminalWatchers } from '../state/terminal-watchers.js';
import type { StateChange, Tracker } from '../state/tracker.js';
import { explainTerminal } from './explain.js';
import { fleetCall } from './fleet-calls.js';
import type { FromLua, FromLuaOp } from './from-lua.js';
import type { Health } from './health.js';
import { jobCall } from './job-calls.js';
import { parseExit, parseForget, parseScreen } from './messages.js';
import type { RoutesRpc } from './routes-rpc.js';
import type { NvimAttention } from './attention.js';
import { jobId, termId } from '../shared/fleet-id.js';

/** What the handlers act on. */
export interface HandlerContext {
  tracker: Tracker;
  watchers: TerminalWatchers;
  hub: FleetHub;
  routes: RoutesRpc;
  attention: NvimAttention;
  health: () => Promise<Health>;
}

/** One op's handler: `changes` gathers the state changes of one message, pushed to Lua as one. */
export type Handler = (m: FromLua, changes: StateChange[]) => unknown;

/** The handler of every op. */
export function luaHandlers({
  tracker,
  watchers,
  hub,
  routes,
  attention,
  health,
}: HandlerContext): Record<FromLuaOp, Handler> {
  return {
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
    // A notification the terminal's program asked for (OSC 9, 777, 99): what its agent's module makes of it.
    osc: (m, changes) => {
      const n = oscNotification(m.sequence as string);
      const agent = tracker.agentOf(m.buf as number);
      const signal = n && agent !== undefined ? agentModule(agent).notification?.(n) : undefined;
      if (!signal) return;
      const change = tracker.notification(m.buf as number, signal, Date.now());
      if (change) changes.push(change);
    },
    // The user entered or left Terminal mode in a window of a terminal: a reply waits, a chain ends.
    typing: (m) => {
      hub.replies.typing(m.buf as number, m.typing === true);
      if (m.typing === true) routes.notify('user_input', { id: termId(m.buf as number) });
    },
    // Lua says who this Neovim is: its server address, for other Neovims.
    hello: (m) => hub.hello(m.server as string),
    // The user's notification settings (setup()), and what is in sight: attention outside the editor.
    notify_settings: (m) => attention.configure(m.notify, m.words),
    // The remote hosts of setup() (hosts.json's beside them): followed from now on.
    hosts: (m) => hub.configureHosts(m.hosts),
    // :MadoHosts: each host and its link; `retry` tries the offline ones (or the one named) at once.
    hosts_status: () =>
      hub.hostStatus().map(({ host, status, jobs }) => ({
        host,
        online: status.online,
        reason: status.reason,
        version: status.version,
        jobs,
      })),
    hosts_retry: (m) => ({ tried: hub.retryHosts(typeof m.host === 'string' ? m.host : undefined) }),
    sight: (m) => attention.sight(m.bufs as number[], m.focused as boolean | undefined, m.gained === true),
    // This Neovim's names and pins of its terminals, and their states since when, back after the Node
    // process started again.
    restore: (m) => {
      tracker.restore(m.marks);
      hub.restoreMarks(m.marks);
    },
    route_rm: (m) => routes.notify('route_rm', m),
    route_restore: (m) => routes.notify('route_restore', m),
    route_review: (m) => routes.notify('route_review', m),
    route_gone: (m) => routes.notify('route_gone', m),
    background: (m) => jobCall('background', m),
    stop: (m) => jobCall('stop', m, process.env, hub.remotes),
    kill: (m) => jobCall('kill', m, process.env, hub.remotes),
    respawn: (m) => jobCall('respawn', m, process.env, hub.remotes),
    remove: (m) => jobCall('remove', m, process.env, hub.remotes),
    // A reply the user writes ends the chain of routed text that reached its agent.
    send: (m) => {
      routes.notify('user_input', { id: jobId(m.id as string, typeof m.host === 'string' ? m.host : '') });
      return jobCall('send', m, process.env, hub.remotes);
    },
    choose: (m) => jobCall('choose', m, process.env, hub.remotes),
    screen_of: (m) => jobCall('screen', m, process.env, hub.remotes),
    dispatch: (m) => jobCall('dispatch', m, process.env, hub.remotes),
    logs: (m) => jobCall('logs', m, process.env, hub.remotes),
    terminal_reply: (m) => {
      routes.notify('user_input', { id: termId(m.buf as number) });
      return fleetCall(hub, 'terminal_reply', m);
    },
    terminal_choose: (m) => fleetCall(hub, 'terminal_choose', m),
    mark: (m) => fleetCall(hub, 'mark', m),
    mute: (m) => attention.mute(m.id as string, m.states as string[], m.on === true),
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
      const resumable =
        session?.agent && session.sessionId ? agentModule(session.agent).template.resume !== undefined : false;
      return tracker.get(b)
        ? { ...session, agent: session?.agent ?? null, intent: tracker.intentOf(b) ?? null, resumable }
        : null;
    },
    // :MadoExplain: why this terminal has its state.
    explain: (m) => explainTerminal(tracker, m),
    route_add: (m) => routes.request('route_add', [m]),
    route_command: (m) => routes.request('route_command', [m]),
    route_complete: (m) => routes.request('route_complete', [m]),
    route_list: () => routes.request('route_list', []),
    // Where MadoHub keeps its state (the picker's own file is there): Lua builds no path of its own.
    paths: () => ({ stateDir: stateDir() }),
  };
}
