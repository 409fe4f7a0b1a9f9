// When a job's host reads its screen (issue 31: a job's change is told as soon as a terminal's). Output
// that keeps coming is read at most every DETECT_MS (a flood costs ten readings a second); the first
// output after a quiet spell (a key's answer just after a spinner's frame) is read once it has been
// quiet QUIET_MS, as a terminal's first change after a quiet spell is sent at once.

/** Output that keeps coming is read at most this often, and at most this long after its first change. */
export const DETECT_MS = 100;
/** The screen is read once its output has been quiet this long. */
export const QUIET_MS = 8;
/** Output after this long without any is a new change, read at once (a terminal's watch interval). */
export const QUIET_SPELL_MS = 30;

/** What the next reading is timed from. */
export interface ReadingClock {
  now: number;
  /** The first change since the last reading. */
  changedAt: number;
  /** The last reading (0: none yet). */
  detectedAt: number;
  /** A change since the last reading came after a quiet spell of QUIET_SPELL_MS. */
  afterQuiet: boolean;
}

/** When the screen is next read. */
export function readingDue({ now, changedAt, detectedAt, afterQuiet }: ReadingClock): number {
  const quiet = now + QUIET_MS;
  const paced = afterQuiet ? quiet : Math.max(quiet, detectedAt + DETECT_MS);
  return Math.min(paced, changedAt + DETECT_MS);
}
