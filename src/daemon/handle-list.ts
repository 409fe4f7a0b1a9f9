// `list`: every job, each settled (see settle.ts).
import type { Reply } from '../jobs/protocol/replies.js';
import { listSettled } from '../jobs/settle.js';
import type { DaemonContext } from './context.js';

export async function handleList(ctx: DaemonContext): Promise<Reply> {
  const jobs = await listSettled(ctx.jobsDir);
  return { type: 'jobs', jobs };
}
