// The client of the background jobs: what the CLI, the Neovim side and the routes ask of the daemon
// and of a job's host.
import { asPending } from '../../shared/pending.js';
import type { Pending } from '../../shared/pending.js';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobError, UsageError } from '../../shared/errors.js';
import { safeText } from '../../shared/text.js';
import type { Chain } from '../chain-record.js';
import { jobEnv } from '../env.js';
import { HostError, askHost as askJobHost, hostScreen } from '../host-client.js';
import { hostAlive } from '../hostinfo.js';
import { ReachError } from '../protocol/client.js';
import type { Reply } from '../protocol/replies.js';
import { findJob, jobsDir } from '../store.js';
import { promptProblem } from '../templates.js';
import { answerMs, ask, askOrSay, unreachable } from './daemon.js';
import type { Io } from './daemon.js';
import { dispatched, dispatchRequest, removeVia, respawnVia, SERVICE_MS, stopVia } from './service.js';
import type { AskDaemon, JobSpec } from './service.js';

export type { Io };
export type { JobSpec };

/** A job's short id from an id, a unique prefix or its name (read from the job folders, no daemon needed). */
export function resolveId(io: Io, query: string): string {
  const m = findJob(jobsDir(io.env), query);
  if (!m.ok) throw new JobError(safeText(m.error));
  return m.short;
}

/**
 * Dispatches a job to the daemon (starting it when needed) and returns its id once its host is up.
 * A lost answer (a daemon that ended mid-dispatch, or a late one) is a success when the job is up;
 * a job that was not created is asked for again, once.
 */
export async function dispatchJob(io: Io, spec: JobSpec): Promise<{ short: string; warning?: string }> {
  // Only what the job needs travels: the daemon never sees the rest of this environment.
  const request = dispatchRequest(spec, jobEnv(io.env), io);
  const { short } = request;
  const timeout = answerMs(io.env, SERVICE_MS.dispatch);
  if (spec.check) {
    await askOrSay(io, request, timeout);
    return { short };
  }
  const dir = path.join(jobsDir(io.env), short);
  let reply: Reply | undefined;
  for (let attempt = 0; attempt < 2 && !reply; attempt++) {
    try {
      reply = await ask(io, request, timeout);
    } catch (err) {
      if (!(err instanceof ReachError)) throw err;
      if (await jobUp(io, short, dir)) reply = { type: 'ok', short };
      else if (err.reason !== 'timeout' || attempt > 0) throw unreachable(err);
    }
  }
  if (!reply) throw new JobError(`the daemon did not answer the dispatch of ${short}`);
  return dispatched(request, reply);
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

/** This machine's daemon, as the job service asks it (started when none runs). */
export const localDaemon =
  (io: Io): AskDaemon =>
  (request, timeoutMs) =>
    askOrSay(io, request, answerMs(io.env, timeoutMs));

/** Stops (gracefully, waiting for the end unless `wait` is false) or kills a job; true once it has ended. */
export function stopJob(io: Io, short: string, op: 'stop' | 'kill', wait = true): Promise<boolean> {
  return stopVia(localDaemon(io), short, op, wait);
}

/** Starts a job's agent again (resuming its session where its agent can), with this environment's variables. */
export function respawnJob(io: Io, short: string): Promise<void> {
  return respawnVia(localDaemon(io), short, jobEnv(io.env));
}

/** Removes an ended job (its worktree only when it holds no unsaved work, unless `force`). */
export function removeJobVia(io: Io, short: string, force: boolean): Promise<void> {
  return removeVia(localDaemon(io), short, force);
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
export async function sendToJob(
  io: Io,
  short: string,
  text: string,
  terms: { waitMenus?: boolean; busyMs?: number; chain?: Chain } = {},
): Promise<Pending> {
  if (text.trim() === '') throw new UsageError('a reply needs some text');
  const tooLarge = promptProblem(text);
  if (tooLarge) throw new UsageError(tooLarge.replace('the prompt', 'the reply'));
  const reply = await askHost(io, short, { op: 'send', text, ...terms });
  return reply.type === 'ok' ? asPending(reply.pending ?? (reply.queued ? 'queued' : '')) : '';
}

/**
 * Answers the menu on a job's screen with a choice (1-9), checked against the screen as it is now; the
 * choice's text.
 */
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
