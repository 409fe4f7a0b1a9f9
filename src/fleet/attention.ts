// Which changes of the fleet are news for the user, and how they are told: one notice per agent
// per transition into a state that needs the user (Waiting, a turn's end, a failure, an exit), none
// for an agent in sight, none for a muted one, a burst told as one summary. Pure but for its timer:
// the Neovim side and the daemon each feed it the entries they see and send its notices on.
import { AGENT_STATES, STATE_FACTS } from '../shared/types.js';
import type { AgentState } from '../shared/types.js';
import { clip, noControl } from '../shared/text.js';
import type { FleetEntry } from './entry.js';
import { spendShort } from '../usage/sum.js';
import type { BudgetLimit, Spend } from '../usage/types.js';
import { MAX_TOLD, waitKey } from './told-ledger.js';
import type { ToldWaits } from './told-ledger.js';

/** A turn's end, however it was told (the screen's Stopped, the records' Completed, a failure, the exit). */
const ENDED: ReadonlySet<AgentState> = new Set(['stopped', 'completed', 'failed', 'exited']);
/** A turn's end: what an agent's records confirm after its screen (an exit or a failure is no less). */
const TURN_ENDS: ReadonlySet<AgentState> = new Set(['stopped', 'completed']);

/** A quiet period, in minutes since midnight (local time): `from` may be after `to` (it spans midnight). */
export interface QuietPeriod {
  from: number;
  to: number;
}

export interface AttentionSettings {
  /** Off: no notice at all. */
  enabled: boolean;
  /** Which states are news. */
  states: Readonly<Partial<Record<AgentState, boolean>>>;
  /** The display words of the states (the user's `words`). */
  words: Readonly<Record<string, string>>;
  /** Notices within this many ms of the first of a burst are told together, as one summary. */
  burstMs: number;
  /** When nothing is told outside the editor (desktop, the terminal's notification and bell). */
  quiet: QuietPeriod | null;
}

export const DEFAULT_ATTENTION: AttentionSettings = {
  enabled: true,
  // The states that are news by default (the user's `notify.states` says otherwise): their table says.
  states: Object.fromEntries(AGENT_STATES.filter((s) => STATE_FACTS[s].told).map((s) => [s, true])),
  words: {},
  burstMs: 2000,
  quiet: null,
};

/** One agent's news, as a notice tells it. */
export interface NewsItem {
  id: string;
  kind: FleetEntry['kind'];
  /** The agent's name as the picker shows it. */
  name: string;
  /** The agent's display name (Claude Code, Codex). */
  agentName: string;
  state: AgentState;
  /** The state's word. */
  word: string;
  /** The question it asks, else its last line: one line, no control character. */
  line: string;
  /** `buffer 3`, `job 1a2b3c4d`. */
  where: string;
  /** A job's short id ('' for the others). */
  short: string;
  /** News of a budget crossed (|madohub-usage|), not of a state: which (`its session's budget`). */
  budget?: string;
}

export interface Notice {
  /** Numbers the notices of one teller; a summary names the notice it stands for (`replaces`). */
  seq: number;
  items: NewsItem[];
  title: string;
  body: string;
  /** The notice on one line, inside the editor (its message area). */
  message: string;
  /** Waiting and Failed are warnings. */
  urgent: boolean;
  /** The entry a click on it goes to (the latest of a summary). */
  jump: string;
  /** The notice of the same burst this one tells again with the rest (a desktop notifier replaces it). */
  replaces: number | null;
  /** The seq of its burst's first notice (what a terminal's notification is replaced by). */
  burst: number;
  /** Inside the quiet period: told inside the editor only. */
  quiet: boolean;
}

/** What may be muted: every state of an entry (`all`), or some. */
export type Mute = 'all' | ReadonlySet<AgentState>;

export interface AttentionDeps {
  /** The agent's display name. */
  agentName(agent: string): string;
  /** How the user gets there from the desktop, after the line (`mado attach 1a2b3c4d`), or '' (a click does). */
  howTo(item: NewsItem): string;
  /** Whether the turn that just ended was a route's delivery, by what the entry's owner keeps (a job's chain file). */
  routed?(e: FleetEntry): boolean;
  /**
   * The waits of jobs any teller of this machine knew of (the daemon, this process before a restart):
   * a job first seen waiting is news when none knew of its wait. Without it, first seen is no news.
   */
  toldWaits?: ToldWaits;
  /** The local time of day in minutes (tests set it). */
  minutesNow?(): number;
  setTimer?(fn: () => void, ms: number): unknown;
  clearTimer?(handle: unknown): void;
}

