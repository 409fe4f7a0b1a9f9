// An agent's own word (a job's hooks, event stream or notifications, a terminal's notifications) beside
// what the other sources read (the screen, the records). Pure, with the time given. The newer of the two
// decides: an event tells what happens now, and so does a reading that changed after it. Two exceptions
// keep a missed or late event from leaving a stale state:
//   - a turn an event ended (Completed, Failed) stays ended through the idle screen that follows; a
//     screen that works or asks after it is a new turn;
//   - an event that repeats a wait told already (and perhaps answered since) tells nothing.
// A notice the agent wrote into its output (a job's OSC 9) has its place among the screen's changes:
// it is newer than the screen it followed, and older than any other state the screen shows after it,
// whenever the screen is read (a busy machine reads it after more output came).
import type { AgentState, Detection, PushSignal, RecordSignal, StateSource } from '../shared/types.js';
import { inTurn } from '../shared/types.js';
import { clip, noControl } from '../shared/text.js';
import { TentativeEnd } from './tentative.js';

/** What a state the agent told is from: its hooks, notifications, event stream, or its records (a job's). */
export type PushSource = Extract<StateSource, 'hook' | 'notification' | 'event-stream'> | RecordSignal['source'];

const ended = (s: AgentState): boolean => s === 'completed' || s === 'failed';

/** How an event was told: what it is from, when not the state's own source; the screen's state when it came. */
export interface Told {
  source?: PushSource;
  /** Told in the output: the screen's state as the output before it left it. */
  screen?: AgentState;
}

/** A record's source: a question on the screen is never hidden by one. */
const RECORDS: ReadonlySet<PushSource> = new Set(['jsonl-watcher', 'session-db']);

export class PushState {
  /** A record's tentative end, and how it was told (see TentativeEnd). */
  private readonly pending = new TentativeEnd<{ signal: PushSignal; told: Told }>();
  private last: (PushSignal & { at: number; source: PushSource; screen?: AgentState; overtaken?: boolean }) | undefined;
  /** The other sources' state and since when they read so. */
  private screen: { state: AgentState; at: number } | undefined;

  /** `source`: what the states it gives are from (`hook`, `notification`, `event-stream`), unless a signal says. */
  constructor(private readonly source: PushSource = 'hook') {}

  /** The last event's signal and when it came, for `:MadoExplain`. */
  latest(): (PushSignal & { at: number }) | undefined {
    return this.last;
  }

  /** A record's end waits for a screen that shows the turn ended. */
  get endWaits(): boolean {
    return this.pending.holding;
  }

  /** An event's signal, received at `now`, told as `told` says. */
  record(signal: PushSignal, now: number, told: Told = {}): void {
    if (signal.repeat && this.last?.state === 'waiting') return;
    this.pending.drop();
    if (signal.tentative && this.pending.hold({ signal, told }, this.screen?.state, now)) return;
    // Nothing an agent prints reaches a job's detail as a control character.
    this.last = {
      state: signal.state,
      detail: clip(noControl(signal.detail)),
      at: now,
      source: told.source ?? this.source,
      ...(told.screen ? { screen: told.screen } : {}),
    };
  }

  /** The screen's reading `d` at `now`, with the events': what the job is. */
  combine(d: Detection, now: number): Detection {
    const held = this.pending.screen(d.state, this.screen?.state, now);
    if (held) this.record({ ...held.signal, tentative: false }, now, held.told);
    if (!this.screen || this.screen.state !== d.state) this.screen = { state: d.state, at: now };
    const push = this.last;
    if (!push || d.state === 'exited') return d;
    // A notice in the output is overtaken once the screen shows another state than the one it followed.
    if (push.screen !== undefined && d.state !== push.screen) push.overtaken = true;
    const screenNewer = push.screen !== undefined ? push.overtaken === true : this.screen.at > push.at;
    const fromPush: Detection = { agent: d.agent, state: push.state, source: push.source, detail: push.detail };
    // A question on the screen: no record of an end hides it, whenever either was read.
    if (ended(push.state))
      return inTurn(d.state) && (screenNewer || (d.state === 'waiting' && RECORDS.has(push.source))) ? d : fromPush;
    // A wait the screen shows too is confirmed; the screen's question stays its detail.
    if (push.state === 'waiting' && d.state === 'waiting') return { ...d, source: push.source };
    return screenNewer ? d : fromPush;
  }
}
