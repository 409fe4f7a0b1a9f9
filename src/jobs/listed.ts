// A job as its readers show it (`mado agents`, the daemon's list): its file, whether its host
// lives, and, for a job whose host died without its goodbye, the ending of it: its agent's
// process group ended, the host's files removed, its status `errored` ("its host died").
import path from 'node:path';
import { clearDeadHost, hostAlive } from './hostinfo.js';
import type { ListedJob } from './protocol/replies.js';
import type { JobView } from './store.js';
import { listJobs, updateJob } from './store.js';

/** How long a running job may go without a host before it counts as one whose host never came. */
export const HOST_START_MS = 20000;

const LIVE_STATUSES = new Set(['running', 'done']);

export async function listedJob(dir: string, view: JobView): Promise<ListedJob> {
  const job = view.job;
  const jobDir = path.join(dir, job.short);
  const listed = (j: typeof job, alive: boolean): ListedJob => ({
    ...j,
    alive,
    ...(view.ok ? {} : { error: view.error }),
  });
  // Only a running job, or one done with a turn, can have a live host: the others are not asked.
  if (!view.ok || !LIVE_STATUSES.has(job.status)) return listed(job, false);
  if (hostAlive(jobDir)) return listed(job, true);
  const died = clearDeadHost(jobDir);
  // A host that never came up (its dispatch failed half way) is gone too, after a while.
  if (!died && (job.status !== 'running' || Date.now() - job.updatedAt < HOST_START_MS * 2)) return listed(job, false);
  const detail = died ? 'its host died' : 'its host is gone';
  try {
    return listed(
      await updateJob(dir, job.short, (j) =>
        LIVE_STATUSES.has(j.status) ? { status: 'errored', tempo: 'idle', needs: null, block: null, detail } : {},
      ),
      false,
    );
  } catch {
    return listed({ ...job, status: 'errored', detail }, false);
  }
}

/**
 * Every job of the folder as its readers show it (each as listedJob tells it), oldest first as listJobs
 * gives them; `shorts`: the folder's job folders as just listed (it is not listed again).
 */
export function listedJobs(dir: string, shorts?: readonly string[]): Promise<ListedJob[]> {
  return Promise.all(listJobs(dir, shorts).map((v) => listedJob(dir, v)));
}
