// A spare host (issue 31): a host the daemon starts ahead of its job, its code and node-pty loaded,
// that waits on its standard input for the job it is handed — the job's short id, its folder and its
// agent's environment, one JSON line — and then is that job's host as a fresh one would be. Waiting,
// it does nothing (a read on a pipe: no timer, no wakeup); when its input ends with nothing (the
// daemon left, or let it go) it leaves.
import { holdsCheck, isObj, stringMap } from '../../shared/checks.js';
import { SHORT_ID } from '../../shared/fleet-id.js';
import { readInput } from './launch.js';

/** The job a spare is handed. */
export interface SpareJob {
  short: string;
  /** The job's folder (where a fresh host is started). */
  cwd: string;
  /** The agent's environment (never written to disk). */
  env: Record<string, string>;
}

/** The verb a spare runs as (`node mado __spare JOBSDIR PAD`). */
export const SPARE_VERB = '__spare';
/**
 * The spare's last argument: as long as a short id, so that once handed its job it can call itself
 * `__host JOBSDIR SHORT` in place (its command line is what `ps` shows and what finds a job's host).
 */
export const SPARE_PAD = '--------';

const MAX_JOB_BYTES = 1024 * 1024;

/** The line a daemon hands a spare. */
export const spareLine = (job: SpareJob): string => `${JSON.stringify(job)}\n`;

/** The job of a spare's input, or why it is none. */
export function parseSpareJob(text: string): SpareJob | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'the job handed to the spare host is not JSON';
  }
  if (!isObj(v) || typeof v.short !== 'string' || !SHORT_ID.test(v.short)) return 'the spare host was handed no job';
  if (typeof v.cwd !== 'string' || !v.cwd.startsWith('/')) return `job ${v.short}: no folder to start in`;
  if (!holdsCheck(stringMap, v.env)) return `job ${v.short}: its environment is not a table of strings`;
  return { short: v.short, cwd: v.cwd, env: v.env };
}

/**
 * What comes on `stdin` until it ends: the job handed (its text), or undefined when it ended with
 * nothing. Bounded: more than MAX_JOB_BYTES is refused.
 */
export async function readSpareInput(stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  const text = await readInput(stdin, MAX_JOB_BYTES, 'the job handed to the spare host');
  return text.trim() === '' ? undefined : text;
}
