import { detectScreen, FALLBACK_AGENT, promptOf } from '../agents/index.js';
import { isAgentState, isConfirmed } from '../shared/types.js';
import type {
  AgentId,
  AgentState,
  Detection,
  PreviousReading,
  PushSignal,
  RecordSignal,
  Screen,
  StateSource,
} from '../shared/types.js';
import { PushState } from './push-state.js';
import { TentativeEnd } from './tentative.js';
import { SettlingIdle } from './settle.js';
import { decide } from './precedence.js';
import type { SourcedState } from './precedence.js';
import { INTERRUPTED, inTurn } from '../shared/types.js';
import { termBuf } from '../shared/fleet-id.js';

/** What the tracker keeps of one terminal buffer's state. */
interface TrackedState {
  buf: number;
  agent: AgentId;
  state: AgentState;
  source: StateSource;
  detail: string;
  /** Epoch milliseconds when `state` was entered. */
  since: number;
}

/** What the Lua side caches for one terminal buffer. */
export interface TerminalState extends TrackedState {
  /** The agent's own records say this state (from `source`, by isConfirmed). */
  confirmed: boolean;
  /** The terminal's exit status once it has exited; null before. */
  exit: number | null;
  /** A Failed state that is the user's interrupt (Escape, Ctrl-C), not an error. */
  interrupted: boolean;
}

/** A change pushed to Lua. `done` is set when this change is a completion (fires `MadoAgentDone`). */
export interface StateChange extends TerminalState {
  previous: AgentState | null;
  done?: { line: string };
}

/** What each source says of one terminal (see Tracker.sourcesOf). */
export interface TerminalSources {
  processAgent?: AgentId | null;
  screen?: PreviousReading;
  live?: SourcedState;
  turn?: SourcedState;
  notified?: PushSignal & { at: number };
}

/** A state from the agent's own records (when it was written is not needed here). */
export type RecordState = Omit<RecordSignal, 'at'>;

interface TerminalEntry extends TrackedState {
  /** The last screen's reading, with when its state last changed. */
  screen?: Detection & { at: number };
  live?: SourcedState;
  turn?: SourcedState;
  /** The agent the process tree shows: an agent, null when a scan found none, undefined before one. */
  processAgent?: AgentId | null;
  /** The completion line (its key) last seen, so that the same one seen again does not count. */
  lastCompletion?: string;
  /** Work was seen since the last completion event. */
  workedSinceDone: boolean;
  /** A record announced the end of this turn: the screen's completion line that follows is the same. */
  absorbNextLine: boolean;
  /**
   * A record ended the turn while the screen still showed it under way (working or waiting): until
   * the screen shows it ended, a Working it shows is that turn drawn late, not new work.
   */
  screenBehind?: boolean;
  /**
   * The live status went from Waiting back to Working (the question answered) and is still so: a
   * question the screen shows before it has shown that question go is the answered one, drawn late
   * (this agent's live status tells its next wait itself). `sawQuestion`: the screen has shown it since.
   */
  answered?: { sawQuestion: boolean };
  /** A record's tentative end read while the screen showed the turn under way (see TentativeEnd). */
  pendingEnd: TentativeEnd<RecordState & { at?: number }>;
  /** A screen's Idle after Working, held until the screen has stood so (see SettlingIdle). */
  settling: SettlingIdle<Detection>;
  /** When the record that ended the last turn was written (its own time): a record older than it is no new work. */
  doneAt?: number;
  /** Set when the job ended; final. */
  exitStatus?: number;
  /** The first prompt the agent echoed (its intent), and which agent echoed it. */
  intent?: { agent: AgentId; text: string };
  /** Since when an Idle or a screen's Stopped is held back, waiting for the record that ends the turn (see HOLD_MS). */
  heldSince?: number;
  /** The turn's end a held-back state carried (the screen's completion line): told with what shows next. */
  heldDone?: { line: string };
  /** What the agent's notifications to its terminal said (OSC 9, 777, 99), beside the other sources. */
  notified?: PushState;
}

