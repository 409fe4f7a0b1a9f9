// `respawn`: a job whose agent has ended starts again, resuming its session where the agent can,
// with the environment of the client that asks (a job's environment is never stored).
import { hostAlive } from '../jobs/hostinfo.js';
import type { RespawnRequest } from '../jobs/protocol/daemon-requests.js';
import type { Reply } from '../jobs/protocol/replies.js';
import { readJob, updateJob } from '../jobs/store.js';
import { commandLine, loadTemplates, pickTemplate } from '../jobs/templates.js';
import type { DaemonContext } from './context.js';
import { jobDirOf, startHost } from './context.js';
import { programProblem } from '../jobs/program.js';
import { launchOf } from './handle-dispatch.js';

export async function handleRespawn(ctx: DaemonContext, m: RespawnRequest): Promise<Reply> {
  const view = readJob(ctx.jobsDir, m.short);
  if (!view.ok) return { type: 'error', error: view.error };
  if (hostAlive(jobDirOf(ctx, m.short))) return { type: 'error', error: 'session is already running' };
  const { templates, warnings } = loadTemplates();
  warnings.forEach(ctx.say);
  const picked = pickTemplate(templates, view.job.template.name);
  if ('error' in picked) return { type: 'error', error: picked.error };
  const template = picked.template;
  const noProgram = programProblem(template.command[0]!, m.env.PATH, view.job.cwd);
  if (noProgram) return { type: 'error', error: noProgram };
  // The agent's own session: the one it resumed, the one it was told (Claude Code), or the one its
  // records named (Codex, written by the host).
  const resumeId = view.job.resumeSessionId ?? (template.sessionId ? view.job.sessionId : null);
  const resume =
    template.resume && resumeId
      ? commandLine(template, '', { mode: 'id', id: resumeId }, false).concat(view.job.respawnFlags)
      : undefined;
  await updateJob(ctx.jobsDir, m.short, {
    status: 'running',
    tempo: 'active',
    detail: 'respawned',
    pendingReply: null,
  });
  const failed = await startHost(ctx, m.short, launchOf(template, view.job, view.job.intent, resume), m.env);
  if (failed) {
    await updateJob(ctx.jobsDir, m.short, { status: 'errored', detail: failed }).catch(() => undefined);
    return { type: 'error', error: failed };
  }
  return { type: 'ok', short: m.short };
}
