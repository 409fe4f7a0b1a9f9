// What the Lua side asks of background jobs that is no operation's own call: a terminal's agent gone
// on as a job (:MadoBackground, this machine's), and the picker's input line, read here and run as
// the dispatch operation (src/ops/dispatch.ts), here or on the remote host it names. Lua never runs
// `mado` to read its output.
import path from 'node:path';
import { DEFAULT_AGENT, FALLBACK_AGENT } from '../agents/index.js';
import { dispatchJob } from '../jobs/client/jobs.js';
import { quietIo } from '../jobs/client/daemon.js';
import { SESSION_REF } from '../shared/types.js';
import { parseDispatchLine } from '../fleet/dispatch-line.js';
import type { Remotes } from '../jobs/remote/remotes.js';
import { isObj } from '../shared/checks.js';
import type { FromLua } from './from-lua.js';
import { opCall } from './op-calls.js';
import { MADO } from './mado-script.js';

/** A terminal's agent goes on as a job of this machine: resuming its session, or with a prompt. */
export function background(
  m: FromLua<'background'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ short: string; warning?: string }> {
  const resume = m.resume;
  if (resume !== undefined && !SESSION_REF.test(resume)) throw new Error('the session id to resume is not one');
  if (!path.isAbsolute(m.cwd)) throw new Error('background: a folder (an absolute path) is needed');
  return dispatchJob(quietIo(env, MADO), {
    // No state read yet: a shell, the fallback agent.
    agent: m.agent ?? FALLBACK_AGENT,
    prompt: m.prompt ?? '',
    resume: resume ? { mode: 'id', id: resume } : undefined,
    forkSession: false,
    origin: 'slash',
    cwd: m.cwd,
    // The name the split had goes with it.
    name: m.name?.slice(0, 200),
    check: m.check === true,
  });
}

/**
 * The picker's input line (`[@agent] [--host NAME] [-n NAME] [--worktree[=BRANCH]] intent`) as a job:
 * the dispatch operation, on the host it names (in that host's folder) or here in `cwd`. Its result
 * names the host it started on.
 */
export async function dispatchLine(m: FromLua<'dispatch'>, remotes?: Remotes, env = process.env): Promise<object> {
  const line = parseDispatchLine(m.line, m.agent ?? DEFAULT_AGENT);
  if ('error' in line) throw new Error(line.error);
  const { host } = line;
  if (host && !remotes?.names().includes(host)) throw new Error(`no host '${host}' (see :help madohub-hosts)`);
  if (!host && !path.isAbsolute(m.cwd)) throw new Error('dispatch: a folder (an absolute path) is needed');
  const args = {
    agent: line.agent,
    prompt: line.intent,
    ...(line.name === undefined ? {} : { name: line.name }),
    ...(line.worktree ? { worktree: true, ...(line.worktree.branch ? { branch: line.worktree.branch } : {}) } : {}),
    origin: 'fleet',
    // A remote host's job starts in its folder there (its setting, else its bridge's).
    ...(host ? {} : { cwd: m.cwd }),
  };
  const started = await opCall({ op: 'run', name: 'dispatch', args, ...(host ? { host } : {}) }, remotes, env);
  return isObj(started) && host ? { ...started, host } : isObj(started) ? started : {};
}
