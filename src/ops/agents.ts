// `mado jobs [--json] [--all]` (also `mado agents`): the background jobs, pinned first, then oldest
// first. This machine's are read from their folders (no daemon is needed to read them), a job whose
// host died marked errored; with --all every host's too, as this machine's daemon lists them through
// its links. `mado jobs` alone also has a small entry of its own (src/bin/mado-agents.ts), which
// prints what `print` prints here through the same functions (fleet/job-table.ts).
import type { Io } from '../jobs/client/daemon.js';
import { hostsListings } from '../jobs/client/host-listings.js';
import type { HostListing } from '../jobs/protocol/replies.js';
import { hostListings } from '../jobs/protocol/replies.js';
import { jobsDir } from '../jobs/store.js';
import { acrossTable, jobsAcross, localJobs, localJobsText } from '../fleet/job-table.js';
import { parseArgs } from '../shared/args.js';
import { bool, optional, shape } from '../shared/checks.js';
import { defineOp } from './op.js';

/** The listings it gives: this machine's (as `local`) first, then with `all` each host's, offline ones with why. */
async function listings(io: Io, all: boolean): Promise<{ all: boolean; listings: HostListing[] }> {
  const here: HostListing = { host: 'local', jobs: await localJobs(jobsDir(io.env)) };
  return { all, listings: [here, ...(all ? await hostsListings(io) : [])] };
}

export const agents = defineOp({
  name: 'jobs',
  verbs: ['jobs', 'agents'],
  usage: 'jobs [--json] [--all]',
  summary:
    "List the jobs, pinned first, then oldest first (mado agents is the same, named as claude agents names its background sessions). --all lists every host's too, with a HOST column (a host that does not answer in 2 s shows offline, with why); --json prints them as JSON (with --all: { jobs, hosts }).",
  args: { json: optional(bool), all: optional(bool) },
  result: shape({ all: bool, listings: hostListings }, '{ all, listings }'),
  fromArgv: (argv) => {
    const args = parseArgs(argv, [{ names: ['--json'] }, { names: ['--all', '-a'] }], []);
    return { json: args.flags.has('--json'), all: args.flags.has('--all') };
  },
  run: ({ io }, { all }) => listings(io, all === true),
  print: async ({ io }, { json, all }) => {
    const listed = await listings(io, all === true);
    io.out(
      json === true && all === true
        ? `${JSON.stringify(jobsAcross(listed.listings))}\n`
        : shown(listed, json === true, io.env.HOME),
    );
  },
  show: (listed) => shown(listed, false),
});

/** The words of a listing: this machine's jobs as a table (or JSON), or every host's with a HOST column. */
function shown(listed: { all: boolean; listings: HostListing[] }, json: boolean, home = ''): string {
  if (listed.all) return acrossTable(listed.listings, home);
  const [here] = listed.listings;
  return localJobsText(here && 'jobs' in here ? here.jobs : [], json, home);
}
