// What every operation of the daemon works with.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDetached } from '../jobs/detached.js';
import type { Detached } from '../jobs/detached.js';
import { daemonEnv } from '../jobs/env.js';
import { hostAlive, readHostInfo } from '../jobs/hostinfo.js';
import type { Launch } from '../jobs/host/launch.js';
import { writeLaunch } from '../jobs/host/launch.js';
import { HOST_START_MS } from '../jobs/listed.js';
import { readJob } from '../jobs/store.js';
import type { SpareHost } from './spare-host.js';

export interface DaemonContext {
  jobsDir: string;
  runtime: string;
  /** The `mado` script, to start hosts with (`node <script> __host …`). */
  script: string;
  say(message: string): void;
  /** The spare host a dispatch hands its job to (none: each job's host is started afresh). */
  spare?: SpareHost;
  /** Hears that a job's host is up (the daemon follows it from then on). */
  hostUp?(short: string): void;
}

/** The environment of a host (a spare's too): the daemon's, cut as for the daemon, and where the jobs are. */
export const hostEnv = (ctx: Pick<DaemonContext, 'runtime' | 'jobsDir'>): NodeJS.ProcessEnv => ({
  ...daemonEnv(process.env),
  MADOHUB_RUNTIME_DIR: ctx.runtime,
  MADOHUB_JOBS_DIR: ctx.jobsDir,
});

/** How often a starting host is looked at: often while a spare's start takes a few ms, then less. */
const startPoll = (sinceMs: number): number => (sinceMs < 1000 ? 5 : 25);

export const jobDirOf = (ctx: DaemonContext, short: string): string => path.join(ctx.jobsDir, short);

/** Whether a job's host came up, or why not (`died`: its process ended before it started the job). */
type HostStart = { problem: null } | { problem: string; died: boolean };

/**
 * Writes the launch file and hands the job to the spare host, or starts a host for it with the
 * agent's environment on its standard input; waits until it is up. Null when it is (or when its
 * agent already ended well), else why not. A spare that had died unseen (killed, out of memory)
 * leaves the job to a fresh host.
 */
export async function startHost(
  ctx: DaemonContext,
  short: string,
  launch: Launch,
  env: Record<string, string>,
): Promise<string | null> {
  writeLaunch(jobDirOf(ctx, short), launch);
  const fresh = (): Detached =>
    startDetached(ctx.script, ['__host', ctx.jobsDir, short], hostEnv(ctx), {
      cwd: launch.cwd,
      input: JSON.stringify(env),
    });
  const spare = ctx.spare?.hand({ short, cwd: launch.cwd, env });
  // The next spare starts once this dispatch has had its turn.
  if (ctx.spare) setImmediate(() => ctx.spare?.keep());
  let started = await hostUp(ctx, short, spare ?? fresh());
  if (started.problem !== null && spare && started.died) {
    ctx.say(`job ${short}: the spare host ${spare.ended() ?? 'ended'}; starting a host afresh`);
    started = await hostUp(ctx, short, fresh());
  }
  if (started.problem === null) ctx.hostUp?.(short);
  return started.problem;
}

/** Waits until `host`, the host of job `short`, is up (its host.json written), or has failed. */
async function hostUp(ctx: DaemonContext, short: string, host: Detached): Promise<HostStart> {
  const dir = jobDirOf(ctx, short);
  const start = Date.now();
  const deadline = start + HOST_START_MS;
  for (;;) {
    if (readHostInfo(dir)) return { problem: null };
    const view = readJob(ctx.jobsDir, short);
    if (view.ok && view.job.status === 'errored') return { problem: view.job.detail, died: false };
    const ended = host.ended();
    if (ended !== undefined) {
      // An agent that ended at once, and well: the job is done.
      const last = readJob(ctx.jobsDir, short);
      if (last.ok && last.job.status === 'done') return { problem: null };
      return { problem: `its host ${ended} before it started (see host.log in the job folder)`, died: true };
    }
    if (Date.now() >= deadline)
      return {
        problem: `its host did not start in ${HOST_START_MS / 1000} s (see host.log in the job folder)`,
        died: false,
      };
    await sleep(startPoll(Date.now() - start));
  }
}

/** Waits up to `ms` for a job's host to leave; true when it has. */
export async function hostGone(ctx: DaemonContext, short: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (hostAlive(jobDirOf(ctx, short))) {
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
  return true;
}
