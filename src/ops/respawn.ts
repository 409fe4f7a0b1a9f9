// `mado respawn ID`: an ended job started again, resuming its agent's session where the agent can,
// with the environment of the machine it runs on (its agent's variables filled there).
import { resolveId, respawnJob } from '../jobs/client/jobs.js';
import { SERVICE_MS } from '../jobs/client/service.js';
import { parseArgs } from '../shared/args.js';
import { isObj, strMax } from '../shared/checks.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { defineOp } from './op.js';

export const respawn = defineOp({
  name: 'respawn',
  usage: 'respawn ID',
  summary: "Start an ended job again, resuming its session where the agent can, with this shell's environment.",
  args: { id: strMax(200) },
  waitMs: SERVICE_MS.respawn,
  startsAgent: true,
  result: (v): string | null => (isObj(v) && shortIdCheck(v.short) === null ? null : '{ short }'),
  fromArgv: (argv) => ({ id: parseArgs(argv, [], ['ID']).positional[0] ?? '' }),
  run: async ({ io }, { id }) => {
    const short = resolveId(io, id);
    await respawnJob(io, short);
    return { short };
  },
  show: (respawned) => `respawned ${respawned.short}\n`,
});
