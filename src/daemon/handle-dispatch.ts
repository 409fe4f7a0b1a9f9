// `dispatch`: a new job: its file, its worktree when asked, its host. A failure leaves nothing.
import { existsSync, statSync } from 'node:fs';
import { FALLBACK_AGENT, isAgentId } from '../agents/index.js';
import type { AgentId } from '../shared/types.js';
import type { Launch } from '../jobs/host/launch.js';
import { readHostInfo, hostAlive } from '../jobs/hostinfo.js';
import type { DispatchRequest } from '../jobs/protocol/daemon-requests.js';
import type { Reply } from '../jobs/protocol/replies.js';
import { blankJob, createJob, removeJob, updateJob } from '../jobs/store.js';
import { commandLine, loadTemplates, pickTemplate, promptProblem } from '../jobs/templates.js';
import { SESSION_REF } from '../shared/types.js';
import type { Template } from '../jobs/templates.js';
import type { JobFile } from '../jobs/types.js';
import { MAX_INTENT } from '../jobs/types.js';
import { badBranch, makeWorktree } from './worktrees.js';
import type { DaemonContext } from './context.js';
import { jobDirOf, startHost } from './context.js';
import { programProblem } from '../jobs/program.js';

const fail = (error: string): Reply => ({ type: 'error', error });

/**
 * What a job's host launches: its argv (a resume, or a new session with the prompt), cwd and size;
 * a prompt to type waits for the job's agent to show (the fallback's screen is any screen). A
 * resumed session is given `resumePrompt`, typed once it is up (whatever its template's way).
 */
export function launchOf(
  template: Template,
  job: Pick<JobFile, 'cwd' | 'sessionId' | 'agent'>,
  prompt: string,
  resume: string[] | undefined,
  cols = 120,
  rows = 40,
  resumePrompt = '',
): Launch {
  const argv = resume ?? commandLine(template, prompt, undefined, false, job.sessionId);
  const typed = resume ? resumePrompt : template.prompt === 'type' ? prompt : '';
  const typePrompt = typed !== '' ? typed : undefined;
  const typeInto = typePrompt !== undefined && job.agent !== FALLBACK_AGENT ? { typeInto: job.agent } : {};
  return {
    argv,
    cwd: job.cwd,
    cols,
    rows,
    typePrompt,
    ...typeInto,
    starting: resume ? resumePrompt !== '' : prompt !== '',
    ...(resume ? { resumes: true } : {}),
  };
}

export async function handleDispatch(ctx: DaemonContext, m: DispatchRequest): Promise<Reply> {
  const dir = jobDirOf(ctx, m.short);
  if (existsSync(dir)) {
    if (hostAlive(dir)) {
      // A host whose agent has ended is writing its last state and about to exit.
      return fail(
        readHostInfo(dir)?.endedAt
          ? 'the previous session is still ending, try again shortly'
          : 'session is already running',
      );
    }
    return fail(`job ${m.short} exists already`);
  }
  const { templates, warnings } = loadTemplates();
  warnings.forEach(ctx.say);
  const picked = pickTemplate(templates, m.agent);
  if ('error' in picked) return fail(picked.error);
  const template = picked.template;
  let folder = false;
  try {
    folder = statSync(m.cwd).isDirectory();
  } catch {
    // Told below.
  }
  if (!folder) return fail(`no folder ${m.cwd}`);
  // A resumed session's prompt is typed into it once it is up.
  const prompt = m.launch.mode === 'prompt' ? m.launch.args.join(' ') : (m.launch.prompt ?? '');
  const tooLarge = promptProblem(prompt);
  if (tooLarge) return fail(tooLarge);
  if (m.launch.mode === 'resume' && !SESSION_REF.test(m.launch.sessionId))
    return fail('the session id to resume is not one');
  // Else its agent would start a new session, and the one asked for would be left behind unsaid.
  if (m.launch.mode === 'resume' && !template.resume)
    return fail(`the template '${template.name}' resumes no session (see :help madohub-templates)`);
  if (m.worktree?.branch !== undefined) {
    const bad = badBranch(m.worktree.branch);
    if (bad) return fail(bad);
  }
  const noProgram = programProblem(template.command[0]!, m.env.PATH, m.cwd);
  if (noProgram) return fail(noProgram);

  // A template of one's own (not named after an agent) starts as a shell; its screen tells more.
  const agent: AgentId = isAgentId(template.name) ? template.name : FALLBACK_AGENT;
  const resume =
    m.launch.mode === 'resume'
      ? commandLine(template, '', { mode: 'id', id: m.launch.sessionId }, m.launch.fork).concat(m.launch.flagArgs)
      : undefined;
  if (m.check) return { type: 'ok', short: m.short };
  const idle = !prompt && m.launch.mode === 'prompt' && m.agent === undefined;
  const job: JobFile = {
    ...blankJob(m.short),
    sessionId: m.sessionId,
    createdAt: m.createdAt || Date.now(),
    template: { name: template.name, description: template.description, initialPrompt: prompt },
    agent,
    intent: prompt.slice(0, MAX_INTENT),
    name: m.seed.name ?? (prompt.slice(0, 40) || m.short),
    nameSource: m.seed.name ? 'user' : 'auto',
    status: 'running',
    tempo: idle ? 'blocked' : 'active',
    needs: idle ? 'a prompt' : null,
    resumeSessionId: m.launch.mode === 'resume' ? m.launch.sessionId : null,
    cwd: m.cwd,
    originCwd: m.cwd,
    origin: m.origin,
    respawnFlags: m.respawnFlags,
  };
  try {
    createJob(ctx.jobsDir, job);
  } catch (err) {
    return fail(`cannot create the job's folder: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    // An explicit worktree is made whatever the isolation; else the isolation asked, else the template's
    // for a new session (a resumed one lives where it was started: Claude Code files sessions by folder).
    const fresh = m.launch.mode === 'prompt' && m.respawnFlags.length === 0;
    const isolation = m.isolation ?? (fresh ? template.isolation : undefined);
    const worktree = m.worktree ?? (isolation === 'worktree' ? {} : undefined);
    if (worktree) {
      const made = makeWorktree(m.cwd, dir, worktree.branch ?? `mado/${m.short}`);
      if ('error' in made) {
        removeJob(ctx.jobsDir, m.short);
        return fail(made.error);
      }
      Object.assign(
        job,
        await updateJob(ctx.jobsDir, m.short, { cwd: made.path, worktreePath: made.path, worktreeBranch: made.branch }),
      );
    }
    const failed = await startHost(
      ctx,
      m.short,
      { ...launchOf(template, job, prompt, resume, m.cols, m.rows, resume ? prompt : ''), awaitingPrompt: idle },
      m.env,
    );
    if (failed) {
      await updateJob(ctx.jobsDir, m.short, { status: 'errored', detail: failed }).catch(() => undefined);
      return fail(failed);
    }
  } catch (err) {
    // A full or read-only disk half way: nothing stays behind (a worktree is the repository's to prune).
    removeJob(ctx.jobsDir, m.short);
    return fail(`cannot start the job: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  ctx.say(`dispatched ${m.short}`);
  return { type: 'ok', short: m.short };
}
