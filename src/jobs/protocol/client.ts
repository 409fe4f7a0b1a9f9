// Talking to the daemon or a host: a connection only to a socket of this user in a private folder,
// the server's hello within a short wait, then requests with deadlines. A closed connection is told
// at once; every failure is a ReachError with a message for a person.
import { lstatSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { checkProto, encode, LineDecoder } from './codec.js';
import { asReply } from './replies.js';
import type { Hello, Reply } from './replies.js';
import { notPrivate } from '../paths.js';

/**
 * Why a peer could not be reached: nothing listens (`absent`), the socket or its folder is not to be
 * trusted (`untrusted`), it took the connection but said nothing (`silent`: stopped, or busy), it
 * hung up before answering (`closed`), it did not answer in time (`timeout`), it spoke another
 * protocol (`protocol`).
 */
export type ReachFailure = 'absent' | 'untrusted' | 'silent' | 'closed' | 'timeout' | 'protocol';

export class ReachError extends Error {
  constructor(
    message: string,
    readonly reason: ReachFailure,
  ) {
    super(message);
  }
}

/** How long a peer has to say hello: it does so at once unless it is stopped or frozen. */
export const HELLO_MS = 3000;

/** Replies kept for a reader that has not asked for them: past this many, the socket is not read until it asks. */
const MAX_QUEUED = 64;

/** Throws a ReachError unless `socketPath` is a socket of this user in a private folder of this user. */
export function checkTrusted(socketPath: string): void {
  const dir = path.dirname(socketPath);
  let why: string | null;
  try {
    why = notPrivate(dir, lstatSync(dir));
    if (!why) {
      const st = lstatSync(socketPath);
      if (!st.isSocket()) why = `${socketPath} is not a socket`;
      else if (st.uid !== userInfo().uid) why = `${socketPath} belongs to uid ${st.uid}, not to this user`;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ReachError(`nothing listens at ${socketPath}`, 'absent');
    throw new ReachError(`cannot check ${socketPath}: ${code ?? String(err)}`, 'untrusted');
  }
  if (why) throw new ReachError(`refusing to connect to ${socketPath}: ${why}`, 'untrusted');
}

/** An open connection whose hello has come: send requests, read replies in order. */
export class Conn {
  private readonly queue: Reply[] = [];
  private waiter: ((r: Reply | ReachError) => void) | undefined;
  private failure: ReachError | undefined;

  private constructor(
    readonly socket: Socket,
    readonly socketPath: string,
    private readonly decoder: LineDecoder,
  ) {
    socket.on('data', (chunk: string) => {
      let messages: unknown[];
      try {
        messages = this.decoder.push(chunk);
        for (const m of messages) checkProto(m, `${socketPath}`);
      } catch (err) {
        return this.fail(new ReachError(err instanceof Error ? err.message : String(err), 'protocol'));
      }
      for (const m of messages) {
        const reply = asReply(m);
        if (typeof reply === 'string')
          return this.fail(new ReachError(`${socketPath} sent a message that is no reply: ${reply}`, 'protocol'));
        if (this.waiter) {
          const w = this.waiter;
          this.waiter = undefined;
          w(reply);
        } else this.queue.push(reply);
      }
      // Not read on while its reader is behind: the peer's writes wait (what it keeps is its own bound).
      if (this.queue.length >= MAX_QUEUED) socket.pause();
    });
    socket.on('close', () =>
      this.fail(new ReachError(`${socketPath} closed the connection before it answered`, 'closed')),
    );
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const absent = err.code === 'ENOENT' || err.code === 'ECONNREFUSED';
      this.fail(
        new ReachError(
          absent ? `nothing listens at ${socketPath}` : `${socketPath}: ${err.message}`,
          absent ? 'absent' : 'closed',
        ),
      );
    });
  }

  private fail(err: ReachError): void {
    this.failure ??= err;
    this.socket.destroy();
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(this.failure);
    }
  }

  /**
   * Connects to a trusted socket and waits up to `helloMs` for the peer's hello, which carries its
   * protocol version (another version is a ReachError that names both).
   */
  static async open(
    socketPath: string,
    helloMs = HELLO_MS,
    maxMessageBytes?: number,
  ): Promise<{ conn: Conn; hello: Hello }> {
    checkTrusted(socketPath);
    const socket = connect(socketPath);
    socket.setEncoding('utf8');
    const conn = new Conn(socket, socketPath, new LineDecoder(maxMessageBytes));
    let first: Reply;
    try {
      first = await conn.next(helloMs, 'silent');
    } catch (err) {
      conn.close();
      // Hung up before its hello (a daemon that was leaving idle as we came): nothing was asked of
      // it, so it is as absent as one that had left, and may be asked again.
      if (err instanceof ReachError && err.reason === 'closed')
        throw new ReachError(`${socketPath} closed the connection before its hello`, 'absent');
      throw err;
    }
    if (first.type !== 'hello') {
      conn.close();
      throw new ReachError(first.type === 'error' ? first.error : `${socketPath} did not say hello`, 'protocol');
    }
    return { conn, hello: first };
  }

  /**
   * The next reply, within `ms` (0: no limit); a ReachError on a close, an error or no reply in time (the
   * connection stays open then).
   */
  next(ms: number, late: ReachFailure = 'timeout'): Promise<Reply> {
    const queued = this.queue.shift();
    if (this.queue.length < MAX_QUEUED / 2 && this.socket.isPaused()) this.socket.resume();
    if (queued) return Promise.resolve(queued);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer =
        ms > 0 && Number.isFinite(ms)
          ? setTimeout(() => {
              this.waiter = undefined;
              reject(
                new ReachError(
                  late === 'silent'
                    ? `${this.socketPath} took the connection but said nothing in ${ms / 1000} s`
                    : `no answer from ${this.socketPath} in ${ms / 1000} s`,
                  late,
                ),
              );
            }, ms)
          : undefined;
      this.waiter = (r) => {
        if (timer) clearTimeout(timer);
        if (r instanceof ReachError) reject(r);
        else resolve(r);
      };
    });
  }

  send(message: object): void {
    this.socket.write(encode(message));
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}

/** One request, one reply: connects, says the request, waits up to `timeoutMs` for the answer. */
export async function request(
  socketPath: string,
  message: object,
  timeoutMs = 5000,
  maxMessageBytes?: number,
): Promise<Reply> {
  const { conn } = await Conn.open(socketPath, undefined, maxMessageBytes);
  try {
    conn.send(message);
    return await conn.next(timeoutMs);
  } finally {
    conn.close();
  }
}
