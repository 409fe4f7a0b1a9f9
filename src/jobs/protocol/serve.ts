// The one server loop of the daemon and the hosts: a hello on every connection, bounded messages,
// the protocol version and a guard checked before a handler sees a request, every failure answered
// (never thrown), and a bound on what waits to be written to a client that does not read.
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { checkProto, encode, LineDecoder, MAX_MESSAGE_BYTES } from './codec.js';
import type { Reply } from './replies.js';

/** What may wait in memory for one slow client before it is told it lags (see `Peer.send`). */
export const MAX_PENDING_BYTES = 1024 * 1024;

/** One connected client. */
export interface Peer {
  /**
   * Writes a reply. Returns false, writing nothing, while more than MAX_PENDING_BYTES wait for this
   * client (one that does not read): the caller drops what it cannot send and catches up on `drain`.
   */
  send(reply: Reply): boolean;
  /** Writes a last reply and closes. */
  end(reply?: Reply): void;
  /** Called once when the client has read what was pending (after `send` returned false). */
  onDrain(fn: () => void): void;
  onClose(fn: () => void): void;
  readonly closed: boolean;
  /** Bytes written to this client that it has not read yet (held in this process). */
  readonly pending: number;
}

export interface ServeOptions<R> {
  role: 'daemon' | 'host';
  /** The guard: the request, or why the message is none. */
  parse(value: unknown): R | string;
  handle(request: R, peer: Peer): void | Promise<void>;
  /** Where a handler's unexpected failure is told. */
  log(message: string): void;
  maxMessageBytes?: number;
}

function peerOf(socket: Socket): Peer {
  let closed = false;
  const closers: (() => void)[] = [];
  socket.on('close', () => {
    closed = true;
    for (const fn of closers.splice(0)) fn();
  });
  socket.on('error', () => socket.destroy());
  return {
    send(reply) {
      if (closed || socket.writableLength > MAX_PENDING_BYTES) return false;
      socket.write(encode(reply));
      return true;
    },
    end(reply) {
      if (closed) return;
      if (reply) socket.end(encode(reply));
      else socket.end();
    },
    onDrain(fn) {
      socket.once('drain', fn);
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
    get closed() {
      return closed;
    },
    get pending() {
      return socket.writableLength;
    },
  };
}

export function serve<R>(opts: ServeOptions<R>): Server {
  return createServer((socket) => {
    const peer = peerOf(socket);
    const decoder = new LineDecoder(opts.maxMessageBytes ?? MAX_MESSAGE_BYTES);
    socket.setEncoding('utf8');
    peer.send({ type: 'hello', role: opts.role, pid: process.pid });
    socket.on('data', (chunk: string) => {
      let messages: unknown[];
      try {
        messages = decoder.push(chunk);
        for (const m of messages) checkProto(m, 'this client');
      } catch (err) {
        socket.removeAllListeners('data');
        peer.end({ type: 'error', error: err instanceof Error ? err.message : String(err) });
        return;
      }
      for (const raw of messages) {
        const request = opts.parse(raw);
        if (typeof request === 'string') {
          peer.end({ type: 'error', error: request });
          return;
        }
        const fail = (err: unknown): void => {
          opts.log(`handler failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          peer.end({ type: 'error', error: err instanceof Error ? err.message : String(err) });
        };
        try {
          const done = opts.handle(request, peer);
          if (done) done.catch(fail);
        } catch (err) {
          fail(err);
        }
      }
    });
  });
}
