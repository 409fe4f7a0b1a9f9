// `mado kill ID`: a job and its processes killed (SIGKILL), waited for until they have ended.
import { resolveId, stopJob } from '../jobs/client/jobs.js';
import { SERVICE_MS } from '../jobs/client/service.js';
import { parseArgs } from '../shared/args.js';
import { bool, isObj, pattern, strMax } from '../shared/checks.js';
import { SHORT_ID } from '../shared/fleet-id.js';
import { defineOp } from './op.js';

const short = pattern(SHORT_ID, 'a job id');

export const kill = defineOp({
  name: 'kill',
  usage: 'kill ID',
  summary: 'Kill a job and its processes (SIGKILL).',
  args: { id: strMax(200) },
  waitMs: SERVICE_MS.kill,
  result: (v): string | null =>
    isObj(v) && short(v.short) === null && bool(v.ended) === null ? null : '{ short, ended }',
  fromArgv: (argv) => ({ id: parseArgs(argv, [], ['ID']).positional[0] ?? '' }),
  run: async ({ io }, { id }) => {
    const found = resolveId(io, id);
    return { short: found, ended: await stopJob(io, found, 'kill') };
  },
  show: (killed) => `killed ${killed.short}\n`,
});
