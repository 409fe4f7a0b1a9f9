// What every operation of the daemon works with.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDetached } from '../jobs/detached.js';
import { daemonEnv } from '../jobs/env.js';
import { hostAlive, readHostInfo } from '../jobs/hostinfo.js';
import type { Launch } from '../jobs/host/launch.js';
import { writeLaunch } from '../jobs/host/launch.js';
import { HOST_START_MS } from '../jobs/listed.js';
import { readJob } from '../jobs/store.js';

export interface DaemonContext {
  jobsDir: string;
  runtime: string;
  /** The `mado` script, to start hosts with (`node <script> __host …`). */
  script: string;
  say(message: string): void;
}

export const jobDirOf = (ctx: DaemonContext, short: string): string => path.join(ctx.jobsDir, short);

/**
 * Writes the launch file and starts the job's host with the agent's environment on its standard
 * input; waits until it is up. Null when it is (or when its agent already ended well), else why not.
 */
export async function startHost(
  ctx: DaemonContext,
  short: string,
  launch: Launch,
  env: Record<string, string>,
): Promise<string | null> {
  const dir = jobDirOf(ctx, short);
  writeLaunch(dir, launch);
  const host = startDetached(
    ctx.script,
    ['__host', ctx.jobsDir, short],
    { ...daemonEnv(process.env), MADOHUB_RUNTIME_DIR: ctx.runtime, MADOHUB_JOBS_DIR: ctx.jobsDir },
    { cwd: launch.cwd, input: JSON.stringify(env) },
  );
  const deadline = Date.now() + HOST_START_MS;
  for (;;) {
    if (readHostInfo(dir)) return null;
    const view = readJob(ctx.jobsDir, short);
    if (view.ok && view.job.status === 'errored') return view.job.detail;
    const ended = host.ended();
    if (ended !== undefined) {
      // An agent that ended at once, and well: the job is done.
      const last = readJob(ctx.jobsDir, short);
      if (last.ok && last.job.status === 'done') return null;
      return `its host ${ended} before it started (see host.log in the job folder)`;
    }
    if (Date.now() >= deadline)
      return `its host did not start in ${HOST_START_MS / 1000} s (see host.log in the job folder)`;
    await sleep(25);
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
