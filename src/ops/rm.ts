// `mado rm [-f|--force] ID`: an ended job's folder removed, and its worktree when it holds no unsaved
// work (uncommitted changes, commits on no other branch), unless forced. Its daemon refuses a running job.
import { removeJobVia, resolveId } from '../jobs/client/jobs.js';
import { SERVICE_MS } from '../jobs/client/service.js';
import { parseArgs } from '../shared/args.js';
import { bool, isObj, optional, strMax } from '../shared/checks.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { defineOp } from './op.js';

export const rm = defineOp({
  name: 'rm',
  usage: 'rm [-f|--force] ID',
  summary:
    "Remove a job's folder and worktree. Refused for a running job, or a worktree with uncommitted changes or commits on no other branch, unless --force.",
  args: { id: strMax(200), force: optional(bool) },
  waitMs: SERVICE_MS.remove,
  result: (v): string | null => (isObj(v) && shortIdCheck(v.short) === null ? null : '{ short }'),
  fromArgv: (argv) => {
    const args = parseArgs(argv, [{ names: ['--force', '-f'] }], ['ID']);
    return { id: args.positional[0] ?? '', force: args.flags.has('--force') };
  },
  run: async ({ io }, { id, force }) => {
    const found = resolveId(io, id);
    await removeJobVia(io, found, force === true);
    return { short: found };
  },
  show: (removed) => `removed ${removed.short}\n`,
});
