// Asking a running job's host something over its socket (the protocol's client side), for the CLI,
// the Neovim side and the daemon alike.
import path from 'node:path';
import { hostRuns, readHostInfo } from './hostinfo.js';
import { request } from './protocol/client.js';
import type { Reply } from './protocol/replies.js';

/** Why a host could not be asked: not running, or not reachable; or what it refused. */
export class HostError extends Error {}

/** Asks the host of job `short` (in `jobsDir`); an error reply is thrown as the host's words. */
export async function askHost(jobsDir: string, short: string, message: object, timeoutMs = 5000): Promise<Reply> {
  const info = readHostInfo(path.join(jobsDir, short));
  if (!info || !hostRuns(info))
    throw new HostError(`job ${short} is not running (mado respawn ${short} starts it again)`);
  let reply: Reply;
  try {
    reply = await request(info.socket, message, timeoutMs);
  } catch (err) {
    throw new HostError(`cannot reach the host of job ${short}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (reply.type === 'error') throw new HostError(reply.error);
  return reply;
}

/** A running job's screen as its host renders it (text lines, no escape bytes). */
export async function hostScreen(jobsDir: string, short: string): Promise<string[]> {
  const reply = await askHost(jobsDir, short, { op: 'attach' });
  return reply.type === 'screen' ? reply.lines : [];
}
