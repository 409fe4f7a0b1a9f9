// `mado kill ID`: a job and its processes killed (SIGKILL), waited for until they have ended.
import { resolveId, stopJob } from '../jobs/client/jobs.js';
import { SERVICE_MS } from '../jobs/client/service.js';
import { parseArgs } from '../shared/args.js';
import { bool, isObj, strMax } from '../shared/checks.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { defineOp } from './op.js';

export const kill = defineOp({
  name: 'kill',
  usage: 'kill ID',
  summary: 'Kill a job and its processes (SIGKILL).',
  args: { id: strMax(200) },
  waitMs: SERVICE_MS.kill,
  result: (v): string | null =>
    isObj(v) && shortIdCheck(v.short) === null && bool(v.ended) === null ? null : '{ short, ended }',
  fromArgv: (argv) => ({ id: parseArgs(argv, [], ['ID']).positional[0] ?? '' }),
  run: async ({ io }, { id }) => {
    const found = resolveId(io, id);
    return { short: found, ended: await stopJob(io, found, 'kill') };
  },
  show: (killed) => `killed ${killed.short}\n`,
});
