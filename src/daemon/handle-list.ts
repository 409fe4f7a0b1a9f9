// `list`: every job, as listedJob tells it (see listed.ts).
import type { Reply } from '../jobs/protocol/replies.js';
import { listedJobs } from '../jobs/listed.js';
import type { DaemonContext } from './context.js';

export async function handleList(ctx: DaemonContext): Promise<Reply> {
  const jobs = await listedJobs(ctx.jobsDir);
  return { type: 'jobs', jobs };
}
