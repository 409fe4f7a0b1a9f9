// The one protocol of the daemon, the PTY hosts and the CLI: newline-delimited JSON messages, each
// with the protocol version. Nothing else speaks on their sockets.

/** The protocol version. A peer, request or job file of another version is refused by name. */
export const PROTO = 1;

export class ProtocolError extends Error {}

/** The message for a peer (or file) of another protocol version. */
export function protoMismatch(what: string, theirs: unknown): string {
  return `${what} speaks protocol ${String(theirs)}, this mado speaks protocol ${PROTO}`;
}

/** Throws a ProtocolError unless `message` carries this protocol version. */
export function checkProto(message: unknown, what: string): void {
  const proto = typeof message === 'object' && message !== null ? (message as { proto?: unknown }).proto : undefined;
  if (proto !== PROTO) throw new ProtocolError(protoMismatch(what, proto ?? 'none'));
}

/** Splits a byte stream into JSON messages, one per line; a partial line waits for its end. */
export class LineDecoder {
  private pending = '';

  /** The messages completed by `chunk`. A line that is not JSON is a ProtocolError. */
  push(chunk: string): unknown[] {
    this.pending += chunk;
    const out: unknown[] = [];
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).trim();
      this.pending = this.pending.slice(nl + 1);
      if (line === '') continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        throw new ProtocolError(`not a protocol message: ${line.slice(0, 80)}`);
      }
    }
    return out;
  }
}

export function encode(message: object): string {
  return `${JSON.stringify({ proto: PROTO, ...message })}\n`;
}
