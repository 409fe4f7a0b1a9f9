// A record's tentative end (RecordSignal.tentative: Gemini CLI's text, written before the tool call the
// response may ask for) held until the screen shows the turn ended: a question keeps it for as long as
// it asks, a screen at work lets it go TENTATIVE_MS after it began to work, a newer record drops it.
// One rule for a terminal's state (the tracker) and a job's (PushState). Pure, with the time given.
import type { AgentState } from '../shared/types.js';
import { inTurn } from '../shared/types.js';

/** How long a tentative end waits for a screen still at work to show the end. */
export const TENTATIVE_MS = 1500;

export class TentativeEnd<S> {
  private held: { signal: S; since: number } | undefined;

  /** Holds `signal` while the screen shows the turn under way; false (nothing held) when it is told now. */
  hold(signal: S, screen: AgentState | undefined, now: number): boolean {
    this.held = inTurn(screen) ? { signal, since: now } : undefined;
    return this.held !== undefined;
  }

  /** An end is held: a screen that shows the turn ended tells it. */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** A newer record: the turn went on. */
  drop(): void {
    this.held = undefined;
  }

  /** A screen's reading (`previous`: the reading before it): the held end, taken, when it is told now. */
  screen(state: AgentState, previous: AgentState | undefined, now: number): S | undefined {
    if (this.held && state === 'working' && previous !== 'working') this.held.since = now;
    return inTurn(state) ? this.release(state, now) : this.take();
  }

  /** When the held end is told though the screen shows nothing new (never while it asks). */
  due(screen: AgentState | undefined): number | undefined {
    return this.held && screen !== 'waiting' ? this.held.since + TENTATIVE_MS : undefined;
  }

  /** The held end, taken, when it is due at `now`. */
  release(screen: AgentState | undefined, now: number): S | undefined {
    const due = this.due(screen);
    return due !== undefined && now >= due ? this.take() : undefined;
  }

  private take(): S | undefined {
    const held = this.held;
    this.held = undefined;
    return held?.signal;
  }
}
