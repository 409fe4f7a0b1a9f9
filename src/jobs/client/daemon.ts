// The CLI's side of the daemon: find it (starting it when none answers) and ask it one thing.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDetached } from '../detached.js';
import { daemonEnv } from '../env.js';
import { lastEntry } from '../joblog.js';
import { daemonSocket, runtimeDir } from '../paths.js';
import { ReachError, request } from '../protocol/client.js';
import type { Reply } from '../protocol/replies.js';
import { socketLive } from '../protocol/socket.js';
import { safeText } from '../../shared/text.js';
import { JobError } from '../../shared/errors.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Standard input's text; `firstByteMs`: none unless its first byte comes within that long. */
  stdin(firstByteMs?: number): Promise<string | undefined>;
  env: NodeJS.ProcessEnv;
  /** The `mado` script (to start the daemon with). */
  script: string;
  /** The terminal's size, when standard output is one. */
  columns?: number;
  rows?: number;
}

/** An Io for a caller that prints nothing and reads no input (the Neovim side, a bridge): its answers are values. */
export function quietIo(env: NodeJS.ProcessEnv, script: string, size: { columns?: number; rows?: number } = {}): Io {
  return { out: () => undefined, err: () => undefined, stdin: async () => undefined, env, script, ...size };
}

/** How long a client waits for a daemon it started to listen (`$MADOHUB_DAEMON_START_MS`, for tests). */
const daemonStartMs = (env: NodeJS.ProcessEnv): number => Number(env.MADOHUB_DAEMON_START_MS) || 20000;

/** The daemon's socket, starting the daemon (detached, with no key or token in its environment) when none answers. */
export async function daemonSocketUp(io: Io): Promise<string> {
  let runtime: string;
  let sock: string;
  try {
    runtime = runtimeDir(io.env);
    sock = daemonSocket(runtime);
  } catch (err) {
    throw new JobError(`cannot reach the mado daemon: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (await socketLive(sock)) return sock;
  const started = startDetached(io.script, ['__daemon'], daemonEnv(io.env));
  // A cold start (node-pty and the terminal emulator read from a cold disk, a busy machine) can take
  // seconds; a daemon that dies is told at once. One that leaves because another won the race is fine.
  const deadline = Date.now() + daemonStartMs(io.env);
  while (started.ended() === undefined && Date.now() < deadline) {
    await sleep(30);
    if (await socketLive(sock)) return sock;
  }
  if (await socketLive(sock)) return sock;
  const log = path.join(runtime, 'daemon.log');
  const why = lastEntry(log);
  const ended = started.ended();
  throw new JobError(
    `cannot reach the mado daemon at ${sock}: it did not start` +
      (ended ? ` (it ${ended}${why ? `; its log says: ${why}` : ''})` : ` in ${daemonStartMs(io.env)} ms`) +
      `. See ${log}, or run \`node ${io.script} __daemon\` in a terminal to see its errors.`,
  );
}

/** How long a request waits for the daemon's answer (`$MADOHUB_ACK_MS` shortens it, for tests). */
export const answerMs = (env: NodeJS.ProcessEnv, ms: number): number => Number(env.MADOHUB_ACK_MS) || ms;

/**
 * Asks the daemon, starting it when needed; an error reply is a JobError. A ReachError is thrown for
 * a daemon that hung up, fell silent or was late (the caller knows what that means for its request);
 * one that was gone before the request left is asked again once (it left idle meanwhile).
 */
export async function ask(io: Io, message: object, timeoutMs: number, maxMessageBytes?: number): Promise<Reply> {
  for (let attempt = 0; ; attempt++) {
    const sock = await daemonSocketUp(io);
    let reply: Reply;
    try {
      reply = await request(sock, message, timeoutMs, maxMessageBytes);
    } catch (err) {
      if (err instanceof ReachError && err.reason === 'absent' && attempt === 0) continue;
      if (err instanceof ReachError && err.reason !== 'untrusted' && err.reason !== 'absent') throw err;
      throw new JobError(
        `cannot reach the mado daemon at ${sock}: ${err instanceof Error ? err.message : String(err)}. See ${path.join(path.dirname(sock), 'daemon.log')}.`,
      );
    }
    if (reply.type === 'error') throw new JobError(safeText(reply.error));
    return reply;
  }
}

/** A ReachError of the daemon's, in words for a person. */
export function unreachable(err: ReachError): JobError {
  const what =
    err.reason === 'closed'
      ? 'ended before it answered'
      : err.reason === 'silent'
        ? "does not answer (its process may be stopped, or be an older mado's daemon, which leaves once its jobs have ended)"
        : 'did not answer in time';
  return new JobError(`the mado daemon ${what}: ${err.message}`);
}

/**
 * Asks the daemon as `ask` does; a daemon that hung up, fell silent or was late is a JobError in words for
 * a person.
 */
export async function askOrSay(io: Io, message: object, timeoutMs: number, maxMessageBytes?: number): Promise<Reply> {
  try {
    return await ask(io, message, timeoutMs, maxMessageBytes);
  } catch (err) {
    throw err instanceof ReachError ? unreachable(err) : err;
  }
}
