// What the Lua side asks of background jobs, done here as `mado` does it (the same functions, the
// daemon's protocol): Lua never runs `mado` to read its output. Each call answers a result or an
// error message for a person.
import path from 'node:path';
import { DEFAULT_AGENT, FALLBACK_AGENT } from '../agents/index.js';
import {
  chooseInJob,
  dispatchJob,
  jobScreen,
  removeJobVia,
  resolveId,
  respawnJob,
  sendToJob,
  stopJob,
} from '../jobs/client/jobs.js';
import { quietIo } from '../jobs/client/daemon.js';
import { jobText } from '../jobs/job-text.js';
import { isObj } from '../shared/checks.js';
import { jobsDir } from '../jobs/store.js';
import { SESSION_REF } from '../shared/types.js';
import { parseDispatchLine } from '../fleet/dispatch-line.js';
import type { Remotes } from '../jobs/remote/remotes.js';
import { remoteJobCall } from './remote-calls.js';

/** The `mado` script beside this bundle (rplugin/node/madohub/index.js → bin/mado): it starts the daemon. */
const MADO = path.resolve(__dirname, '..', '..', '..', 'bin', 'mado');

/** The most lines of an ended job's output the peek pane gets. */
const SCREEN_LINES = 150;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const size = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 2 && v <= 1000 ? v : undefined;

export async function jobCall(
  method: string,
  raw: unknown,
  env: NodeJS.ProcessEnv = process.env,
  remotes?: Remotes,
): Promise<unknown> {
  const args = isObj(raw) ? raw : {};
  // A job of a remote host (its entry's `host`), or a dispatch line that names one (`--host NAME`).
  const line =
    method === 'dispatch' ? parseDispatchLine(str(args.line) ?? '', str(args.agent) ?? DEFAULT_AGENT) : undefined;
  const host = str(args.host) || (line && !('error' in line) ? line.host : undefined);
  if (host && remotes?.names().includes(host)) return remoteJobCall(remotes, host, method, args);
  if (host && method === 'dispatch') throw new Error(`no host '${host.slice(0, 40)}' (see :help madohub-hosts)`);
  // `NAME:ID` typed for a host that is none is this machine's job of that name (`fix: parser`).
  if (host) args.id = `${host}:${str(args.id) ?? ''}`;
  const io = quietIo(env, MADO, { columns: size(args.cols), rows: size(args.rows) });
  switch (method) {
    case 'background': {
      // A terminal's agent goes on as a job: resuming its session, or with a prompt.
      const resume = str(args.resume);
      if (resume !== undefined && !SESSION_REF.test(resume)) throw new Error('the session id to resume is not one');
      const cwd = str(args.cwd);
      if (!cwd || !path.isAbsolute(cwd)) throw new Error('background: a folder (an absolute path) is needed');
      return dispatchJob(io, {
        // No state read yet: a shell, the fallback agent.
        agent: str(args.agent) ?? FALLBACK_AGENT,
        prompt: str(args.prompt) ?? '',
        resume: resume ? { mode: 'id', id: resume } : undefined,
        forkSession: false,
        origin: 'slash',
        cwd,
        // The name the split had goes with it.
        name: str(args.name)?.slice(0, 200),
        check: args.check === true,
      });
    }
    case 'stop':
    case 'kill': {
      const short = resolveId(io, str(args.id) ?? '');
      return { short, ended: await stopJob(io, short, method, method === 'stop' ? args.wait !== false : true) };
    }
    case 'respawn': {
      const short = resolveId(io, str(args.id) ?? '');
      await respawnJob(io, short);
      return { short };
    }
    case 'remove': {
      // Never with force from here: unsaved work in a worktree keeps the job (mado rm --force removes it).
      const short = resolveId(io, str(args.id) ?? '');
      await removeJobVia(io, short, false);
      return { short };
    }
    case 'send': {
      const short = resolveId(io, str(args.id) ?? '');
      return { short, pending: await sendToJob(io, short, str(args.text) ?? '') };
    }
    case 'choose': {
      const short = resolveId(io, str(args.id) ?? '');
      const choice = typeof args.choice === 'number' ? args.choice : 0;
      if (!Number.isInteger(choice) || choice < 1 || choice > 9) throw new Error('choose 1 to 9');
      return { short, option: await chooseInJob(io, short, choice) };
    }
    case 'screen': {
      // A running job's screen from its host; an ended one's last lines from its output log.
      const short = resolveId(io, str(args.id) ?? '');
      const lines = await jobScreen(io, short).catch(async () =>
        (await jobText(path.join(jobsDir(env), short))).lines.slice(-SCREEN_LINES),
      );
      return { short, lines };
    }
    case 'dispatch': {
      // The picker's input line: [@agent] [--worktree] intent.
      const cwd = str(args.cwd);
      if (!cwd || !path.isAbsolute(cwd)) throw new Error('dispatch: a folder (an absolute path) is needed');
      const line = parseDispatchLine(str(args.line) ?? '', str(args.agent) ?? DEFAULT_AGENT);
      if ('error' in line) throw new Error(line.error);
      const { short, warning } = await dispatchJob(io, {
        agent: line.agent,
        prompt: line.intent,
        worktree: line.worktree,
        forkSession: false,
        origin: 'fleet',
        cwd,
        name: line.name,
      });
      return warning ? { short, warning } : { short };
    }
    case 'logs': {
      const short = resolveId(io, str(args.id) ?? '');
      return { short, lines: (await jobText(path.join(jobsDir(env), short))).lines };
    }
    default:
      throw new Error(`unknown call ${JSON.stringify(method)}`);
  }
}
