// What is asked of one job on a remote host through its link: the job's host there answers as a
// socket's would (a reply sent or queued, a menu answered, its screen). Shared by the Neovim side's
// calls and routes and by the daemon's routes.
import { asPending } from '../../shared/pending.js';
import type { Pending } from '../../shared/pending.js';
import type { Chain } from '../chain-record.js';
import { safeText } from '../../shared/text.js';
import { LinkError } from './link.js';
import type { Link, MessagePeer } from './link.js';
import type { Reply } from '../protocol/replies.js';
import { TargetOffline } from '../../shared/errors.js';

/**
 * Runs `fn` with the host's link as `use` gives it (the Neovim side's followed link, the daemon's
 * pool); a link that cannot be had is TargetOffline: nothing was handed over, what was to go may wait.
 */
export async function throughLink<T>(
  use: (fn: (link: Link) => Promise<T>) => Promise<T>,
  fn: (link: Link) => Promise<T>,
): Promise<T> {
  let linked = false;
  try {
    return await use((link) => {
      linked = true;
      return fn(link);
    });
  } catch (err) {
    if (!linked && err instanceof LinkError) throw new TargetOffline(err.message);
    throw err;
  }
}

/** How long the job's host there has to answer. */
export const REMOTE_HOST_MS = 10_000;

/** One request to the job's host there; its error reply is thrown in its words. */
async function askRemoteJob(link: Link, short: string, message: object): Promise<Reply> {
  let peer: MessagePeer | undefined;
  try {
    peer = await link.host(short, REMOTE_HOST_MS);
    peer.send(message);
    const reply = await peer.next(REMOTE_HOST_MS);
    if (reply.type === 'error') throw new Error(`${link.name}: ${safeText(reply.error)}`);
    return reply;
  } finally {
    peer?.close();
  }
}

/** Sends a reply (or a route's text, with its terms) to a job there: '' once sent, else why it waits. */
export async function sendToRemoteJob(
  link: Link,
  short: string,
  text: string,
  terms: { waitMenus?: boolean; busyMs?: number; chain?: Chain } = {},
): Promise<Pending> {
  const ok = await askRemoteJob(link, short, { op: 'send', text, ...terms });
  if (ok.type !== 'ok') return '';
  return asPending(ok.pending ?? (ok.queued === true ? 'queued' : ''));
}
