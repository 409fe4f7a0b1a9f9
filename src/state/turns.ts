// Each entry's turns as one fact: when the turn under way started and when the one before ended, as
// its state changes tell them (a terminal's, a job's). A finished turn's answer is the record that
// follows a prompt of *that* turn: one recorded at or after `since`. Pure: fed changes with the time.
import type { AgentState } from '../shared/types.js';

/** What is known of the turn that just ended: a prompt recorded at or after `since` (epoch ms) is of it; undefined: nothing is known. */
export interface TurnBounds {
  since: number | undefined;
}

/**
 * How long before its first Working (or Waiting) a turn's prompt may have been recorded, where the
 * end of the turn before is not known (the first turn seen): the agent writes its prompt as it is
 * submitted, and its screen turns a moment later.
 */
export const PROMPT_BEFORE_START_MS = 5000;

const busy = (s: AgentState | null | undefined): boolean => s === 'working' || s === 'waiting';

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
    if (busy(to) && t.startedAt === undefined) t.startedAt = at;
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
