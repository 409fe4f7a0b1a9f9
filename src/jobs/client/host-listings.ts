// Every remote host's jobs, as this machine's daemon lists them through its links (which stay up a
// minute after use: a second listing finds them open). `mado agents --all` and `mado usage --all`.
import type { HostListing } from '../protocol/replies.js';
import { LIST_WAIT_MS } from '../remote/pool.js';
import { hostEntry, readHosts } from '../remote/hosts.js';
import type { HostConfig } from '../remote/hosts.js';
import { MAX_LINK_MESSAGE } from '../remote/wire.js';
import { safeText } from '../../shared/text.js';
import { answerMs, askOrSay } from './daemon.js';
import type { Io } from './daemon.js';

/** The hosts of hosts.json; what is wrong with it said on standard error. */
export function configuredHosts(io: Io): Map<string, HostConfig> {
  const { hosts: found, problems } = readHosts(io.env);
  for (const p of problems) io.err(`mado: ${safeText(p)}\n`);
  return found;
}

/** Each configured host's jobs, or why it is offline; none when no host is configured. */
export async function hostsListings(io: Io): Promise<HostListing[]> {
  const all = configuredHosts(io);
  if (all.size === 0) return [];
  const reply = await askOrSay(
    io,
    { op: 'remote-list', hosts: Object.fromEntries([...all].map(([n, c]) => [n, hostEntry(c)])) },
    answerMs(io.env, LIST_WAIT_MS + 8000),
    MAX_LINK_MESSAGE * 4,
  );
  return reply.type === 'hosts' ? reply.hosts : [];
}
