// A host of hosts.json named on the command line, a link to it, and a job of its list found by what a
// user typed: what the verbs across machines share (cli/remote.ts, ops/route.ts).
import { matchJob } from '../ids.js';
import type { ListedJob } from '../protocol/replies.js';
import { HOST_NAME, hostsFile } from '../remote/hosts.js';
import type { HostConfig } from '../remote/hosts.js';
import { Link, LinkError } from '../remote/link.js';
import { JobError, UsageError } from '../../shared/errors.js';
import { printable, safeText } from '../../shared/text.js';
import type { Io } from './daemon.js';
import { configuredHosts } from './host-listings.js';

/** Host `name` of hosts.json; a UsageError naming those there are when it is none. */
export function hostNamed(io: Io, name: string): HostConfig {
  if (!HOST_NAME.test(name)) throw new UsageError(`'${printable(name, 40)}' is no host name`);
  const all = configuredHosts(io);
  const cfg = all.get(name);
  if (!cfg) {
    const known = [...all.keys()];
    throw new UsageError(
      `no host '${name}' in ${hostsFile(io.env)}${known.length ? ` (there are: ${known.join(', ')})` : ' (it names none: see :help madohub-hosts)'}`,
    );
  }
  return cfg;
}

/** A link to host `name` (a JobError when it cannot be opened). */
export async function openLink(io: Io, name: string, cfg: HostConfig, connectMs?: number): Promise<Link> {
  try {
    return await Link.open(name, cfg, { env: io.env, connectMs });
  } catch (err) {
    throw err instanceof LinkError ? new JobError(err.message) : err;
  }
}

/** A job of host `name` by its id, a unique prefix or its name, from the host's list. */
export async function findOnHost(io: Io, name: string, query: string): Promise<ListedJob> {
  const link = await openLink(io, name, hostNamed(io, name));
  try {
    const jobs = await link.list(10_000);
    const m = matchJob(
      jobs.map((j) => j.short),
      query,
      () => jobs,
    );
    if (!m.ok) throw new JobError(`${name}: ${safeText(m.error)}`);
    return jobs.find((j) => j.short === m.short)!;
  } catch (err) {
    throw err instanceof LinkError ? new JobError(err.message) : err;
  } finally {
    link.close();
  }
}
