// `remove`: a job's folder goes, and its worktree with it, but never a running job or work that
// would be lost (uncommitted changes, commits on no other branch) without `force`.
import { existsSync } from 'node:fs';
import { hostAlive } from '../jobs/hostinfo.js';
import type { RemoveRequest } from '../jobs/protocol/daemon-requests.js';
import type { Reply } from '../jobs/protocol/replies.js';
import { readJob, removeJob } from '../jobs/store.js';
import type { DaemonContext } from './context.js';
import { jobDirOf } from './context.js';
import { handleStop } from './handle-stop.js';
import { removeWorktree, unsavedWork } from './worktrees.js';

export async function handleRemove(ctx: DaemonContext, m: RemoveRequest): Promise<Reply> {
  const dir = jobDirOf(ctx, m.short);
  if (!existsSync(dir)) return { type: 'error', error: `no job '${m.short}'` };
  if (hostAlive(dir)) {
    if (!m.force) return { type: 'error', error: `job ${m.short} is running; stop it first or use --force` };
    await handleStop(ctx, { op: 'kill', short: m.short });
    if (hostAlive(dir)) return { type: 'error', error: `job ${m.short} did not end; nothing was removed` };
  }
  const view = readJob(ctx.jobsDir, m.short);
  if (view.ok && view.job.worktreePath) {
    const lost = unsavedWork(view.job.worktreePath, view.job.worktreeBranch);
    if (lost.length > 0 && !m.force) {
      return {
        type: 'error',
        error: `job ${m.short}'s worktree ${view.job.worktreePath} has ${lost.join(', and ')}; commit or push them, or use --force`,
      };
    }
    const failed = removeWorktree(view.job.originCwd, view.job.worktreePath, m.force);
    if (failed) return { type: 'error', error: failed };
  }
  removeJob(ctx.jobsDir, m.short);
  ctx.say(`removed ${m.short}`);
  return { type: 'ok', short: m.short };
}
