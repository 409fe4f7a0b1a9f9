// `mado logs ID [-n N] [-f] [--raw]`: a job's output as a person reads it — its host's terminal
// model (scrollback and screen), or, once the host is gone, its output log replayed through one.
import { setTimeout as sleep } from 'node:timers/promises';
import { readTail } from '../jobs/files.js';
import { readLaunch } from '../jobs/host/launch.js';
import { LOG_MAX_BYTES, outputLog } from '../jobs/host/output-log.js';
import { hostRuns, readHostInfo } from '../jobs/hostinfo.js';
import { Conn, ReachError } from '../jobs/protocol/client.js';
import { replayText } from '../jobs/screen-text.js';
import type { JobText } from '../jobs/screen-text.js';
import { safeText } from './args.js';

/** The largest text a host sends back (5000 rows of a wide terminal). */
const MAX_TEXT_BYTES = 32 * 1024 * 1024;
const TEXT_MS = 5000;
/** `mado logs` answers within a second: a host that does not greet (frozen) or answer by then is read from its log. */
const QUICK_HELLO_MS = 400;
const QUICK_TEXT_MS = 500;
const FOLLOW_MS = 500;
const RAW_BYTES = 256 * 1024;

/** A job's text from its live host; undefined when there is none or it does not answer. */
async function hostText(jobDir: string, quick = false): Promise<JobText | undefined> {
  const info = readHostInfo(jobDir);
  if (!info || !hostRuns(info)) return undefined;
  try {
    const { conn } = await Conn.open(info.socket, quick ? QUICK_HELLO_MS : undefined, MAX_TEXT_BYTES);
    try {
      conn.send({ op: 'text' });
      const reply = await conn.next(quick ? QUICK_TEXT_MS : TEXT_MS);
      return reply.type === 'text' ? { lines: reply.lines, settled: reply.settled } : undefined;
    } finally {
      conn.close();
    }
  } catch (err) {
    if (err instanceof ReachError) return undefined;
    throw err;
  }
}

/** The output log (its rotated part first) replayed through a terminal model of the job's size. */
export async function logText(jobDir: string): Promise<JobText> {
  const file = outputLog(jobDir);
  const older = readTail(`${file}.1`, LOG_MAX_BYTES);
  const newer = readTail(file, LOG_MAX_BYTES);
  const data = (older.ok ? older.text : '') + (newer.ok ? newer.text : '');
  const launch = readLaunch(jobDir);
  const [cols, rows] = typeof launch === 'string' ? [120, 40] : [launch.cols, launch.rows];
  return replayText(data, cols, rows);
}

/** A job's text: from its host while it answers (`quick`: within a second), else from its output log. */
export async function jobText(jobDir: string, quick = false): Promise<JobText> {
  return (await hostText(jobDir, quick)) ?? logText(jobDir);
}

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