/**
 * How long an Idle that the live status says while the turn's record still says Working is held
 * back: Claude Code's session file goes idle about 100 ms before its transcript's turn end is read
 * (and a loaded machine reads that end later still: 600 ms was seen to miss it in CI),
 * and that Idle is no state the agent is in (it is Completed). The same holds for the screen's
 * completion line drawn with that Idle (Stopped, then Completed ✓ 100 ms later was a flash). The
 * Idle, or the screen's Stopped, shows after this if no end comes.
 */
export const HOLD_MS = 1500;

/** The most terminals a new Node process takes back from Lua. */
const MAX_RESTORED = 500;

/**
 * Owns every terminal's state. Pure: fed screens, records, process scans and exits with the time,
 * it returns what changed for Lua.
 */
export class Tracker {
  private readonly restored = new Map<number, { agent: AgentId; state: AgentState; since: number }>();
  private readonly terminals = new Map<number, TerminalEntry>();

  get size(): number {
    return this.terminals.size;
  }

  get(buf: number): TerminalState | undefined {
    const r = this.terminals.get(buf);
    return r && publicState(r);
  }

  all(): TerminalState[] {
    return [...this.terminals.values()].map(publicState);
  }

  /** The first prompt the terminal's current agent echoed, if any. */
  intentOf(buf: number): string | undefined {
    const r = this.terminals.get(buf);
    return r?.intent && r.intent.agent === r.agent ? r.intent.text : undefined;
  }

  /**
   * What each source says of a terminal now, for `:MadoExplain`: the agent its process tree names
   * (null: none, undefined: not scanned yet), the screen's last reading, the records' states.
   */
  sourcesOf(buf: number): TerminalSources | undefined {
    const r = this.terminals.get(buf);
    if (!r) return undefined;
    return {
      processAgent: r.processAgent,
      screen: r.screen && { agent: r.screen.agent, state: r.screen.state },
      live: r.live,
      turn: r.turn,
      notified: r.notified?.latest(),
    };
  }

  /** The agent the terminal shows now, for the process and record watchers. */
  agentOf(buf: number): AgentId | undefined {
    return this.terminals.get(buf)?.agent;
  }

  /** Feeds one screen. Returns the change, or null when agent, state and detail are as they were. */
  screen(buf: number, screen: Screen, now: number): StateChange | null {
    const record = this.terminals.get(buf);
    if (record?.exitStatus !== undefined) return null;
    // A terminal that has drawn nothing yet says nothing about its program: no "Shell" flash.
    // (Its title is then the command Neovim started, which says nothing either.)
    if (!record && screen.lines.every((l) => l.trim() === '')) return null;
    const previous = record?.screen && { agent: record.screen.agent, state: record.screen.state };
    // The agent the process tree names reads the screen with its own rules, whatever the screen shows of it.
    const detection = detectScreen(screen, previous, record?.processAgent ?? undefined);
    // An Idle right after Working waits for the screen to stand so (see SettlingIdle), unless a
    // record's end waits for it: the agent's word and its screen then agree.
    if (record && !record.settling.read(detection, previous, screen.lines, now)) {
      if (!record.pendingEnd.holding) return null;
      record.settling.drop();
    }
    const rec = record ?? this.create(buf, detection, now);
    if (rec.intent?.agent !== detection.agent) {
      const text = promptOf(detection.agent, screen.lines);
      if (text) rec.intent = { agent: detection.agent, text };
    }
    return this.reading(rec, detection, previous, record === undefined, now);
  }

