// The client of the background jobs: what the CLI, the Neovim side and the routes ask of the daemon
// and of a job's host.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobError, UsageError } from '../../shared/errors.js';
import { safeText } from '../../shared/text.js';
import type { Chain } from '../chain-record.js';
import { jobEnv } from '../env.js';
import { HostError, askHost as askJobHost, hostScreen } from '../host-client.js';
import { hostAlive } from '../hostinfo.js';
import { newSessionId, newShortId } from '../ids.js';
import { ReachError } from '../protocol/client.js';
import type { DispatchRequest } from '../protocol/daemon-requests.js';
import { STOP_WAIT_MS } from '../protocol/daemon-requests.js';
import type { Reply } from '../protocol/replies.js';
import { HOST_START_MS } from '../listed.js';
import { findJob, jobsDir } from '../store.js';
import { promptProblem } from '../templates.js';
import type { Resume } from '../templates.js';
import type { JobOrigin } from '../types.js';
import { answerMs, ask, askOrSay, unreachable } from './daemon.js';
import type { Io } from './daemon.js';

export type { Io };

/** A job's short id from an id, a unique prefix or its name (read from the job folders, no daemon needed). */
export function resolveId(io: Io, query: string): string {
  const m = findJob(jobsDir(io.env), query);
  if (!m.ok) throw new JobError(safeText(m.error));
  return m.short;
}

/** How long a dispatch may take in the daemon: the host's start, and a worktree's. */
const DISPATCH_MS = HOST_START_MS + 10000;

/** What starts a job: the CLI's `--bg` arguments, or the Neovim side's request. */
export interface JobSpec {
  agent?: string;
  name?: string;
  prompt: string;
  resume?: Resume;
  forkSession: boolean;
  worktree?: { branch?: string };
  origin: JobOrigin;
  cwd: string;
  /** Only ask whether it would start: nothing is made (:MadoBackground asks before it stops a terminal's agent). */
  check?: boolean;
}

/**
 * Dispatches a job to the daemon (starting it when needed) and returns its id once its host is up.
 * A lost answer (a daemon that ended mid-dispatch, or a late one) is a success when the job is up;
 * a job that was not created is asked for again, once.
 */
export async function dispatchJob(io: Io, spec: JobSpec): Promise<{ short: string; warning?: string }> {
  const short = newShortId();
  const request: DispatchRequest = {
    op: 'dispatch',
    short,
    sessionId: newSessionId(),
    createdAt: Date.now(),
    origin: spec.origin,
    cwd: spec.cwd,
    launch:
      spec.resume?.mode === 'id'
        ? { mode: 'resume', sessionId: spec.resume.id, fork: spec.forkSession, flagArgs: [], ...(spec.prompt ? { prompt: spec.prompt } : {}) }
        : { mode: 'prompt', args: spec.prompt ? [spec.prompt] : [] },
    respawnFlags: spec.resume?.mode === 'continue' ? ['--continue'] : [],
    // Only what the job needs travels: the daemon never sees the rest of this environment.
    env: jobEnv(io.env),
    worktree: spec.worktree,
    agent: spec.agent,
    seed: { intent: spec.prompt, name: spec.name },
    cols: io.columns,
    rows: io.rows,
    ...(spec.check ? { check: true } : {}),
  };
  if (spec.check) {
    await askOrSay(io, request, answerMs(io.env, DISPATCH_MS));
    return { short };
  }
  const dir = path.join(jobsDir(io.env), short);
  let reply: Reply | undefined;
  for (let attempt = 0; attempt < 2 && !reply; attempt++) {
    try {
      reply = await ask(io, request, answerMs(io.env, DISPATCH_MS));
    } catch (err) {
      if (!(err instanceof ReachError)) throw err;
      if (await jobUp(io, short, dir)) reply = { type: 'ok', short };
      else if (err.reason !== 'timeout' || attempt > 0) throw unreachable(err);
    }
  }
  if (!reply) throw new JobError(`the daemon did not answer the dispatch of ${short}`);
  return { short, warning: reply.type === 'ok' ? reply.warning : undefined };
}

/** True when the job's host is up, or comes up within a few seconds (one the daemon had started). */
async function jobUp(io: Io, short: string, dir: string): Promise<boolean> {
  try {
    const listed = await ask(io, { op: 'list' }, answerMs(io.env, 5000));
    if (listed.type === 'jobs' && listed.jobs.some((j) => j.short === short)) return true;
  } catch {
    // No daemon to ask: the folder tells.
  }
  for (let i = 0; i < 40; i++) {
    if (hostAlive(dir)) return true;
    await sleep(50);
  }
  return false;
}

/** Stops (gracefully, waiting for the end unless `wait` is false) or kills a job; true once it has ended. */
export async function stopJob(io: Io, short: string, op: 'stop' | 'kill', wait = true): Promise<boolean> {
  const reply = await askOrSay(io, { op, short, ...(op === 'stop' ? { wait } : {}) }, answerMs(io.env, STOP_WAIT_MS + 10000));
  const ended = reply.type === 'ok' && reply.ended === true;
  if (op === 'stop' && wait && !ended) throw new JobError(`job ${short} did not stop in ${STOP_WAIT_MS / 1000} s; mado kill ${short} ends it`);
  return ended;
}

/** Starts a job's agent again (resuming its session where its agent can), with this environment's variables. */
export async function respawnJob(io: Io, short: string): Promise<void> {
  await askOrSay(io, { op: 'respawn', short, env: jobEnv(io.env) }, answerMs(io.env, DISPATCH_MS));
}

/** Removes an ended job (its worktree only when it holds no unsaved work, unless `force`). */
export async function removeJobVia(io: Io, short: string, force: boolean): Promise<void> {
  await askOrSay(io, { op: 'remove', short, force }, answerMs(io.env, STOP_WAIT_MS + 30000));
}

/** Asks a running job's host; its refusal or absence is the command's error. */
async function askHost(io: Io, short: string, message: object): Promise<Reply> {
  try {
    return await askJobHost(jobsDir(io.env), short, message);
  } catch (err) {
    throw err instanceof HostError ? new JobError(safeText(err.message)) : err;
  }
}

/** Sends a reply to a job's agent through its host; '' once sent, else why it waits (`queued`, `held: draft`). */
export async function sendToJob(io: Io, short: string, text: string, terms: { waitMenus?: boolean; busyMs?: number; chain?: Chain } = {}): Promise<string> {
  if (text.trim() === '') throw new UsageError('a reply needs some text');
  const tooLarge = promptProblem(text);
  if (tooLarge) throw new UsageError(tooLarge.replace('the prompt', 'the reply'));
  const reply = await askHost(io, short, { op: 'send', text, ...terms });
  return reply.type === 'ok' ? (reply.pending ?? (reply.queued ? 'queued' : '')) : '';
}

/** Answers the menu on a job's screen with a choice (1-9), checked against the screen as it is now; the choice's text. */
export async function chooseInJob(io: Io, short: string, choice: number): Promise<string> {
  const reply = await askHost(io, short, { op: 'choose', choice });
  return reply.type === 'ok' && typeof reply.option === 'string' ? safeText(reply.option).slice(0, 200) : '';
}

/** A running job's screen as its host renders it (text lines, no escape bytes). */
export async function jobScreen(io: Io, short: string): Promise<string[]> {
  try {
    return await hostScreen(jobsDir(io.env), short);
  } catch (err) {
    throw err instanceof HostError ? new JobError(safeText(err.message)) : err;
  }
}
