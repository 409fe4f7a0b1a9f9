// A job's output as a person reads it: its host's terminal model (scrollback and screen), or, once
// the host is gone, its output log replayed through one.
import { readTail } from '../shared/files.js';
import { readLaunch } from './host/launch.js';
import { LOG_MAX_BYTES, outputLog } from './host/output-log.js';
import { hostRuns, readHostInfo } from './hostinfo.js';
import { Conn, ReachError } from './protocol/client.js';
import { replayText } from './screen-text.js';
import type { JobText } from './screen-text.js';

/** The largest text a host sends back (5000 rows of a wide terminal). */
const MAX_TEXT_BYTES = 32 * 1024 * 1024;
const TEXT_MS = 5000;
/** `mado logs` answers within a second: a host that does not greet (frozen) or answer by then is read from its log. */
const QUICK_HELLO_MS = 400;
const QUICK_TEXT_MS = 500;

/** A job's text from its live host; undefined when there is none or it does not answer. */
export async function hostText(jobDir: string, quick = false): Promise<JobText | undefined> {
  const info = readHostInfo(jobDir);
  if (!info || !hostRuns(info)) return undefined;
  try {
    const { conn } = await Conn.open(info.socket, quick ? QUICK_HELLO_MS : undefined, MAX_TEXT_BYTES);
    try {
      conn.send({ op: 'text' });
      const reply = await conn.next(quick ? QUICK_TEXT_MS : TEXT_MS);
      return reply.type === 'text'
        ? { lines: reply.lines, settled: reply.settled, ...(reply.whole === undefined ? {} : { whole: reply.whole }) }
        : undefined;
    } finally {
      conn.close();
    }
  } catch (err) {
    if (err instanceof ReachError) return undefined;
    throw err;
  }
}

/**
 * Follows a job's text as its live host tells it (the `follow` op: as it is, then again as output
 * changes it): `take` hears each; resolves when the host has gone (at once when there is none).
 */
export async function followText(jobDir: string, take: (text: JobText) => void): Promise<void> {
  const info = readHostInfo(jobDir);
  if (!info || !hostRuns(info)) return;
  let conn: Conn;
  try {
    ({ conn } = await Conn.open(info.socket, undefined, MAX_TEXT_BYTES));
  } catch (err) {
    if (err instanceof ReachError) return;
    throw err;
  }
  try {
    conn.send({ op: 'follow' });
    for (;;) {
      // No time bound: a job may stay quiet for hours; its host's end closes the stream.
      const reply = await conn.next(0);
      if (reply.type === 'text') take({ lines: reply.lines, settled: reply.settled });
      else return;
    }
  } catch (err) {
    if (err instanceof ReachError) return;
    throw err;
  } finally {
    conn.close();
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

/**
 * A job's text: from its host while it answers (`quick`: within a second) and still holds all of it,
 * else from its output log (which the host writes as its agent prints).
 */
export async function jobText(jobDir: string, quick = false): Promise<JobText> {
  const live = await hostText(jobDir, quick);
  return live && live.whole !== false ? live : logText(jobDir);
}
