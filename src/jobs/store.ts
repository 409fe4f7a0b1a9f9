// Job files: `<jobs dir>/<id>/job.json`, read as hostile input and written atomically under a per-job
// lock whose wait never blocks the process (the daemon serves other jobs meanwhile). A job of an
// older mado has `state.json` (version 1): it is read, and replaced by job.json at the next write.
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processStamp, sameProcess } from '../proc/stamp.js';
import { readBounded, writeAtomic } from '../shared/files.js';
import { matchJob } from './ids.js';
import type { IdMatch } from './ids.js';
import type { JobFile, JobStatus } from './types.js';
import { MAX_INTENT, JOB_FILE_VERSION, SHORT_ID } from './types.js';
import { MAX_DETAIL } from '../shared/text.js';
import { validateJob } from './validate.js';
import { stateDir } from '../shared/xdg.js';
import { NO_AGENT } from '../shared/types.js';

/** `$MADOHUB_JOBS_DIR`, else `<state folder>/jobs`. */
export function jobsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MADOHUB_JOBS_DIR || path.join(stateDir(env), 'jobs');
}

/** A job as read: its file, or why its file cannot be read (the job then shows as errored). */
export type JobView = { ok: true; job: JobFile } | { ok: false; short: string; error: string; job: JobFile };

/** The largest job file read (one is a few KiB; the bound keeps a planted file harmless). */
export const MAX_JOB_FILE_BYTES = 256 * 1024;
const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

// Joined by hand: `mado agents` builds 200 of these, and a cold `path.join` costs it ~5 ms.
export const jobFile = (dir: string, short: string): string => `${dir}${path.sep}${short}${path.sep}job.json`;
/** The job file of version 1 (an older mado's). */
const oldJobFile = (dir: string, short: string): string => `${dir}${path.sep}${short}${path.sep}state.json`;

/**
 * The lock file's inode when it was left by a writer that is gone (its pid and stamp) or is older
 * than LOCK_STALE_MS; undefined while it is held (or gone: then it is simply tried again).
 */
function abandonedLock(lock: string): number | undefined {
  let st: Stats;
  try {
    st = statSync(lock);
  } catch {
    return undefined;
  }
  if (Date.now() - st.mtimeMs > LOCK_STALE_MS) return st.ino;
  const r = readBounded(lock, 256);
  if (!r.ok) return undefined;
  const [pid, stamp] = r.text.split(' ');
  return pid && stamp !== undefined && !sameProcess(Number(pid), stamp) ? st.ino : undefined;
}

/** Removes the lock file if it is still the one with inode `ino` (not one a writer made since). */
function removeLock(lock: string, ino: number): void {
  try {
    if (statSync(lock).ino === ino) unlinkSync(lock);
  } catch {
    // Gone already.
  }
}

/**
 * Runs `fn` holding the job's lock file (created exclusively, holding the writer's pid and stamp).
 * A lock whose writer is gone is taken over at once; one held longer than 5 s is an error. The wait
 * is asynchronous: other jobs' work goes on meanwhile.
 */
async function withLock<T>(dir: string, short: string, fn: () => T): Promise<T> {
  const lock = path.join(dir, short, 'job.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      try {
        writeSync(fd, `${process.pid} ${processStamp(process.pid) ?? ''}`);
      } catch (err) {
        // A full disk: the lock is not taken, and no empty lock file stays to hold up the next writer.
        closeSync(fd);
        rmSync(lock, { force: true });
        throw err;
      }
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const abandoned = abandonedLock(lock);
      if (abandoned !== undefined) {
        removeLock(lock, abandoned);
        continue;
      }
      if (Date.now() > deadline) throw new Error(`job ${short} is locked by another writer (${lock})`);
      await sleep(2 + Math.random() * 8);
    }
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Already taken over as abandoned.
    }
  }
}

/** A job with every field at its empty value: the base that new jobs fill in. */
export function blankJob(short: string, at = Date.now()): JobFile {
  return {
    proto: JOB_FILE_VERSION,
    short,
    sessionId: '00000000-0000-0000-0000-000000000000',
    createdAt: at,
    updatedAt: at,
    firstTerminalAt: null,
    template: { name: '', description: '', initialPrompt: '' },
    agent: NO_AGENT,
    intent: '',
    name: short,
    nameSource: 'auto',
    detail: '',
    color: '',
    status: 'running',
    tempo: 'idle',
    needs: null,
    block: null,
    suggestedReply: null,
    output: null,
    resumeSessionId: null,
    sortOrder: 0,
    stateSortOrder: 0,
    pinned: false,
    cwd: '',
    originCwd: '',
    worktreePath: null,
    worktreeBranch: null,
    worktreeHookBased: false,
    children: [],
    origin: 'shell',
    respawnFlags: [],
    problem: null,
    pendingReply: null,
    turnsEnded: 0,
    turnChanged: null,
    usage: null,
    stateSource: null,
  };
}

