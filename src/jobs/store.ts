import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { PROTO } from './protocol.js';
import type { JobState } from './types.js';
import { MAX_DETAIL, MAX_INTENT, SHORT_ID } from './types.js';
import { validateJob } from './validate.js';

/** `$MADOHUB_JOBS_DIR`, else `$XDG_STATE_HOME/madohub/jobs`, else `~/.local/state/madohub/jobs`. */
export function jobsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MADOHUB_JOBS_DIR) return env.MADOHUB_JOBS_DIR;
  const state = env.XDG_STATE_HOME || path.join(env.HOME || homedir(), '.local', 'state');
  return path.join(state, 'madohub', 'jobs');
}

/** A job as listed: its record, or why its record cannot be read (the job then shows as errored). */
export type JobView = { ok: true; job: JobState } | { ok: false; short: string; error: string; job: JobState };

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

// Joined by hand: `mado agents` builds 200 of these, and a cold `path.join` costs it ~5 ms.
const stateFile = (dir: string, short: string): string => `${dir}${path.sep}${short}${path.sep}state.json`;

/** Writes a file so that a reader sees the old or the new content, never a part: temp, fsync, rename. */
export function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  try {
    const dirFd = openSync(path.dirname(file), 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some file systems refuse to fsync a folder; the rename is done all the same.
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs `fn` holding the job's lock file (created exclusively; a stale one is taken over). */
function withLock<T>(dir: string, short: string, fn: () => T): T {
  const lock = path.join(dir, short, 'state.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) unlinkSync(lock);
      } catch {
        // Gone meanwhile: try again.
      }
      if (Date.now() > deadline) throw new Error(`job ${short} is locked by another writer (${lock})`);
      sleep(2 + Math.random() * 8);
    }
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Already taken over as stale.
    }
  }
}

/** A job record with every field at its empty value: the base that new jobs fill in. */
export function blankJob(short: string, at = Date.now()): JobState {
  return {
    proto: PROTO,
    short,
    sessionId: '00000000-0000-0000-0000-000000000000',
    createdAt: at,
    updatedAt: at,
    firstTerminalAt: null,
    template: { name: '', description: '', initialPrompt: '' },
    agent: 'shell',
    intent: '',
    name: short,
    nameSource: 'auto',
    detail: '',
    color: '',
    state: 'running',
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
    source: 'shell',
    respawnFlags: [],
    env: {},
  };
}

/** A record that stands for a job whose file cannot be read. */
export function erroredJob(short: string, detail: string, at = Date.now()): JobState {
  return { ...blankJob(short, at), state: 'errored', detail: detail.slice(0, MAX_DETAIL) };
}

export function readJob(dir: string, short: string): JobView {
  const file = stateFile(dir, short);
  const broken = (error: string): JobView => {
    const mtime = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    return { ok: false, short, error, job: erroredJob(short, error, mtime) };
  };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return broken(`cannot read state.json: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return broken('state.json is corrupt (not JSON)');
  }
  const v = validateJob(value);
  return v.ok ? { ok: true, job: v.job } : broken(`state.json: ${v.error}`);
}

/** Every job folder under `dir`, readable or not. */
export function listJobs(dir: string): JobView[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => SHORT_ID.test(n)).map((short) => readJob(dir, short));
}

/** States a job reaches when its agent's work ends (for now or for good). */
const TERMINAL: readonly JobState['state'][] = ['done', 'stopped', 'errored'];

/** Keeps the bounds of the record: intent and detail lengths, firstTerminalAt set once (on the first terminal state). */
function bounded(prev: JobState | undefined, next: JobState): JobState {
  next.intent = next.intent.slice(0, MAX_INTENT);
  next.detail = next.detail.slice(0, MAX_DETAIL);
  if (prev && prev.firstTerminalAt !== null) next.firstTerminalAt = prev.firstTerminalAt;
  else if (next.firstTerminalAt === null && TERMINAL.includes(next.state)) next.firstTerminalAt = Date.now();
  return next;
}

/** Creates a job's folder and record. Fails if the folder exists. */
export function createJob(dir: string, job: JobState): JobState {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  mkdirSync(path.join(dir, job.short), { mode: 0o700 });
  const now = Date.now();
  const record = bounded(undefined, { ...job, proto: PROTO, createdAt: job.createdAt || now, updatedAt: now });
  writeAtomic(stateFile(dir, job.short), `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

/**
 * Changes some fields of a job: under the job's lock, the record is read again, the change is
 * applied to what is there now (so a field another writer set is kept), `updatedAt` is bumped, and
 * the whole is written atomically. Refuses a record it cannot read (a newer proto included).
 */
export function updateJob(
  dir: string,
  short: string,
  change: Partial<JobState> | ((job: JobState) => Partial<JobState>),
): JobState {
  return withLock(dir, short, () => {
    const view = readJob(dir, short);
    if (!view.ok) throw new Error(`job ${short}: ${view.error}`);
    const patch = typeof change === 'function' ? change(view.job) : change;
    const next = bounded(view.job, { ...view.job, ...patch, proto: PROTO, short });
    next.updatedAt = Math.max(Date.now(), view.job.updatedAt + 1);
    writeAtomic(stateFile(dir, short), `${JSON.stringify(next, null, 2)}\n`);
    return next;
  });
}

/** Removes a job's folder. */
export function removeJob(dir: string, short: string): void {
  rmSync(path.join(dir, short), { recursive: true, force: true });
}
