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
import { channelsOf } from '../fleet/channels/index.js';
import type { ChannelHealth, EditorParts, NoticeChannel } from '../fleet/channels/index.js';
import type { FleetChange } from '../fleet/fleet.js';
import type { FleetHub } from '../fleet/hub.js';
import type { FleetSpending } from '../fleet/spending.js';
import { DEFAULT_NOTIFY, parseNotifySettings, readNotifyFile, writeNotifyFile } from '../fleet/notify-settings.js';
import type { NotifySettings } from '../fleet/notify-settings.js';
import { ToldLedger } from '../fleet/told-ledger.js';
import { AGENT_STATES, isAgentState } from '../shared/types.js';
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

/** What :checkhealth says of the channels: each one, and what the user should fix. */
export interface AttentionHealth {
  channels: ChannelHealth[];
  problems: string[];
}

export class NvimAttention {
  private settings: NotifySettings = DEFAULT_NOTIFY;
  private problems: string[] = [];
  /** The ways a notice goes outside the editor (src/fleet/channels/). */
  private readonly channels: NoticeChannel[];
  private readonly engine: Attention;
  /** Terminals a route delivered to whose turn is under way (a job's says its chain file). */
  private readonly dir = jobsDir();
  /** Told when a desktop run starts (the benchmark). */
  onDesktopStarted?: (n: Notice) => void;

  constructor(
    private readonly hub: FleetHub,
    private readonly out: AttentionOut,
    env: NodeJS.ProcessEnv = process.env,
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
    this.channels = channelsOf('nvim', {
      env,
      debug: (m) => this.out.debug(m),
      warn: (m) => this.out.warn(m),
      jump: (id) => this.out.jump(id),
      started: (n) => this.onDesktopStarted?.(n),
    });
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
    for (const c of this.channels) c.configure(settings);
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

  /** What the fleet spent today: over the day's budget is news, once a day. */
  spending(s: FleetSpending): void {
    this.engine.spending(s);
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
    if (bad !== undefined) throw new Error(`no state '${bad.slice(0, 40)}' (${AGENT_STATES.join(', ')})`);
    const mute: Mute | null = !on ? null : states.length === 0 ? 'all' : new Set(states.filter(isAgentState));
    this.engine.mute(id, mute);
    writeNotifyFile(this.dir, this.settings, this.engine.mutesOf(), (m) => this.out.debug(m));
    this.pushMutes();
    return mute === null ? 'unmuted' : mute === 'all' ? 'muted' : `muted when ${[...mute].join(', ')}`;
  }

  health(): AttentionHealth {
    const channels = this.channels.map((c) => c.health());
    return { channels, problems: [...this.problems, ...channels.flatMap((c) => c.problems)] };
  }

  stop(): void {
    this.engine.stop();
    for (const c of this.channels) c.stop();
  }

  private tell(n: Notice): void {
    // Outside the editor: not while it has the focus, not in the quiet period, a job's only from one Neovim.
    const shared = n.items.some((i) => i.kind !== 'terminal');
    const outside = !n.quiet && !this.engine.hasFocus && (!shared || this.hub.tellsShared());
    const parts: EditorParts = { osc: '', bell: false };
    if (outside) for (const c of this.channels) Object.assign(parts, c.tell(n));
    this.out.notice({ message: n.message, urgent: n.urgent, jump: n.jump, ...parts });
  }
}
