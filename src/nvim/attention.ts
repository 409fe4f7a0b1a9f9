// Attention, on the Neovim side: the fleet's changes go through the attention engine, and each
// notice goes out through every channel the user keeps on — inside Neovim (a message, and the
// `wanted` list of :MadoJump), on the desktop (the notifier, run here), through the terminal Neovim
// runs in (an OSC notification and the bell, which Lua writes to its UI). Outside the editor only
// while Neovim does not have the focus and outside the quiet period; a job's news outside only from
// the Neovim focused last (the daemon tells it while no Neovim runs).
import path from 'node:path';
import { chainOfTurn } from '../jobs/chain-record.js';
import { jobsDir } from '../jobs/store.js';
import { agentModule } from '../agents/index.js';
import { Attention } from '../fleet/attention.js';
import type { Mute, Notice } from '../fleet/attention.js';
import { Desktop, findNotifier, NOTICE_VARS, probe, runsShell } from '../fleet/desktop.js';
import type { FleetChange } from '../fleet/fleet.js';
import type { FleetHub } from '../fleet/hub.js';
import { DEFAULT_NOTIFY, parseNotifySettings, readNotifyFile, writeNotifyFile } from '../fleet/notify-settings.js';
import type { NotifySettings } from '../fleet/notify-settings.js';
import { ToldLedger } from '../fleet/told-ledger.js';
import { oscKind, oscNotification, parseTmuxClient } from '../fleet/outer-terminal.js';
import type { TmuxClient } from '../fleet/outer-terminal.js';
import { execFile } from 'node:child_process';
import { isAgentState } from '../shared/types.js';
import type { AgentState } from '../shared/types.js';

/** A notice as Lua takes it: its message, and what it writes to its UI's terminal. */
export interface LuaNotice {
  message: string;
  urgent: boolean;
  jump: string;
  /** The OSC notification's bytes ('' for none). */
  osc: string;
  bell: boolean;
}

export interface AttentionOut {
  /** A notice for Lua (it goes with the batch of the change that made it). */
  notice(n: LuaNotice): void;
  /** Entries that came to need the user (for :MadoJump), told or not. */
  wanted(ids: string[]): void;
  /** The mutes changed (the picker marks them). */
  mutes(list: { id: string; states: 'all' | AgentState[] }[]): void;
  /** A desktop notice clicked: go there. */
  jump(id: string): void;
  warn(m: string): void;
  debug(m: string): void;
}

/** What :checkhealth says of the channels. */
export interface AttentionHealth {
  desktop: string;
  terminal: string;
  problems: string[];
}

/** :checkhealth's word on a notifier command that is a shell. */
const SHELL_TEMPLATE = `notify.desktop.command runs a shell: in its script {title}, {body} and {urgency} become "$${NOTICE_VARS.title}", "$${NOTICE_VARS.body}" and "$${NOTICE_VARS.urgency}" (the texts are never spliced into it); a program given {title} and {body} as its own arguments needs no shell`;

export class NvimAttention {
  private settings: NotifySettings = DEFAULT_NOTIFY;
  private problems: string[] = [];
  private desktop?: Desktop;
  private desktopWhy = 'not looked for yet';
  /** The notifier's capabilities being learnt (bounded): a notice meanwhile waits for them. */
  private probing?: Promise<void>;
  private readonly engine: Attention;
  /** Terminals a route delivered to whose turn is under way (a job's says its chain file). */
  private readonly dir = jobsDir();
  /** Told when a desktop run starts (the benchmark). */
  onDesktopStarted?: (n: Notice) => void;
  /** Inside tmux: the terminal its client runs in, as tmux says (asked once, bounded). */
  private tmuxClient?: TmuxClient;

  constructor(
    private readonly hub: FleetHub,
    private readonly out: AttentionOut,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.engine = new Attention(
      {
        agentName: (id) => agentModule(id).displayName,
        // A click on the notice goes there (|:MadoJump| inside the editor): a terminal needs no command
        // on a desktop; a job of this machine is picked up from any shell as the daemon says it.
        howTo: (i) => (i.kind === 'job' && i.where === `job ${i.short}` ? `mado attach ${i.short}` : ''),
        routed: (e) =>
          e.kind === 'job' &&
          e.short !== '' &&
          e.host === '' &&
          chainOfTurn(path.join(this.dir, e.short), e.turns) !== undefined,
        toldWaits: new ToldLedger(this.dir, (m) => this.out.debug(m)),
      },
      (n) => this.tell(n),
    );
    // The jobs' mutes a Neovim kept (this one's Node process before this one, or another Neovim's).
    for (const [id, m] of readNotifyFile(this.dir).mutes) this.engine.mute(id, m);
    if (env.TMUX) this.askTmux();
  }

  /** Which terminal tmux's client runs in ('auto' inside tmux: its own TERM says only tmux). */
  private askTmux(): void {
    const target = this.env.TMUX_PANE && /^%\d+$/.test(this.env.TMUX_PANE) ? ['-t', this.env.TMUX_PANE] : [];
    execFile(
      'tmux',
      ['display-message', '-p', ...target, '#{client_termname}\t#{client_termtype}'],
      { timeout: 1000, maxBuffer: 4096, env: this.env },
      (err, out) => {
        if (err) return this.out.debug(`tmux does not say its client's terminal: ${err.message}`);
        this.tmuxClient = parseTmuxClient(String(out));
      },
    );
  }

