// `list`: every job, each settled (see settle.ts).
import type { Reply } from '../protocol/replies.js';
import { settle } from '../settle.js';
import { listJobs } from '../store.js';
import type { DaemonContext } from './context.js';

export async function handleList(ctx: DaemonContext): Promise<Reply> {
  const jobs = await Promise.all(listJobs(ctx.jobsDir).map((v) => settle(ctx.jobsDir, v)));
  return { type: 'jobs', jobs };
}
