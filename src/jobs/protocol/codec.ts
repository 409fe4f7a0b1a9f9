// The wire format of the daemon, the PTY hosts and the CLI: newline-delimited JSON messages, each
// carrying the protocol version. Nothing else speaks on their sockets.
import { isObj } from '../../shared/checks.js';

/** The protocol version. A peer of another version is refused by name. */
export const PROTO = 2;

/** The largest message a daemon or a host takes (a dispatch with a long prompt fits). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

export class ProtocolError extends Error {}

/** The message for a peer (or a file) of another version. */
export function protoMismatch(what: string, theirs: unknown, ours: number = PROTO): string {
  return `${what} speaks protocol ${String(theirs)}, this mado speaks protocol ${ours}`;
}

/** Throws a ProtocolError unless `message` carries this protocol version. */
export function checkProto(message: unknown, what: string): void {
  const proto = isObj(message) ? message.proto : undefined;
  if (proto !== PROTO) throw new ProtocolError(protoMismatch(what, proto ?? 'none'));
}

/**
 * Splits a byte stream into JSON messages, one per line; a partial line waits for its end. A line
 * longer than `maxBytes` (counted in UTF-16 units, which bounds the bytes within a factor of 3) is a
 * ProtocolError as soon as it is that long: nothing buffers an endless line.
 */
export class LineDecoder {
  private parts: string[] = [];
  private size = 0;

  constructor(private readonly maxBytes = MAX_MESSAGE_BYTES) {}

  /** The messages completed by `chunk`. A line that is not JSON, or too long, is a ProtocolError. */
  push(chunk: string): unknown[] {
    return this.lines(chunk).map(parseLine);
  }

  /** The lines completed by `chunk`, not parsed (blank ones left out). A line too long is a ProtocolError. */
  lines(chunk: string): string[] {
    const out: string[] = [];
    let from = 0;
    let nl: number;
    while ((nl = chunk.indexOf('\n', from)) >= 0) {
      this.parts.push(chunk.slice(from, nl));
      const line = this.parts.join('').trim();
      this.parts = [];
      this.size = 0;
      from = nl + 1;
      if (line.length > this.maxBytes) throw new ProtocolError(tooLarge(this.maxBytes));
      if (line !== '') out.push(line);
    }
    const rest = chunk.slice(from);
    if (rest) {
      this.parts.push(rest);
      this.size += rest.length;
      if (this.size > this.maxBytes) throw new ProtocolError(tooLarge(this.maxBytes));
    }
    return out;
  }
}

/** A line's message; a line that is not JSON is a ProtocolError. */
export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new ProtocolError(`not a protocol message: ${JSON.stringify(line.slice(0, 60))}`);
  }
}

const tooLarge = (max: number): string => `a message is larger than ${Math.round(max / 1024)} KiB`;

export function encode(message: object): string {
  return `${JSON.stringify({ ...message, proto: PROTO })}\n`;
}
