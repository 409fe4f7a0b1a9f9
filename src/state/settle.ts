// A screen that stops showing work without showing how the turn ended (no completion line, no
// interrupt, no error, no question: the input prompt alone, an idle line) is not taken at once. Output
// that has just appeared shows so for a moment in the middle of a turn: a frame read between its erase
// and its drawing, text drawn before the spinner's row is drawn again. Such an Idle after Working is
// taken once the screen has stood so for SETTLE_MS: a screen that changes and still reads so starts
// the wait again, SETTLE_MAX_MS at most from the first. One rule for a terminal's state (the tracker)
// and a job's (its host). Pure, with the time given.
import type { AgentState } from '../shared/types.js';

/** How long an Idle that follows Working must stand on an unchanged screen before it is told. */
export const SETTLE_MS = 1000;
/** The longest an Idle that follows Working is held back, however often its screen changes. */
export const SETTLE_MAX_MS = 3000;

/** What the rule needs of a screen's reading. */
interface Reading {
  agent: string;
  state: AgentState;
}

export class SettlingIdle<R extends Reading> {
  private held: { reading: R; screen: string; first: number; last: number } | undefined;

  /**
   * A screen (`lines`: its rows) read as `reading`, the reading told before it being `told`: the
   * reading to tell now, or undefined to hold on to `told` (see `due`). Its text is kept only while an
   * Idle is held (a screen read each change costs nothing else).
   */
  read(reading: R, told: Reading | undefined, lines: readonly string[], now: number): R | undefined {
    if (reading.state !== 'idle' || told?.state !== 'working' || told.agent !== reading.agent) {
      this.held = undefined;
      return reading;
    }
    const held = this.held;
    const screen = lines.join('\n');
    if (held && now >= this.due(held)) {
      this.held = undefined;
      return reading;
    }
    this.held = {
      reading,
      screen,
      first: held?.first ?? now,
      last: !held || held.screen !== screen ? now : held.last,
    };
    return undefined;
  }

  /** What is held is told otherwise. */
  drop(): void {
    this.held = undefined;
  }

  /** When the held Idle is told though no screen came (epoch ms); undefined when none is held. */
  dueAt(): number | undefined {
    return this.held && this.due(this.held);
  }

  /** The held reading, taken, when it is due at `now`. */
  release(now: number): R | undefined {
    const held = this.held;
    if (!held || now < this.due(held)) return undefined;
    this.held = undefined;
    return held.reading;
  }

  private due(held: { first: number; last: number }): number {
    return Math.min(held.last + SETTLE_MS, held.first + SETTLE_MAX_MS);
  }
}
