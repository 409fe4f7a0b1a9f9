// Follows an agent's own event stream (server-sent events on its HTTP server at the loopback address:
// OpenCode's `GET /event`), as hostile input: only 127.0.0.1, an answer that is no event stream or does
// not open with the server's greeting is refused, every event and every wait is bounded, and a stream
// that ends is opened again with a growing delay until it is stopped.
import { request } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { printable } from '../shared/text.js';

/** The most of one event's data kept (a larger one is dropped). */
export const MAX_EVENT = 256 * 1024;
/** How long the server has to answer and greet. */
export const GREETING_MS = 2000;
const RETRY_MS = [250, 500, 1000, 2000, 5000];

export interface EventStreamOptions {
  port: number;
  path: string;
  /** The event a genuine server opens with (`{"type":"server.connected"}`): anything else first is refused. */
  greeting(event: unknown): boolean;
  onEvent(event: unknown): void;
  log(line: string): void;
  /**
   * Whether the server that greeted listens from the agent's own process (another user may listen on
   * the port first): its events count only then. Asked at each greeting; none: not asked.
   */
  owned?(): boolean;
}

/** One SSE parser: `data:` lines up to a blank line make an event (JSON); comments and other fields are passed over. */
export class SseParser {
  private line = '';
  private data = '';
  private dropping = false;

  constructor(private readonly onData: (data: string) => void) {}

  push(chunk: string): void {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] !== '\n') continue;
      this.take(this.line + chunk.slice(start, i));
      this.line = '';
      start = i + 1;
    }
    this.line += chunk.slice(start);
    if (this.line.length > MAX_EVENT) {
      this.line = '';
      this.dropping = true;
    }
  }

  private take(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') {
      if (this.data !== '' && !this.dropping) this.onData(this.data);
      this.data = '';
      this.dropping = false;
      return;
    }
    if (!line.startsWith('data:')) return;
    const value = line.slice(5).replace(/^ /, '');
    if (this.data.length + value.length > MAX_EVENT) {
      this.dropping = true;
      this.data = '';
      return;
    }
    this.data = this.data === '' ? value : `${this.data}\n${value}`;
  }
}

export class EventStream {
  private req: ClientRequest | undefined;
  private retry: NodeJS.Timeout | undefined;
  private attempts = 0;
  private stopped = false;

  constructor(private readonly o: EventStreamOptions) {}

  start(): void {
    if (this.stopped || this.req) return;
    let greeted = false;
    const req = request({
      host: '127.0.0.1',
      port: this.o.port,
      path: this.o.path,
      headers: { accept: 'text/event-stream' },
      timeout: GREETING_MS,
    });
    this.req = req;
    const close = (why: string): void => this.close(req, why);
    const timer = setTimeout(() => {
      if (!greeted) close(`no greeting from 127.0.0.1:${this.o.port} in ${GREETING_MS} ms`);
    }, GREETING_MS);
    timer.unref();
    const parser = new SseParser((data) => {
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        return;
      }
      if (!greeted) {
        if (!this.o.greeting(event)) return close(`127.0.0.1:${this.o.port} is no event stream of the agent's`);
        if (this.o.owned && !this.o.owned())
          return close(
            `127.0.0.1:${this.o.port} is listened on by a process that is not the agent's: its events are not taken`,
          );
        greeted = true;
        this.attempts = 0;
        return;
      }
      this.o.onEvent(event);
    });
    req.on('response', (res: IncomingMessage) => {
      const type = String(res.headers['content-type'] ?? '');
      if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
        res.resume();
        return close(`127.0.0.1:${this.o.port} answered ${res.statusCode ?? '?'} ${printable(type, 40)}`);
      }
      // The stream stays open: no timeout on it once it greets (the agent's heartbeats come every few seconds).
      req.setTimeout(0);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.push(chunk));
      res.on('end', () => close('the stream ended'));
      res.on('error', () => close('the stream failed'));
    });
    req.on('timeout', () => close('no answer'));
    req.on('error', (err) => close((err as NodeJS.ErrnoException).code ?? err.message));
    req.on('close', () => clearTimeout(timer));
    req.end();
  }

  /** Ends request `req` (once: its later events find it ended) and opens the stream again after a delay. */
  private close(req: ClientRequest, why: string): void {
    if (this.req !== req) return;
    this.req = undefined;
    req.destroy();
    if (this.stopped) return;
    // Said for the first failures in a row only: a server that never comes costs no log line a retry.
    if (this.attempts < 3) this.o.log(`event stream 127.0.0.1:${this.o.port}: ${why}`);
    const delay = RETRY_MS[Math.min(this.attempts++, RETRY_MS.length - 1)]!;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.start();
    }, delay);
    this.retry.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.req?.destroy();
    this.req = undefined;
  }
}
