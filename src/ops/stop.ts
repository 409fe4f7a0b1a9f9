// `mado stop [--no-wait] ID`: a job stopped gracefully (its agent's interrupt, then SIGTERM, then
// SIGKILL), waited for until it has ended unless told not to.
import { resolveId, stopJob } from '../jobs/client/jobs.js';
import { SERVICE_MS } from '../jobs/client/service.js';
import { STOP_WAIT_MS } from '../jobs/protocol/daemon-requests.js';
import { parseArgs } from '../shared/args.js';
import { bool, isObj, optional, strMax } from '../shared/checks.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { defineOp } from './op.js';

export const stop = defineOp({
  name: 'stop',
  usage: 'stop [--no-wait] ID',
  summary: `Stop a job gracefully (the agent's interrupt, then SIGTERM, then SIGKILL) and wait until it has ended (at most ${STOP_WAIT_MS / 1000} s).`,
  args: { id: strMax(200), wait: optional(bool) },
  waitMs: SERVICE_MS.stop,
  result: (v): string | null =>
    isObj(v) && shortIdCheck(v.short) === null && bool(v.ended) === null ? null : '{ short, ended }',
  fromArgv: (argv) => {
    const args = parseArgs(argv, [{ names: ['--no-wait'] }], ['ID']);
    return { id: args.positional[0] ?? '', wait: !args.flags.has('--no-wait') };
  },
  run: async ({ io }, { id, wait }) => {
    const found = resolveId(io, id);
    return { short: found, ended: await stopJob(io, found, 'stop', wait !== false) };
  },
  show: (stopped) => `${stopped.ended ? 'stopped' : 'stopping'} ${stopped.short}\n`,
});