/**
 * A wait told before its question (the agent's own word comes a moment before its screen shows what
 * it asks) waits this long for the question; past it, it is told with what it has.
 */
export const QUESTION_MS = 600;
/**
 * A turn's end the screen read alone (its completion line) waits this long for the agent's records
 * to confirm it (Claude Code's transcript lands a moment after its screen): the notice then says the
 * settled word and the answer the records hold, not the screen's `Worked for 10s`.
 */
export const SETTLE_MS = 1000;

/** News that waits for more before it is told: while `holds` says so, `ms` at most; then told when `tells`. */
interface Hold {
  holds(e: FleetEntry): boolean;
  tells(e: FleetEntry): boolean;
  ms: number;
}

const HOLDS: readonly Hold[] = [
  // A wait told before its question: for the question (the agent's own word comes before its screen).
  { holds: (e) => e.state === 'waiting' && !e.needs?.question, tells: (e) => e.state === 'waiting', ms: QUESTION_MS },
  // A terminal's turn end its screen read alone: for its records' word and answer. Confirmed, or more
  // than a turn's end (it failed, exited), it is told as it is then; a new turn drops it.
  {
    holds: (e) => e.kind === 'terminal' && TURN_ENDS.has(e.state) && !e.confirmed,
    tells: (e) => ENDED.has(e.state),
    ms: SETTLE_MS,
  },
];

/** The most lines of a summary's body (the rest are counted). */
const MAX_SUMMARY_LINES = 8;
/** A notice's line: the question or last line, cut. */
const MAX_LINE = 200;

/** Whether `minutes` (of the day) falls in `quiet`. */
export function inQuiet(quiet: QuietPeriod | null, minutes: number): boolean {
  if (!quiet || quiet.from === quiet.to) return false;
  return quiet.from < quiet.to
    ? minutes >= quiet.from && minutes < quiet.to
    : minutes >= quiet.from || minutes < quiet.to;
}

