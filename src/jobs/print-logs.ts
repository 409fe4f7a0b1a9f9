// `mado logs ID [-n N] [-f] [--raw]`: a job's output as a person reads it — its host's terminal
// model (scrollback and screen), or, once the host is gone, its output log replayed through one.
import { readTail } from '../shared/files.js';
import { outputLog } from './host/output-log.js';
import { followText, jobText, logText } from './job-text.js';
import type { JobText } from './screen-text.js';
import { safeText } from '../shared/text.js';

const RAW_BYTES = 256 * 1024;

/** Where `tail` (the last lines printed) ends in `lines`: the index after it, or 0 when it is not found. */
export function after(lines: readonly string[], tail: readonly string[]): number {
  if (tail.length === 0) return 0;
  for (let end = lines.length; end >= tail.length; end--) {
    let same = true;
    for (let k = 1; k <= tail.length && same; k++) same = lines[end - k] === tail[tail.length - k];
    if (same) return end;
  }
  return 0;
}

/**
 * Where the lines printed last (`tail`, which ended at line `printedTo` of the reading before) end
 * in `lines` now: at `printedTo` while the scrollback only grew (an agent that draws the same frame
 * again and again leaves the same run of lines many times over: found by its text, the last run
 * would be taken), else where its text is found (a scrollback at its bound drops its oldest lines).
 */
export function printedEnd(lines: readonly string[], tail: readonly string[], printedTo: number): number {
  const from = printedTo - tail.length;
  if (from >= 0 && printedTo <= lines.length && tail.every((l, i) => lines[from + i] === l)) return printedTo;
  return after(lines, tail);
}

/** How many lines at the head of `fresh` are the head of `shown` (lines printed from the screen earlier). */
function shownBefore(fresh: readonly string[], shown: readonly string[]): number {
  let k = 0;
  while (k < fresh.length && k < shown.length && fresh[k] === shown[k]) k++;
  return k;
}

/**
 * The rows at the bottom of a screen that an agent redraws as it works (its spinner, input box,
 * footer): a line is written out from the screen only with this many rows below it.
 */
export const LIVE_ROWS = 8;

/**
 * The screen's lines that can be written out before they leave it: those written already (`shown`,
 * the head of the screen as it was) that are still there, then each line that is the same as in the
 * reading before (`before`) and has LIVE_ROWS rows below it. Answers what to print and what has
 * been shown of the screen since.
 */
export function settledOnScreen(
  screen: readonly string[],
  before: readonly string[],
  shown: readonly string[],
): { print: string[]; shown: string[] } {
  const kept = shownBefore(screen, shown);
  let last = screen.length - 1;
  while (last >= 0 && screen[last]!.trim() === '') last--;
  const limit = Math.max(0, last + 1 - LIVE_ROWS);
  let stable = kept;
  while (stable < limit && screen[stable] === before[stable]) stable++;
  return { print: screen.slice(kept, stable), shown: screen.slice(0, stable) };
}

export interface LogsOptions {
  lines?: number;
  follow: boolean;
  raw: boolean;
}

/**
 * Prints a job's output. With `follow`, then prints each line once: as soon as it stands still on
 * the screen above the rows its agent redraws (see settledOnScreen), else once it has left the
 * screen, and the last screen when the job's host is gone.
 */
export async function printLogs(jobDir: string, opts: LogsOptions, out: (text: string) => void): Promise<void> {
  if (opts.raw) {
    const r = readTail(outputLog(jobDir), RAW_BYTES);
    out(r.ok ? r.text : '');
    return;
  }
  const print = (lines: readonly string[]): void => {
    if (lines.length > 0) out(`${lines.map(safeText).join('\n')}\n`);
  };
  const text = await jobText(jobDir, !opts.follow);
  print(opts.lines !== undefined ? text.lines.slice(Math.max(0, text.lines.length - opts.lines)) : text.lines);
  if (!opts.follow) return;
  let tail = text.lines.slice(0, text.settled).slice(-20);
  let printedTo = text.settled;
  let shown = text.lines.slice(text.settled);
  let before = shown;
  /** Prints what a reading holds that is not printed yet: from the live host, or its log once it is gone. */
  const take = (reading: JobText, live: boolean): void => {
    // The output log replayed (the host gone) is another model: its lines are found by their text.
    if (!live) printedTo = -1;
    const upTo = live ? reading.settled : reading.lines.length;
    const fresh = reading.lines.slice(printedEnd(reading.lines.slice(0, reading.settled), tail, printedTo), upTo);
    const seen = shownBefore(fresh, shown);
    shown = shown.slice(seen);
    print(fresh.slice(seen));
    tail = reading.lines.slice(0, reading.settled).slice(-20);
    printedTo = reading.settled;
    if (!live) return;
    // What stands still on the screen is written now, not once it scrolls away.
    const screen = reading.lines.slice(reading.settled);
    const now = settledOnScreen(screen, before, shown);
    print(now.print);
    shown = now.shown;
    before = screen;
  };
  // The host tells each change of the text (no reading while nothing changes); then the log, once it has gone.
  await followText(jobDir, (reading) => take(reading, true));
  take(await logText(jobDir), false);
}