  /** A screen's reading taken in (`previous`: the one before it): what changes with it. */
  private reading(
    rec: TerminalEntry,
    detection: Detection,
    previous: PreviousReading | undefined,
    isNew: boolean,
    now: number,
  ): StateChange | null {
    const changedAt = rec.screen && rec.screen.state === detection.state ? rec.screen.at : now;
    rec.screen = { ...detection, at: changedAt };
    let done: StateChange['done'];
    // A record's tentative end the screen lets go: its words tell the end, before the screen's line.
    const ended = rec.pendingEnd.screen(detection.state, previous?.state, now);
    if (ended) done = this.takeRecord(rec, ended, now);
    // New work is a screen that starts working: a spinner still turning after a record ended the turn
    // is the same turn, redrawn late, and so is one first drawn after it (a loaded machine reads the
    // approval's screen, the record's end, then the spinner's screen of that same turn).
    if (!inTurn(detection.state)) rec.screenBehind = false;
    if (rec.answered && detection.state === 'waiting') rec.answered.sawQuestion = true;
    else if (rec.answered?.sawQuestion) rec.answered = undefined;
    if (detection.state === 'working' && previous?.state !== 'working' && !rec.screenBehind) this.worked(rec);
    if (detection.completion !== undefined) {
      const newLine = detection.completion !== rec.lastCompletion;
      const fire = !isNew && (rec.workedSinceDone || (newLine && !rec.absorbNextLine));
      if (newLine) {
        rec.lastCompletion = detection.completion;
        rec.absorbNextLine = false;
      }
      if (fire) {
        done ??= this.done(rec, detection.detail);
        // A record written before the screen showed this end is of this turn: read again (a follower
        // started anew after a process scan lost the agent for a moment), it is no new work.
        rec.doneAt = Math.max(rec.doneAt ?? 0, changedAt);
      }
    }
    return this.emit(rec, isNew, now, done);
  }

  /** Feeds a state from the agent's own records. */
  record(buf: number, signal: RecordState & { at?: number }, now: number): StateChange | null {
    const rec = this.terminals.get(buf);
    if (!rec || rec.exitStatus !== undefined) return null;
    if (signal.source !== 'session-file') rec.pendingEnd.drop();
    if (signal.tentative && rec.pendingEnd.hold(signal, rec.screen?.state, now)) return null;
    return this.emit(rec, false, now, this.takeRecord(rec, signal, now));
  }

  /** A record's state taken in; the turn's end it tells, if it does. */
  private takeRecord(
    rec: TerminalEntry,
    signal: RecordState & { at?: number },
    now: number,
  ): StateChange['done'] | undefined {
    const sourced: SourcedState = {
      state: signal.state,
      source: signal.source,
      detail: signal.detail,
      at: now,
      ...(signal.at !== undefined ? { written: signal.at } : {}),
    };
    const before = signal.source === 'session-file' ? rec.live : rec.turn;
    if (signal.source === 'session-file') {
      rec.live = sourced;
      if (before?.state === 'waiting' && signal.state === 'working')
        rec.answered = { sawQuestion: rec.screen?.state === 'waiting' };
      else if (signal.state !== 'working') rec.answered = undefined;
    } else rec.turn = sourced;
    let done: StateChange['done'];
    // New work is a record that turns to working or waiting: the same state read again is not, nor
    // one written before the record that ended the turn (a session file read late, or read anew by
    // a follower started again after a process scan lost the agent for a moment).
    const stale = signal.at !== undefined && rec.doneAt !== undefined && signal.at < rec.doneAt;
    if ((signal.state === 'working' || signal.state === 'waiting') && before?.state !== signal.state && !stale) {
      this.worked(rec);
      // A new turn the records start: what the screen shows is of it (its question, which no record tells).
      rec.screenBehind = false;
    }
    if (signal.source !== 'session-file' && signal.state === 'completed' && (rec.workedSinceDone || rec.heldDone)) {
      // A screen's end held back for this record is the same end: the record's words tell it.
      rec.heldDone = undefined;
      done = this.done(rec, signal.detail);
      rec.absorbNextLine = true;
      rec.doneAt = signal.at;
      rec.screenBehind = inTurn(rec.screen?.state);
    }
    return done;
  }

  /**
   * A state a notification the agent asked its terminal for says (|TermRequest|: OSC 9, 777, 99).
   * The newer of it and the other sources decides (see PushState).
   */
  notification(buf: number, signal: PushSignal, now: number): StateChange | null {
    const rec = this.terminals.get(buf);
    if (!rec || rec.exitStatus !== undefined) return null;
    (rec.notified ??= new PushState('notification')).record(signal, now);
    return this.emit(rec, false, now);
  }

