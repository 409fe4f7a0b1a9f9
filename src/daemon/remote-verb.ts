// A `mado` verb run on a remote host for a client (`mado --host NAME VERB`), through the daemon's
// link to that host: its output is passed on as it comes, its end as `exit`; a client that leaves
// gives it up (the verb ends there), a link that drops is said as the error.
import type { Peer } from '../jobs/protocol/serve.js';
import type { RemoteVerbRequest } from '../jobs/protocol/daemon-requests.js';
import { parseHosts } from '../jobs/remote/hosts.js';
import type { LinkPool } from '../jobs/remote/pool.js';

/** How long a verb there may run before it is given up (a job started, stopped, its log read: seconds). */
export const VERB_DEADLINE_MS = 60_000;

/** A verb that runs as long as its job does (`logs -f`): no deadline. */
const follows = (argv: readonly string[]): boolean =>
  argv[0] === 'logs' && argv.some((a) => a === '-f' || a === '--follow');

export async function remoteVerb(
  m: RemoteVerbRequest,
  peer: Peer,
  links: LinkPool,
  deadlineMs = VERB_DEADLINE_MS,
): Promise<void> {
  const { hosts, problems } = parseHosts({ [m.host]: m.config }, 'host');
  const config = hosts.get(m.host);
  if (!config) return peer.end({ type: 'error', error: problems[0] ?? `no host '${m.host}'` });
  const gone = new AbortController();
  peer.onClose(() => gone.abort());
  try {
    const code = await links.use(
      m.host,
      (link) =>
        link.verb(m.argv, {
          stdin: m.stdin,
          cwd: m.cwd,
          env: m.env,
          signal: gone.signal,
          ...(follows(m.argv) ? {} : { deadlineMs }),
          // What a client that does not read cannot take is dropped (bounded: serve.ts), not kept here.
          onOut: (fd, data) => void peer.send({ type: 'output', data, ...(fd === 2 ? { fd } : {}) }),
        }),
      config,
    );
    peer.end({ type: 'exit', code });
  } catch (err) {
    peer.end({ type: 'error', error: err instanceof Error ? err.message : String(err) });
  }
}
