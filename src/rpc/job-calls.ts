// What the Lua side asks of background jobs, done here as `mado` does it (the same functions, the
// daemon's protocol): Lua never runs `mado` to read its output. Each call answers a result or an
// error message for a person.
import path from 'node:path';
import { dispatchJob, resolveId, stopJob } from '../cli/jobs.js';
import type { Io } from '../cli/daemon-client.js';
import { jobText } from '../cli/logs.js';
import { isObj } from '../jobs/checks.js';
import { jobsDir } from '../jobs/store.js';
import { SESSION_REF } from '../jobs/templates.js';

/** The `mado` script beside this bundle (rplugin/node/madohub/index.js → bin/mado): it starts the daemon. */
const MADO = path.resolve(__dirname, '..', '..', '..', 'bin', 'mado');

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const size = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 2 && v <= 1000 ? v : undefined);

export async function jobCall(method: string, raw: unknown, env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  const args = isObj(raw) ? raw : {};
  const io: Io = { out: () => undefined, err: () => undefined, stdin: () => undefined, env, script: MADO, columns: size(args.cols), rows: size(args.rows) };
  switch (method) {
    case 'background': {
      // A terminal's agent goes on as a job: resuming its session, or with a prompt.
      const resume = str(args.resume);
      if (resume !== undefined && !SESSION_REF.test(resume)) throw new Error('the session id to resume is not one');
      const cwd = str(args.cwd);
      if (!cwd || !path.isAbsolute(cwd)) throw new Error('background: a folder (an absolute path) is needed');
      return dispatchJob(io, {
        agent: str(args.agent),
        prompt: str(args.prompt) ?? '',
        resume: resume ? { mode: 'id', id: resume } : undefined,
        forkSession: false,
        origin: 'slash',
        cwd,
      });
    }
    case 'stop': {
      const short = resolveId(io, str(args.id) ?? '');
      return { short, ended: await stopJob(io, short, 'stop') };
    }
    case 'logs': {
      const short = resolveId(io, str(args.id) ?? '');
      return { short, lines: (await jobText(path.join(jobsDir(env), short))).lines };
    }
    default:
      throw new Error(`unknown call ${JSON.stringify(method)}`);
  }
}
