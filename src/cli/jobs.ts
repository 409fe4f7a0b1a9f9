// The job verbs of `mado` that are no operation of their own (src/ops/): --bg, agents, attach, route.
import path from 'node:path';
import { jobsDir } from '../jobs/store.js';
import { dispatchJob, resolveId } from '../jobs/client/jobs.js';
import type { Io } from '../jobs/client/daemon.js';
import { JobError, UsageError } from '../shared/errors.js';
import { agents } from './agents.js';
import { parseArgs, safeText } from '../shared/args.js';
import { attach } from './attach.js';
import { BG_STDIN_FIRST_BYTE_MS, hintBlock, parseBgArgs, withStdin } from './bg.js';
import { routeVerb } from './routes.js';
import { agentViewDisabled } from './switch.js';
import { HOST_NAME } from '../jobs/remote/hosts.js';
import { JOB_VERBS } from './verbs.js';

export type { Io };

async function bg(io: Io, argv: string[]): Promise<void> {
  const parsed = parseBgArgs(argv);
  // A task given on the line takes what is piped too, when something comes soon (the --bg contract).
  const args = withStdin(parsed, await io.stdin(parsed.prompt ? BG_STDIN_FIRST_BYTE_MS : undefined));
  for (const w of args.warnings) io.err(`mado: ${w}\n`);
  const { short, warning } = await dispatchJob(io, { ...args, origin: 'shell', cwd: process.cwd() });
  if (warning) io.err(`mado: ${warning}\n`);
  const via = io.env.MADOHUB_VIA_HOST;
  io.out(hintBlock(short, via && HOST_NAME.test(via) ? via : undefined));
}

export { JOB_VERBS };

/** Runs a job verb. */
export async function runJobVerb(io: Io, verb: string, argv: string[]): Promise<void> {
  if (agentViewDisabled(io.env)) {
    throw new JobError('the agent view is off (MADOHUB_DISABLE_AGENT_VIEW=1 or agent_view = false in settings.json)');
  }
  switch (verb) {
    case '--bg':
    case '--background':
      return bg(io, argv);
    case 'jobs':
    case 'agents':
      return agents(io.env, io.out, argv);
    case 'attach': {
      const short = resolveId(io, parseArgs(argv, [], ['ID']).positional[0]!);
      return attach(io, short, path.join(jobsDir(io.env), short));
    }
    case 'route':
      return routeVerb(io, argv);
    default:
      throw new UsageError(`unknown command '${safeText(verb)}'`);
  }
}
