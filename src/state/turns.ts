// Each entry's turns as one fact: when the turn under way started and when the one before ended, as
// its state changes tell them (a terminal's, a job's). A finished turn's answer is the record that
// follows a prompt of *that* turn: one recorded at or after `since`. Pure: fed changes with the time.
import { inTurn } from '../shared/types.js';
import type { AgentState } from '../shared/types.js';

/**
 * What is known of the turn that just ended: a prompt recorded at or after `since` (epoch ms) is of it;
 * undefined: nothing is known.
 */
export interface TurnBounds {
  since: number | undefined;
}

/**
 * How long before its first Working (or Waiting) a turn's prompt may have been recorded, where the
 * end of the turn before is not known (the first turn seen): the agent writes its prompt as it is
 * submitted, and its screen turns a moment later.
 */
export const PROMPT_BEFORE_START_MS = 5000;

export class TurnBook {
  private readonly turns = new Map<string, { startedAt?: number; endedAt?: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * An entry's state changed (`ended`: a turn ended with it, or it failed one): the bounds of the turn
   * that ended, else undefined.
   */
  changed(id: string, to: AgentState, ended: boolean): TurnBounds | undefined {
    const at = this.now();
    let t = this.turns.get(id);
    if (!t) this.turns.set(id, (t = {}));
    if (inTurn(to) && t.startedAt === undefined) t.startedAt = at;
    if (!ended) return undefined;
    const since = t.endedAt ?? (t.startedAt !== undefined ? t.startedAt - PROMPT_BEFORE_START_MS : undefined);
    t.endedAt = at;
    t.startedAt = undefined;
    return { since };
  }

  forget(id: string): void {
    this.turns.delete(id);
  }
}

/**
 * How long after a write into an agent its screen may take to show the turn that write started:
 * until then (or until that turn has ended) the agent takes no more text — a second write would
 * be glued to the first in its input line.
 */
export const WRITE_TURN_MS = 3000;

/**
 * How long after a write a screen that took it (drawn since, its input line empty) and shows no
 * turn under way says the agent took it at once (a shell's answer, a command): the agent takes text again.
 */
export const WRITE_TAKEN_MS = 500;

/** What the screen shows since a write: whether it was drawn again, and whether a draft stands in its input line. */
export interface ScreenSinceWrite {
  redrawn: boolean;
  draft: boolean;
}

/**
 * The turn a write into an agent starts: busy from the write until its screen has shown that turn
 * under way (Working or Waiting) and then ended; or, with no turn shown, until a screen drawn since
 * shows the text taken (WRITE_TAKEN_MS on), or WRITE_TURN_MS passed. Pure: fed the agent's state
 * and screen with the time.
 */
export class WrittenTurn {
  private at: number | undefined;
  private started = false;

  /** Text was written into the agent at `now`. */
  wrote(now: number): void {
    this.at = now;
    this.started = false;
  }

  /**
   * The agent's state now: whether it is still taken by what was written (a Waiting turn is not:
   * what comes next is its answer, by the rules of menus). `'no turn'` once the bound passed with no
   * turn shown nor the text taken (the mark is gone; say so).
   */
  observe(state: AgentState, now: number, screen: ScreenSinceWrite): boolean | 'no turn' {
    if (this.at === undefined) return false;
    if (inTurn(state)) {
      this.started = true;
      return state === 'working';
    }
    if (this.started || (screen.redrawn && !screen.draft && now - this.at >= WRITE_TAKEN_MS)) {
      this.at = undefined;
      return false;
    }
    if (now - this.at < WRITE_TURN_MS) return true;
    this.at = undefined;
    return 'no turn';
  }

  /**
   * When a write not yet shown is looked at again (epoch ms): the end of its first bound, else of its last;
   * undefined when none waits.
   */
  due(now: number): number | undefined {
    if (this.at === undefined || this.started) return undefined;
    return now < this.at + WRITE_TAKEN_MS ? this.at + WRITE_TAKEN_MS : this.at + WRITE_TURN_MS;
  }
}