/** `HH:MM` as minutes since midnight, or undefined when it is none. */
export function minutesOf(text: string): number | undefined {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

export class Attention {
  private settings: AttentionSettings = DEFAULT_ATTENTION;
  /** Each entry's state when last seen (an entry first seen is no news: it was so before). */
  private readonly states = new Map<string, AgentState>();
  /** Each entry's count of ended turns when last seen (a count that grew is a turn's end, seen at work or not). */
  private readonly turns = new Map<string, number>();
  /** The waits this engine kept in `toldWaits` (each is written once). */
  private readonly keptWaits = new Set<string>();
  /**
   * Entries seen at work (Working, Waiting) since their last turn's end was told, or since first seen:
   * a turn's end without it is an old one read anew (a restarted Node process, setup() again, a
   * follower catching up on a transcript), no news.
   */
  private readonly worked = new Set<string>();
  private readonly mutes = new Map<string, Mute>();
  /** The limits of the budget each entry was over when last seen (a limit crossed anew is news, once). */
  private readonly over = new Map<string, ReadonlySet<BudgetLimit>>();
  /** The days whose budget the fleet crossed (told once a day). */
  private dayTold = '';
  /** Entries a route's delivery set working: the end of that turn is the route's, not the user's news. */
  private readonly delivered = new Set<string>();
  /** The buffers in sight (their windows show in the current tab page): their agents are seen there. */
  private sightBufs: ReadonlySet<number> = new Set();
  /** Whether the editor has the focus (undefined: its terminal never said). */
  private focused: boolean | undefined;
  private seq = 0;
  /**
   * News held for what is still to come, by entry, the entry as last seen: a wait for its question
   * (QUESTION_MS), a turn's end the screen read alone for its records' word (SETTLE_MS).
   */
  private readonly held = new Map<string, { kind: Hold; entry: FleetEntry; route: boolean; timer: unknown }>();
  /** The burst under way: its first notice, and what came since (by entry, the latest). */
  private burst?: { first: Notice; held: Map<string, NewsItem>; timer: unknown };

  constructor(
    private readonly deps: AttentionDeps,
    private readonly tell: (notice: Notice) => void,
  ) {}

  configure(settings: AttentionSettings): void {
    this.settings = settings;
  }

  /** The buffers in sight (shown in the current tab page), and whether the editor has the focus. */
  inSight(bufs: ReadonlySet<number>, focused: boolean | undefined): void {
    this.sightBufs = bufs;
    this.focused = focused;
  }

  /** Whether the editor is known to have the focus (a notice then stays inside it). */
  get hasFocus(): boolean {
    return this.focused === true;
  }

  mute(id: string, mute: Mute | null): void {
    if (mute === null) this.mutes.delete(id);
    else this.mutes.set(id, mute);
  }

  mutesOf(): ReadonlyMap<string, Mute> {
    return this.mutes;
  }

  /** A route delivered to `id`: the turn it starts is the route's business (its question or failure is still news). */
  routeDelivered(id: string): void {
    this.delivered.add(id);
  }

  /**
   * The entries as they are now (put: new or changed); each that changed state may be news. Answers
   * the entries that came to need the user (told or not: in sight, muted), for `:MadoJump`.
   */
  entries(put: readonly FleetEntry[]): string[] {
    const wanted: string[] = [];
    for (const e of put) {
      // This place's own: its terminals and the jobs (a session elsewhere, another Neovim's terminal
      // are told where they run; a terminal that shows a job is that job's view).
      if ((e.kind !== 'terminal' && e.kind !== 'job') || e.shows !== '') continue;
      this.budgetNews(e);
      this.heldCame(e);
      const seen = this.states.get(e.id);
      const turnsBefore = this.turns.get(e.id);
      this.states.set(e.id, e.state);
      this.turns.set(e.id, e.turns);
      // A turn its owner counts as ended, though no reading saw its Working (done, then done again),
      // is a turn's end; a wait no teller of this machine knew of is news though first seen here.
      const turnEnded = turnsBefore !== undefined && e.turns > turnsBefore && TURN_ENDS.has(e.state);
      const before = turnEnded ? 'working' : (seen ?? (this.untoldWait(e) ? 'working' : undefined));
      this.keepWait(e);
      if (e.state === 'working' || e.state === 'waiting' || turnEnded) this.worked.add(e.id);
      if (before === undefined || before === e.state) continue;
      const route = this.delivered.has(e.id);
      if (ENDED.has(e.state)) this.delivered.delete(e.id);
      if (!this.needsUser(e, before)) continue;
      wanted.push(e.id);
      const hold = HOLDS.find((h) => h.holds(e));
      if (hold) this.hold(hold, e, route);
      else if (this.told(e, route)) this.add(this.item(e));
    }
    return wanted;
  }

  /**
   * The limits of the budget an entry crossed since it was last seen: each is news once (a turn's
   * again in a later turn, once its turn's spending went back under it). First seen over it, it is none.
   */
  private budgetNews(e: FleetEntry): void {
    const now = new Set(e.usage?.overBudget ?? []);
    const before = this.over.get(e.id);
    this.over.set(e.id, now);
    if (!before || !this.settings.enabled || this.mutes.get(e.id) === 'all' || !e.usage) return;
    for (const limit of now) {
      if (before.has(limit)) continue;
      const spent = limit === 'turn' ? e.usage.turn : e.usage;
      this.add({ ...this.item(e), budget: `its ${limit}'s budget`, line: spendShort(spent) });
    }
  }

  /** The fleet's spending today: over the day's budget is news, once a day. */
  spending(s: { day: string; today: Spend; overDay: boolean }): void {
    if (!s.overDay || this.dayTold === s.day || !this.settings.enabled) return;
    this.dayTold = s.day;
    this.add({
      id: '',
      kind: 'terminal',
      name: 'The fleet',
      agentName: '',
      state: 'working',
      word: '',
      line: `today ${spendShort(s.today)}`,
      where: '',
      short: '',
      budget: "the day's budget",
    });
  }

  /** A job first seen waiting, whose wait no teller of this machine knew of. */
  private untoldWait(e: FleetEntry): boolean {
    const told = this.deps.toldWaits;
    return told !== undefined && e.kind === 'job' && e.state === 'waiting' && !told.has(this.waitOf(e));
  }

  /** A job's wait, kept as known (once per wait): a teller after this one takes it as no news. */
  private keepWait(e: FleetEntry): void {
    const told = this.deps.toldWaits;
    if (told === undefined || e.kind !== 'job' || e.state !== 'waiting') return;
    const key = this.waitOf(e);
    if (this.keptWaits.has(key)) return;
    // Bounded as the file is: a wait forgotten here is at worst kept in the file again.
    if (this.keptWaits.size >= MAX_TOLD) this.keptWaits.clear();
    this.keptWaits.add(key);
    told.add(key);
  }

  private waitOf(e: FleetEntry): string {
    return waitKey(e.id, e.turns, e.needs?.question ?? '');
  }

  /** News held (see HOLDS): told once what it waits for comes, or as it is after its time. */
  private hold(kind: Hold, e: FleetEntry, route: boolean): void {
    const timer = this.setTimer(() => {
      const held = this.held.get(e.id);
      this.held.delete(e.id);
      if (held?.kind.tells(held.entry) && this.told(held.entry, held.route)) this.add(this.item(held.entry));
    }, kind.ms);
    this.held.set(e.id, { kind, entry: e, route, timer });
  }

  /** What a held entry is now: still waiting (kept as it is), or come (told, when it still tells). */
  private heldCame(e: FleetEntry): void {
    const held = this.held.get(e.id);
    if (!held) return;
    if (held.kind.holds(e)) {
      held.entry = e;
      return;
    }
    this.unhold(e.id);
    if (held.kind.tells(e) && this.told(e, held.route)) this.add(this.item(e));
  }

  private unhold(id: string): void {
    const held = this.held.get(id);
    if (!held) return;
    this.clearTimer(held.timer);
    this.held.delete(id);
  }

  /** How many entries it keeps a memory of (each entry listed; one that left is forgotten: removed). */
  get remembered(): number {
    return this.states.size;
  }

  /** Entries that left the fleet. */
  removed(ids: readonly string[]): void {
    for (const id of ids) {
      this.unhold(id);
      this.states.delete(id);
      this.turns.delete(id);
      this.over.delete(id);
      this.worked.delete(id);
      this.delivered.delete(id);
      this.burst?.held.delete(id);
    }
  }

  stop(): void {
    for (const id of [...this.held.keys()]) this.unhold(id);
    if (this.burst) this.clearTimer(this.burst.timer);
    this.burst = undefined;
  }

  /** The deps' timers (the tests'), else Node's, which keep no process alive. */
  private setTimer(fn: () => void, ms: number): unknown {
    return this.deps.setTimer ? this.deps.setTimer(fn, ms) : setTimeout(fn, ms).unref();
  }

  private clearTimer(handle: unknown): void {
    if (this.deps.clearTimer) this.deps.clearTimer(handle);
    else clearTimeout(handle as NodeJS.Timeout);
  }

  /** Whether `e` entering its state from `before` needs the user (by the user's states). */
  private needsUser(e: FleetEntry, before: AgentState): boolean {
    const s = this.settings;
    const state = e.state;
    if (!s.enabled || s.states[state] !== true) return false;
    // A crash after a turn ended (the agent failed, a job's agent killed: errored) is news; your own
    // interrupt is not, nor an exit (a job you stopped, a terminal you closed).
    if (state === 'failed' && TURN_ENDS.has(before)) return !e.interrupted;
    if (state === 'exited' && e.interrupted) return false;
    // A turn's end is news once per turn seen at work.
    if (TURN_ENDS.has(state)) {
      if (!this.worked.has(e.id)) return false;
      this.worked.delete(e.id);
    }
    // One need per turn's end: the end told again by another source (Stopped, then Completed) is the same.
    return !(ENDED.has(state) && ENDED.has(before));
  }

  /** Whether the need is told: not for a route's own turn's end, a muted entry, one in sight. */
  private told(e: FleetEntry, route: boolean): boolean {
    // A route's own delivery: its end goes on by the route; a question or a failure in it needs the user.
    if ((e.state === 'completed' || e.state === 'stopped') && (route || this.deps.routed?.(e) === true)) return false;
    const mute = this.mutes.get(e.id);
    if (mute === 'all' || mute?.has(e.state)) return false;
    // In sight while the editor has the focus (or its terminal never tells focus): seen where it is.
    return !(e.buf !== null && this.sightBufs.has(e.buf) && this.focused !== false);
  }

  private item(e: FleetEntry): NewsItem {
    const question = e.state === 'waiting' && e.needs?.question ? e.needs.question : '';
    return {
      id: e.id,
      kind: e.kind,
      name: clip(noControl(e.name), 80),
      agentName: clip(noControl(this.deps.agentName(e.agent)), 40),
      state: e.state,
      // The user's word for the state, else its name as the states are shown (`Waiting`).
      word: this.settings.words[e.state] ?? `${e.state.charAt(0).toUpperCase()}${e.state.slice(1)}`,
      line: clip(noControl(question || e.detail), MAX_LINE),
      where: e.kind === 'job' ? `job ${e.host ? `${e.host}:` : ''}${e.short}` : clip(noControl(e.where), 40),
      short: e.short,
    };
  }

  private add(item: NewsItem): void {
    if (this.burst) {
      this.burst.held.set(item.id, item);
      return;
    }
    const first = this.notice([item], null, null);
    this.tell(first);
    this.openBurst(first);
  }

  private openBurst(first: Notice): void {
    const timer = this.setTimer(() => this.burstEnds(), Math.max(0, this.settings.burstMs));
    this.burst = { first, held: new Map(), timer };
  }

  /** A burst's window closed: what came meanwhile is told with its first, as one summary. */
  private burstEnds(): void {
    const b = this.burst;
    this.burst = undefined;
    if (!b) return;
    // What is no longer so is left out (a wait answered, an agent at work again, before the window closed).
    const held = [...b.held.values()].filter((i) => this.stillSo(i));
    if (held.length === 0) return;
    const items = new Map(b.first.items.filter((i) => this.stillSo(i)).map((i) => [i.id, i]));
    for (const i of held) {
      items.delete(i.id);
      items.set(i.id, i);
    }
    const summary = this.notice([...items.values()], b.first.seq, b.first.burst);
    this.tell(summary);
    // The burst may go on: what comes in the next window is told with this summary.
    this.openBurst(summary);
  }

  /** Whether news is still so: its agent not at work again, a wait still waiting (a budget's stays so). */
  private stillSo(i: NewsItem): boolean {
    if (i.budget !== undefined) return true;
    const now = this.states.get(i.id);
    return i.state === 'waiting' ? now === 'waiting' : now !== undefined && now !== 'working';
  }

  private notice(items: NewsItem[], replaces: number | null, burst: number | null): Notice {
    const urgent = items.some((i) => i.state === 'waiting' || i.state === 'failed' || i.budget !== undefined);
    const last = items[items.length - 1]!;
    const quiet = inQuiet(this.settings.quiet, this.deps.minutesNow?.() ?? localMinutes());
    const seq = ++this.seq;
    if (items.length === 1 && last.budget !== undefined) {
      return {
        seq,
        items,
        title: `${last.name}: over ${last.budget}`,
        body: last.line,
        message: `${last.name} is over ${last.budget}: ${last.line}${last.id ? ' — :MadoJump' : ''}`,
        urgent,
        jump: last.id,
        replaces,
        burst: burst ?? seq,
        quiet,
      };
    }
    if (items.length === 1) {
      const how = this.deps.howTo(last);
      return {
        seq,
        items,
        title: `${last.name}: ${last.agentName} ${last.word}`,
        // What it asks or said, and how to get there from where the notice is seen (`mado attach ID`
        // outside the editor); no buffer number nor editor command, which mean nothing on a desktop.
        body: [last.line, how].filter((l) => l !== '').join('\n'),
        message: `${last.agentName} is ${last.word} in ${last.where} (${last.name})${urgent && last.line ? `: ${clip(last.line, 80)}` : ''} — :MadoJump`,
        urgent,
        jump: last.id,
        replaces,
        burst: burst ?? seq,
        quiet,
      };
    }
    const lines = items
      .slice(-MAX_SUMMARY_LINES)
      .map((i) =>
        i.budget !== undefined
          ? `${i.name}: over ${i.budget} — ${i.line}`
          : `${i.name}: ${i.word}${i.line ? ` — ${clip(i.line, 60)}` : ''}`,
      );
    if (items.length > MAX_SUMMARY_LINES) lines.unshift(`and ${items.length - MAX_SUMMARY_LINES} more`);
    const how = this.deps.howTo(last);
    if (how) lines.push(how);
    const message = `${items.length} agents need you: ${items
      .slice(-MAX_SUMMARY_LINES)
      .map((i) => `${i.name} (${i.budget !== undefined ? `over ${i.budget}` : i.word})`)
      .join(
        ', ',
      )}${items.length > MAX_SUMMARY_LINES ? ` and ${items.length - MAX_SUMMARY_LINES} more` : ''} — :MadoJump`;
    return {
      seq,
      items,
      title: `${items.length} agents need you`,
      body: lines.join('\n'),
      message,
      urgent,
      jump: last.id,
      replaces,
      burst: burst ?? seq,
      quiet,
    };
  }
}

function localMinutes(): number {
  const d = new Date();
  return d.getHours() * 60 + d.getMinutes();
}
