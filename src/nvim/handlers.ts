// Every message of the Lua side, by its op (src/nvim/from-lua.ts guards each): what it does, and
// what it answers (a call's result, a request's answer; a notification's is dropped). One entry per
// op, as tmux has one per command.
import { agentModule } from '../agents/index.js';
import { oscNotification } from '../detect/osc.js';
import type { FleetHub } from '../fleet/hub.js';
import { stateDir } from '../shared/xdg.js';
import type { TerminalWatchers } from '../state/terminal-watchers.js';
import type { StateChange, Tracker } from '../state/tracker.js';
import { explainTerminal } from './explain.js';
import { editorShow, mark, reorder, terminalChoose, terminalReply } from './fleet-calls.js';
import type { FromLua, FromLuaOp } from './from-lua.js';
import type { Health } from './health.js';
import { background, dispatchLine } from './job-calls.js';
import { opCall } from './op-calls.js';
import { reviewCall, reviewUndo } from './review-calls.js';
import type { TerminalTurns } from './terminal-turns.js';
import { opNamed } from '../ops/index.js';
import { screenOf } from './messages.js';
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
  /** The review's records of this Neovim's terminals. */
  turns: TerminalTurns;
}

/** One op's handler: `changes` gathers the state changes of one message, pushed to Lua as one. */
export type Handler<Op extends FromLuaOp = FromLuaOp> = (m: FromLua<Op>, changes: StateChange[]) => unknown;

/** Each op's handler, given its op's message. */
export type Handlers = { [Op in FromLuaOp]: Handler<Op> };

/** Runs the handler of a message's op. */
export function runHandler<Op extends FromLuaOp>(
  handlers: Handlers,
  op: Op,
  m: FromLua<Op>,
  changes: StateChange[],
): unknown {
  const handler: Handler<Op> = handlers[op];
  return handler(m, changes);
}

/** The handler of every op. */
export function luaHandlers({ tracker, watchers, hub, routes, attention, health, turns }: HandlerContext): Handlers {
  return {
    screen: (m, changes) => {
      const msg = screenOf(m);
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
      watchers.end(m.buf);
      const change = tracker.exit(m.buf, m.status, Date.now());
      if (change) changes.push(change);
    },
    forget: (m) => {
      watchers.forget(m.buf);
      tracker.forget(m.buf);
      hub.forgetTerminal(m.buf);
    },
    // A notification the terminal's program asked for (OSC 9, 777, 99): what its agent's module makes of it.
    osc: (m, changes) => {
      const n = oscNotification(m.sequence);
      const agent = tracker.agentOf(m.buf);
      const signal = n && agent !== undefined ? agentModule(agent).notification?.(n) : undefined;
      if (!signal) return;
      const change = tracker.notification(m.buf, signal, Date.now());
      if (change) changes.push(change);
    },
    // The user entered or left Terminal mode in a window of a terminal: a reply waits, a chain ends.
    typing: (m) => {
      hub.replies.typing(m.buf, m.typing);
      if (m.typing) routes.userInput(termId(m.buf));
    },
    // Lua says who this Neovim is: its server address, for other Neovims.
    hello: (m) => hub.hello(m.server),
    // The user's notification settings (setup()), and what is in sight: attention outside the editor.
    notify_settings: (m) => attention.configure(m.notify, m.words),
    review_settings: (m) => turns.settings(m.max_mb),
    // The user's prices and budget (|madohub-usage|): every entry's usage priced and held against them.
    usage_settings: (m) => hub.configureSpending(m.prices, m.budget),
    // The user saved a file: a turn under way in its folder names them.
    saved: (m) => turns.saved(m.path),
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
    hosts_retry: (m) => ({ tried: hub.retryHosts(m.host) }),
    sight: (m) => attention.sight(m.bufs, m.focused, m.gained === true),
    // This Neovim's names and pins of its terminals, and their states since when, back after the Node
    // process started again.
    restore: (m) => {
      tracker.restore(m.marks);
      hub.restoreMarks(m.marks);
    },
    route_rm: (m) => routes.remove(m.id),
    route_restore: (m) => routes.restore(m.routes),
    route_review: (m) => routes.reviewed(m.review, m.text),
    route_gone: (m) => routes.gone(m.target),
    background: (m) => background(m),
    run: (m) => {
      // A reply the user writes ends the chain of routed text that reached its agent.
      const id = Array.isArray(m.args) ? undefined : m.args.id;
      if (opNamed(m.name)?.byPerson && typeof id === 'string') routes.userInput(jobId(id, m.host ?? ''));
      return opCall(m, hub.remotes);
    },
    dispatch: (m) => dispatchLine(m, hub.remotes),
    terminal_reply: (m) => {
      routes.userInput(termId(m.buf));
      return terminalReply(hub, m);
    },
    terminal_choose: (m) => terminalChoose(hub, m),
    mark: (m) => mark(hub, m),
    mute: (m) => attention.mute(m.id, m.states, m.on),
    reorder: (m) => reorder(hub, m),
    editor_show: (m) => editorShow(hub, m),
    review: (m) => reviewCall(m, hub.remotes),
    review_undo: (m) => reviewUndo(m),
    health: () => health(),
    states: () => tracker.all(),
    fleet: () => hub.all(),
    job: (m) => hub.job(m.id),
    session: (m) => {
      const b = m.buf;
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
    route_add: (m) => routes.add(m),
    route_command: (m) => routes.command(m),
    route_complete: (m) => routes.complete(m),
    route_list: () => routes.list(),
    // Where MadoHub keeps its state (the picker's own file is there): Lua builds no path of its own.
    paths: () => ({ stateDir: stateDir() }),
  };
}
