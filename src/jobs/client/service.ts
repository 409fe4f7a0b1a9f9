// One job service, two places: what is done to a job by a daemon — this machine's, over its socket,
// or a remote host's, over the link (its bridge carries the request as it is: `daemon` in
// remote/wire.ts) — is the same request, and its answer is read the same way. Nothing here reads
// text printed for people.
import { JobError } from '../../shared/errors.js';
import type { DaemonRequest, DispatchRequest } from '../protocol/daemon-requests.js';
import { STOP_WAIT_MS } from '../protocol/daemon-requests.js';
import type { Reply } from '../protocol/replies.js';
import { HOST_START_MS } from '../listed.js';
import { newSessionId, newShortId } from '../ids.js';
import type { Resume } from '../templates.js';
import type { JobOrigin } from '../types.js';

/** Asks a daemon one request, `timeoutMs` at most; an error reply is thrown (a JobError, in its words). */
export type AskDaemon = (request: DaemonRequest, timeoutMs: number) => Promise<Reply>;

/** How long each request of the service may take in the daemon: a dispatch waits for the job's host and a worktree. */
export const SERVICE_MS = {
  dispatch: HOST_START_MS + 10000,
  stop: STOP_WAIT_MS + 10000,
  kill: STOP_WAIT_MS + 10000,
  respawn: HOST_START_MS + 10000,
  remove: STOP_WAIT_MS + 30000,
} as const;

/** What starts a job: the CLI's `--bg` arguments, or the Neovim side's request. */
export interface JobSpec {
  agent?: string;
  name?: string;
  prompt: string;
  resume?: Resume;
  forkSession: boolean;
  worktree?: { branch?: string };
  origin: JobOrigin;
  /** Its folder; '' on a remote host: the host's `cwd` there, else its shell's folder. */
  cwd: string;
  /** Only ask whether it would start: nothing is made (:MadoBackground asks before it stops a terminal's agent). */
  check?: boolean;
}

/** The dispatch of a new job (its id made here): `env` is what its agent gets; `size` its terminal's. */
export function dispatchRequest(
  spec: JobSpec,
  env: Record<string, string>,
  size: { columns?: number; rows?: number } = {},
): DispatchRequest {
  return {
    op: 'dispatch',
    short: newShortId(),
    sessionId: newSessionId(),
    createdAt: Date.now(),
    origin: spec.origin,
    cwd: spec.cwd,
    launch:
      spec.resume?.mode === 'id'
        ? {
            mode: 'resume',
            sessionId: spec.resume.id,
            fork: spec.forkSession,
            flagArgs: [],
            ...(spec.prompt ? { prompt: spec.prompt } : {}),
          }
        : { mode: 'prompt', args: spec.prompt ? [spec.prompt] : [] },
    respawnFlags: spec.resume?.mode === 'continue' ? ['--continue'] : [],
    env,
    worktree: spec.worktree,
    agent: spec.agent,
    seed: { intent: spec.prompt, name: spec.name },
    cols: size.columns,
    rows: size.rows,
    ...(spec.check ? { check: true } : {}),
  };
}

/** A dispatch's answer: the job's id, and what its daemon warned of. */
export function dispatched(request: DispatchRequest, reply: Reply): { short: string; warning?: string } {
  return { short: request.short, ...(reply.type === 'ok' && reply.warning ? { warning: reply.warning } : {}) };
}

/** Stops (gracefully, waiting for the end unless `wait` is false) or kills a job; true once it has ended. */
export async function stopVia(ask: AskDaemon, short: string, op: 'stop' | 'kill', wait = true): Promise<boolean> {
  const reply = await ask({ op, short, ...(op === 'stop' ? { wait } : {}) }, SERVICE_MS[op]);
  const ended = reply.type === 'ok' && reply.ended === true;
  if (op === 'stop' && wait && !ended)
    throw new JobError(`job ${short} did not stop in ${STOP_WAIT_MS / 1000} s; mado kill ${short} ends it`);
  return ended;
}

/** Starts a job's agent again (resuming its session where its agent can), its agent given `env`. */
export async function respawnVia(ask: AskDaemon, short: string, env: Record<string, string>): Promise<void> {
  await ask({ op: 'respawn', short, env }, SERVICE_MS.respawn);
}

/** Removes an ended job (its worktree only when it holds no unsaved work, unless `force`). */
export async function removeVia(ask: AskDaemon, short: string, force: boolean): Promise<void> {
  await ask({ op: 'remove', short, force }, SERVICE_MS.remove);
}

/**
 * The requests of the job service: all a link carries to a remote host's daemon (its routes and hosts stay
 * its own).
 */
export const SERVICE_OPS = Object.keys(SERVICE_MS);

/** A request of the job service. */
export type ServiceRequest = Extract<DaemonRequest, { op: keyof typeof SERVICE_MS }>;

export function isServiceRequest(request: DaemonRequest): request is ServiceRequest {
  return Object.hasOwn(SERVICE_MS, request.op);
}