  /** Tells Lua every mute (the picker marks them). */
  private pushMutes(): void {
    this.out.mutes([...this.engine.mutesOf()].map(([i, m]) => ({ id: i, states: m === 'all' ? 'all' : [...m] })));
  }

  /** The user's `notify` settings and state words (from setup()). */
  configure(notify: unknown, words: unknown): void {
    const { settings, problems } = parseNotifySettings(notify, words);
    this.settings = settings;
    this.problems = problems;
    for (const p of problems) this.out.warn(p);
    this.engine.configure(settings.attention);
    this.desktop?.stop();
    this.desktop = undefined;
    if (settings.desktop.enabled) {
      const found = findNotifier(settings.desktop.command, this.env);
      if (found.ok) {
        this.desktopWhy = '';
        // Its capabilities come in a moment (a bounded --help); a notice meanwhile waits for them.
        this.desktop = this.newDesktop(found.notifier);
        const asked = this.desktop;
        const probing = probe(found.notifier).then((n) => {
          if (this.desktop === asked) this.desktop = this.newDesktop(n);
          if (this.probing === probing) this.probing = undefined;
        });
        this.probing = probing;
      } else this.desktopWhy = found.why;
    } else this.desktopWhy = 'off (notify.desktop.enabled)';
    writeNotifyFile(this.dir, settings, this.engine.mutesOf(), (m) => this.out.debug(m));
    this.pushMutes();
  }

  /** The buffers in sight and the focus (from Lua); a focus gained is published for the other Neovims. */
  sight(bufs: readonly number[], focused: boolean | undefined, focusGained: boolean): void {
    this.engine.inSight(new Set(bufs), focused);
    if (focusGained) this.hub.focused(Date.now());
  }

  fleet(change: FleetChange): void {
    this.engine.removed(change.removed);
    const wanted = this.engine.entries(change.put);
    if (wanted.length > 0) this.out.wanted(wanted);
  }

  /** A route delivered to `target` (a fleet id): the turn it starts ends as the route's business. */
  routeDelivered(target: string): void {
    this.engine.routeDelivered(target);
  }

  /**
   * Mutes an entry (`states`: all of them when empty), or unmutes it (`on` false). Answers the entry's mute
   * in words.
   */
  mute(id: string, states: readonly string[], on: boolean): string {
    const bad = states.find((s) => !isAgentState(s));
    if (bad !== undefined)
      throw new Error(`no state '${bad.slice(0, 40)}' (waiting, completed, stopped, failed, exited)`);
    const mute: Mute | null = !on ? null : states.length === 0 ? 'all' : new Set(states.filter(isAgentState));
    this.engine.mute(id, mute);
    writeNotifyFile(this.dir, this.settings, this.engine.mutesOf(), (m) => this.out.debug(m));
    this.pushMutes();
    return mute === null ? 'unmuted' : mute === 'all' ? 'muted' : `muted when ${[...mute].join(', ')}`;
  }

  health(): AttentionHealth {
    const n = this.desktop?.notifier;
    const kind = oscKind(this.settings.terminal.osc, this.env, this.tmuxClient);
    return {
      desktop: n
        ? `${n.exe}${n.actions ? ' (with "Go there")' : ''}${n.replace ? ' (a summary replaces its burst)' : ''}`
        : this.desktopWhy,
      terminal: `${kind ? `OSC ${kind}${this.env.TMUX ? ' through tmux' : ''}` : this.settings.terminal.osc === false ? 'no OSC notification (off)' : 'no OSC notification (no terminal known to take one; set notify.terminal.osc)'}; bell ${this.settings.terminal.bell ? 'on' : 'off'}; title ${this.settings.terminal.title ? 'on' : 'off'}`,
      problems: n && runsShell(n) ? [...this.problems, SHELL_TEMPLATE] : this.problems,
    };
  }

  stop(): void {
    this.engine.stop();
    this.desktop?.stop();
  }

  private newDesktop(n: Desktop['notifier']): Desktop {
    return new Desktop(
      n,
      { debug: (m) => this.out.debug(m), warn: (m) => this.out.warn(m) },
      (id) => this.out.jump(id),
      (notice) => this.onDesktopStarted?.(notice),
    );
  }

  private tell(n: Notice): void {
    // Outside the editor: not while it has the focus, not in the quiet period, a job's only from one Neovim.
    const shared = n.items.some((i) => i.kind !== 'terminal');
    const outside = !n.quiet && !this.engine.hasFocus && (!shared || this.hub.tellsShared());
    if (outside && this.desktop) {
      if (this.probing) void this.probing.then(() => this.desktop?.show(n));
      else this.desktop.show(n);
    }
    const kind = outside ? oscKind(this.settings.terminal.osc, this.env, this.tmuxClient) : null;
    this.out.notice({
      message: n.message,
      urgent: n.urgent,
      jump: n.jump,
      osc: kind ? oscNotification(kind, n.title, n.body, n.burst, this.env) : '',
      bell: outside && this.settings.terminal.bell,
    });
  }
}