/** A job that stands for one whose file cannot be read. */
export function erroredJob(short: string, detail: string, at = Date.now()): JobFile {
  return { ...blankJob(short, at), status: 'errored', detail: detail.slice(0, MAX_DETAIL) };
}

/** A job's file, or why it cannot be read. Never throws, never blocks (a FIFO is refused). */
export function readJob(dir: string, short: string): JobView {
  let file = jobFile(dir, short);
  let r = readBounded(file, MAX_JOB_FILE_BYTES);
  if (!r.ok && r.missing) {
    const old = readBounded(oldJobFile(dir, short), MAX_JOB_FILE_BYTES);
    if (old.ok || !old.missing) [file, r] = [oldJobFile(dir, short), old];
  }
  const name = path.basename(file);
  const broken = (error: string): JobView => {
    let at = Date.now();
    try {
      at = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? at;
    } catch {
      // An unreadable folder: now serves.
    }
    return { ok: false, short, error, job: erroredJob(short, error, at) };
  };
  if (!r.ok) return broken(`cannot read ${name}: ${r.why}`);
  let value: unknown;
  try {
    value = JSON.parse(r.text);
  } catch {
    return broken(`${name} is corrupt (not JSON)`);
  }
  const v = validateJob(value);
  return v.ok ? { ok: true, job: v.job } : broken(`${name}: ${v.error}`);
}

/** The short ids of the job folders under `dir` ([] when it cannot be read). */
export function jobShorts(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => SHORT_ID.test(n));
  } catch {
    return [];
  }
}

/** Every job folder under `dir` (or those of `shorts`, as just listed), readable or not. */
export function listJobs(dir: string, shorts: readonly string[] = jobShorts(dir)): JobView[] {
  return shorts.map((short) => readJob(dir, short));
}

/** A job by its id, a unique prefix, or its name (see matchJob). */
export function findJob(dir: string, query: string): IdMatch {
  return matchJob(jobShorts(dir), query, () =>
    listJobs(dir)
      .filter((v) => v.ok)
      .map((v) => ({ short: v.job.short, name: v.job.name })),
  );
}

/** States a job reaches when its agent's work ends (for now or for good). */
const TERMINAL: readonly JobStatus[] = ['done', 'stopped', 'killed', 'errored'];

/** Keeps the bounds of a job: intent and detail lengths, firstTerminalAt set once (on the first terminal state). */
function bounded(prev: JobFile | undefined, next: JobFile): JobFile {
  next.intent = next.intent.slice(0, MAX_INTENT);
  next.detail = next.detail.slice(0, MAX_DETAIL);
  if (next.problem !== null) next.problem = next.problem.slice(0, MAX_DETAIL);
  if (prev && prev.firstTerminalAt !== null) next.firstTerminalAt = prev.firstTerminalAt;
  else if (next.firstTerminalAt === null && TERMINAL.includes(next.status)) next.firstTerminalAt = Date.now();
  return next;
}

const serialise = (job: JobFile): string => `${JSON.stringify(job, null, 2)}\n`;

/** Creates a job's folder and file. Fails if the folder exists; a failure leaves no folder. */
export function createJob(dir: string, job: JobFile): JobFile {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  mkdirSync(path.join(dir, job.short), { mode: 0o700 });
  try {
    const now = Date.now();
    const created = bounded(undefined, {
      ...job,
      proto: JOB_FILE_VERSION,
      createdAt: job.createdAt || now,
      updatedAt: now,
    });
    writeAtomic(jobFile(dir, job.short), serialise(created));
    return created;
  } catch (err) {
    removeJob(dir, job.short);
    throw err;
  }
}

/**
 * Changes some fields of a job: under the job's lock, its file is read again, the change is applied
 * to what is there now (so a field another writer set is kept), `updatedAt` is bumped, and the whole
 * is written atomically (as job.json: a version 1 state.json goes). Refuses a file it cannot read
 * (a newer version included).
 */
export function updateJob(
  dir: string,
  short: string,
  change: Partial<JobFile> | ((job: JobFile) => Partial<JobFile>),
): Promise<JobFile> {
  return withLock(dir, short, () => {
    const view = readJob(dir, short);
    if (!view.ok) throw new Error(`job ${short}: ${view.error}`);
    const patch = typeof change === 'function' ? change(view.job) : change;
    const next = bounded(view.job, { ...view.job, ...patch, proto: JOB_FILE_VERSION, short });
    next.updatedAt = Math.max(Date.now(), view.job.updatedAt + 1);
    writeAtomic(jobFile(dir, short), serialise(next));
    rmSync(oldJobFile(dir, short), { force: true });
    return next;
  });
}

/** Removes a job's folder. */
export function removeJob(dir: string, short: string): void {
  rmSync(path.join(dir, short), { recursive: true, force: true });
}
