// An agent's own word (a job's hooks, event stream or notifications, a terminal's notifications) beside
// what the other sources read (the screen, the records). Pure, with the time given. The newer of the two
// decides: an event tells what happens now, and so does a reading that changed after it. Two exceptions
// keep a missed or late event from leaving a stale state:
//   - a turn an event ended (Completed, Failed) stays ended through the idle screen that follows; a
//     screen that works or asks after it is a new turn;
//   - an event that repeats a wait told already (and perhaps answered since) tells nothing.
import type { AgentState, Detection, PushSignal, RecordSignal, StateSource } from '../shared/types.js';
import { clip, noControl } from '../shared/text.js';

/** What a state the agent told is from: its hooks, notifications, event stream, or its records (a job's). */
export type PushSource = Extract<StateSource, 'hook' | 'notification' | 'event-stream'> | RecordSignal['source'];

const ended = (s: AgentState): boolean => s === 'completed' || s === 'failed';
const active = (s: AgentState): boolean => s === 'working' || s === 'waiting';

export class PushState {
  private last: (PushSignal & { at: number; source: PushSource }) | undefined;
  /** The other sources' state and since when they read so. */
  private screen: { state: AgentState; at: number } | undefined;

  /** `source`: what the states it gives are from (`hook`, `notification`, `event-stream`), unless a signal says. */
  constructor(private readonly source: PushSource = 'hook') {}

  /** The last event's signal and when it came, for `:MadoExplain`. */
  latest(): (PushSignal & { at: number }) | undefined {
    return this.last;
  }

  /** An event's signal, received at `now`; `source`: what it is from, when not this one's own. */
  record(signal: PushSignal, now: number, source: PushSource = this.source): void {
    if (signal.repeat && this.last?.state === 'waiting') return;
    // Nothing an agent prints reaches a job's detail as a control character.
    this.last = { state: signal.state, detail: clip(noControl(signal.detail)), at: now, source };
  }

  /** The screen's reading `d` at `now`, with the events': what the job is. */
  combine(d: Detection, now: number): Detection {
    if (!this.screen || this.screen.state !== d.state) this.screen = { state: d.state, at: now };
    const push = this.last;
    if (!push || d.state === 'exited') return d;
    const fromPush: Detection = { agent: d.agent, state: push.state, source: push.source, detail: push.detail };
    if (ended(push.state)) return active(d.state) && this.screen.at > push.at ? d : fromPush;
    // A wait the screen shows too is confirmed; the screen's question stays its detail.
    if (push.state === 'waiting' && d.state === 'waiting') return { ...d, source: push.source };
    return this.screen.at > push.at ? d : fromPush;
  }
}
