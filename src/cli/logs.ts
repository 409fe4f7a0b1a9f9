// `mado logs ID [-n N] [-f] [--raw]`: a job's output as a person reads it — its host's terminal
// model (scrollback and screen), or, once the host is gone, its output log replayed through one.
import { setTimeout as sleep } from 'node:timers/promises';
import { readTail } from '../shared/files.js';
import { outputLog } from '../jobs/host/output-log.js';
import { hostText, jobText, logText } from '../jobs/job-text.js';
import { safeText } from './args.js';

const FOLLOW_MS = 500;
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

/** How many lines at the head of `fresh` are the head of `shown` (lines printed from the screen earlier). */
function shownBefore(fresh: readonly string[], shown: readonly string[]): number {
  let k = 0;
  while (k < fresh.length && k < shown.length && fresh[k] === shown[k]) k++;
  return k;
}

export interface LogsOptions {
  lines?: number;
  follow: boolean;
  raw: boolean;
}

/**
 * Prints a job's output. With `follow`, then prints each line once it has left the screen (the
 * screen is what an agent redraws), and the last screen when the job's host is gone.
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
  let text = await jobText(jobDir, !opts.follow);
  print(opts.lines !== undefined ? text.lines.slice(Math.max(0, text.lines.length - opts.lines)) : text.lines);
  if (!opts.follow) return;
  let tail = text.lines.slice(0, text.settled).slice(-20);
  let shown = text.lines.slice(text.settled);
  for (;;) {
    await sleep(FOLLOW_MS);
    const live = await hostText(jobDir);
    text = live ?? (await logText(jobDir));
    const upTo = live ? text.settled : text.lines.length;
    const fresh = text.lines.slice(after(text.lines.slice(0, text.settled), tail), upTo);
    const seen = shownBefore(fresh, shown);
    shown = shown.slice(seen);
    print(fresh.slice(seen));
    tail = text.lines.slice(0, text.settled).slice(-20);
    if (!live) return;
  }
}
