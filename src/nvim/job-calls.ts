// What the Lua side asks of background jobs, done here as `mado` does it (the same functions, the
// daemon's protocol): Lua never runs `mado` to read its output. Each call answers a result or an
// error message for a person.
import path from 'node:path';
import { DEFAULT_AGENT, FALLBACK_AGENT } from '../agents/index.js';
import { dispatchJob } from '../jobs/client/jobs.js';
import { quietIo } from '../jobs/client/daemon.js';
import { SESSION_REF } from '../shared/types.js';
import { parseDispatchLine } from '../fleet/dispatch-line.js';
import type { Remotes } from '../jobs/remote/remotes.js';
import { remoteJobCall } from './remote-calls.js';
import type { JobCall } from './from-lua.js';

/** The `mado` script beside this bundle (rplugin/node/madohub/index.js → bin/mado): it starts the daemon. */
export const MADO = path.resolve(__dirname, '..', '..', '..', 'bin', 'mado');

export async function jobCall(m: JobCall, env: NodeJS.ProcessEnv = process.env, remotes?: Remotes): Promise<unknown> {
  // A dispatch line that names a remote host (`--host NAME`).
  const line = m.op === 'dispatch' ? parseDispatchLine(m.line, m.agent ?? DEFAULT_AGENT) : undefined;
  const host = line && !('error' in line) ? line.host : undefined;
  if (host && remotes?.names().includes(host)) return remoteJobCall(remotes, host, m);
  if (host && m.op === 'dispatch') throw new Error(`no host '${host.slice(0, 40)}' (see :help madohub-hosts)`);
  const io = quietIo(env, MADO);
  switch (m.op) {
    case 'background': {
      // A terminal's agent goes on as a job: resuming its session, or with a prompt.
      const resume = m.resume;
      if (resume !== undefined && !SESSION_REF.test(resume)) throw new Error('the session id to resume is not one');
      const cwd = m.cwd;
      if (!path.isAbsolute(cwd)) throw new Error('background: a folder (an absolute path) is needed');
      return dispatchJob(io, {
        // No state read yet: a shell, the fallback agent.
        agent: m.agent ?? FALLBACK_AGENT,
        prompt: m.prompt ?? '',
        resume: resume ? { mode: 'id', id: resume } : undefined,
        forkSession: false,
        origin: 'slash',
        cwd,
        // The name the split had goes with it.
        name: m.name?.slice(0, 200),
        check: m.check === true,
      });
    }
    case 'dispatch': {
      // The picker's input line: [@agent] [--worktree] intent.
      if (!path.isAbsolute(m.cwd)) throw new Error('dispatch: a folder (an absolute path) is needed');
      if (!line || 'error' in line) throw new Error(line?.error ?? 'dispatch: no line');
      const { short, warning } = await dispatchJob(io, {
        agent: line.agent,
        prompt: line.intent,
        worktree: line.worktree,
        forkSession: false,
        origin: 'fleet',
        cwd: m.cwd,
        name: line.name,
      });
      return warning ? { short, warning } : { short };
    }
  }
}