  /** The process tree says which agent runs (null: none). An agent that left takes its records along. */
  process(buf: number, agent: AgentId | null, now: number): StateChange | null {
    const rec = this.terminals.get(buf);
    if (!rec || rec.exitStatus !== undefined || rec.processAgent === agent) return null;
    const left = rec.processAgent !== undefined && rec.processAgent !== null && rec.processAgent !== agent;
    rec.processAgent = agent;
    if (left) {
      rec.live = undefined;
      rec.turn = undefined;
      rec.answered = undefined;
      rec.notified = undefined;
      // The screen's sticky identity belonged to the agent that left.
      if (rec.screen && agent === null)
        rec.screen = { ...rec.screen, agent: FALLBACK_AGENT, state: 'idle', detail: '' };
    }
    return this.emit(rec, false, now);
  }

  /** The terminal's job ended. */
  exit(buf: number, status: number, now: number): StateChange | null {
    const record = this.terminals.get(buf);
    const rec =
      record ?? this.create(buf, { agent: FALLBACK_AGENT, state: 'exited', source: 'terminal', detail: '' }, now);
    rec.exitStatus = status;
    return this.emit(rec, record === undefined, now);
  }

  forget(buf: number): boolean {
    return this.terminals.delete(buf);
  }

  /** When the earliest held-back state is due (epoch ms), or undefined when none is held. */
  nextRelease(): number | undefined {
    let next: number | undefined;
    for (const r of this.terminals.values()) {
      if (r.heldSince !== undefined) next = Math.min(next ?? Infinity, r.heldSince + HOLD_MS);
      const end = r.pendingEnd.due(r.screen?.state);
      if (end !== undefined) next = Math.min(next ?? Infinity, end);
      const settled = r.settling.dueAt();
      if (settled !== undefined) next = Math.min(next ?? Infinity, settled);
    }
    return next;
  }

  /** The held-back states that are due at `now`, as changes. */
  release(now: number): StateChange[] {
    const out: StateChange[] = [];
    for (const r of this.terminals.values()) {
      const idle = r.exitStatus === undefined ? r.settling.release(now) : undefined;
      if (idle) {
        const previous = r.screen && { agent: r.screen.agent, state: r.screen.state };
        const change = this.reading(r, idle, previous, false, now);
        if (change) out.push(change);
        continue;
      }
      const signal = r.pendingEnd.release(r.screen?.state, now);
      if (signal) {
        const change = this.emit(r, false, now, this.takeRecord(r, signal, now));
        if (change) out.push(change);
        continue;
      }
      if (r.heldSince === undefined || now < r.heldSince + HOLD_MS) continue;
      const change = this.emit(r, false, now);
      if (change) out.push(change);
    }
    return out;
  }

  /**
   * What the Node process before this one showed of this Neovim's terminals (Lua keeps it): a first
   * reading of a terminal in the same agent and state keeps its `since`.
   */
  restore(list: unknown): void {
    if (!Array.isArray(list)) return;
    const now = Date.now();
    for (const v of list.slice(0, MAX_RESTORED)) {
      if (typeof v !== 'object' || v === null) continue;
      const r = v as Record<string, unknown>;
      const buf = typeof r.id === 'string' ? termBuf(r.id) : undefined;
      if (
        buf === undefined ||
        typeof r.agent !== 'string' ||
        !isAgentState(r.state) ||
        typeof r.since !== 'number' ||
        !Number.isFinite(r.since) ||
        r.since > now
      )
        continue;
      this.restored.set(buf, { agent: r.agent, state: r.state, since: r.since });
    }
  }

  private create(buf: number, d: Detection, now: number): TerminalEntry {
    const before = this.restored.get(buf);
    this.restored.delete(buf);
    const rec: TerminalEntry = {
      buf,
      agent: d.agent,
      state: d.state,
      source: d.source,
      detail: d.detail,
      since: before && before.agent === d.agent && before.state === d.state ? before.since : now,
      workedSinceDone: false,
      absorbNextLine: false,
      pendingEnd: new TentativeEnd(),
      settling: new SettlingIdle(),
    };
    this.terminals.set(buf, rec);
    return rec;
  }

