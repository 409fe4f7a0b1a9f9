// `list`: every job, each settled (see settle.ts).
import type { Reply } from '../jobs/protocol/replies.js';
import { settle } from '../jobs/settle.js';
import { listJobs } from '../jobs/store.js';
import type { DaemonContext } from './context.js';

export async function handleList(ctx: DaemonContext): Promise<Reply> {
  const jobs = await Promise.all(listJobs(ctx.jobsDir).map((v) => settle(ctx.jobsDir, v)));
  return { type: 'jobs', jobs };
}
