// The one job verb of `mado` that is no operation (src/ops/): `attach`, a terminal joined to a job's
// host (its keys and screen as they come), which has no result to give as data.
import path from 'node:path';
import { jobsDir } from '../jobs/store.js';
import { resolveId } from '../jobs/client/jobs.js';
import type { Io } from '../jobs/client/daemon.js';
import { JobError, UsageError } from '../shared/errors.js';
import { parseArgs, safeText } from '../shared/args.js';
import { attach } from './attach.js';
import { agentViewDisabled } from './switch.js';
import { JOB_VERBS } from './verbs.js';

export type { Io };

export { JOB_VERBS };

/** Runs a job verb. */
export async function runJobVerb(io: Io, verb: string, argv: string[]): Promise<void> {
  if (agentViewDisabled(io.env)) {
    throw new JobError('the agent view is off (MADOHUB_DISABLE_AGENT_VIEW=1 or agent_view = false in settings.json)');
  }
  switch (verb) {
    case 'attach': {
      const short = resolveId(io, parseArgs(argv, [], ['ID']).positional[0]!);
      return attach(io, short, path.join(jobsDir(io.env), short));
    }
    default:
      throw new UsageError(`unknown command '${safeText(verb)}'`);
  }
}