  private worked(rec: TerminalEntry): void {
    rec.workedSinceDone = true;
    rec.absorbNextLine = false;
  }

  private done(rec: TerminalEntry, line: string): { line: string } {
    rec.workedSinceDone = false;
    return { line };
  }

  /** What all sources say together. */
  private effective(rec: TerminalEntry, now: number): Omit<TrackedState, 'buf' | 'since'> {
    if (rec.exitStatus !== undefined) {
      return { agent: rec.agent, state: 'exited', source: 'terminal', detail: `exit ${rec.exitStatus}` };
    }
    const screen = rec.screen;
    const agent = rec.processAgent ?? screen?.agent ?? rec.agent;
    if (!screen) return { agent, state: rec.state, source: rec.source, detail: rec.detail };
    // A screen behind the record that ended the turn shows that turn still under way: older than any
    // record, it is no news (its late spinner would undo the end, and the end be told again).
    const sourced = decide({
      screen: {
        state: screen.state,
        source: 'pty-scrape',
        detail: screen.detail,
        at: rec.screenBehind || (rec.answered && screen.state === 'waiting') ? 0 : screen.at,
      },
      live: rec.live,
      turn: rec.turn,
    });
    const told = { agent, state: sourced.state, source: sourced.source, detail: sourced.detail };
    return rec.notified ? rec.notified.combine(told, now) : told;
  }

  private emit(rec: TerminalEntry, isNew: boolean, now: number, done?: { line: string }): StateChange | null {
    let next = this.effective(rec, now);
    // Working → Idle by the live status while the turn's record says it works: held back a while
    // for the record that ends the turn (then Completed shows, not an Idle flash between). So is the
    // live status going idle before this turn's records are read at all (a loaded machine reads the
    // transcript late): the end the records say then is the turn before's, learnt before this
    // turn's Working began.
    const liveIdle = rec.live?.state === 'idle';
    const recordOfTurnBefore =
      rec.turn !== undefined && rec.turn.at < rec.since && (next.state === 'completed' || next.state === 'failed');
    const awaitingEnd =
      !isNew &&
      rec.state === 'working' &&
      liveIdle &&
      ((next.state === 'idle' && next.source === 'session-file' && rec.turn?.state === 'working') ||
        (recordOfTurnBefore && next.source === rec.turn?.source));
    if (!awaitingEnd) rec.heldSince = undefined;
    else {
      rec.heldSince ??= now;
      if (now < rec.heldSince + HOLD_MS) {
        // The turn's end the screen told waits with it: the record's Completed tells it, or the release.
        if (done) rec.heldDone = done;
        return null;
      }
      rec.heldSince = undefined;
      // No record ended the turn in time: the screen's end is the state (Stopped), where it shows one.
      if (rec.screen && (rec.screen.state === 'stopped' || rec.screen.state === 'completed')) {
        next = { agent: next.agent, state: rec.screen.state, source: 'pty-scrape', detail: rec.screen.detail };
      }
    }
    if (rec.heldSince === undefined && rec.heldDone) {
      done ??= rec.heldDone;
      rec.heldDone = undefined;
    }
    const previous = isNew ? null : rec.state;
    const changed =
      isNew ||
      rec.agent !== next.agent ||
      rec.state !== next.state ||
      rec.detail !== next.detail ||
      rec.source !== next.source ||
      done !== undefined;
    if (!changed) return null;
    if (!isNew && (rec.state !== next.state || rec.agent !== next.agent || done)) rec.since = now;
    Object.assign(rec, next);
    const change: StateChange = { ...publicState(rec), previous };
    if (done) change.done = done;
    return change;
  }
}

function publicState(r: TerminalEntry): TerminalState {
  return {
    buf: r.buf,
    agent: r.agent,
    state: r.state,
    source: r.source,
    confirmed: isConfirmed(r.source),
    detail: r.detail,
    since: r.since,
    exit: r.state === 'exited' && r.exitStatus !== undefined ? r.exitStatus : null,
    interrupted: r.state === 'failed' && r.detail === INTERRUPTED,
  };
}
