// Talking to the daemon or a host: one request, one reply (the protocol module's messages).
import { connect } from 'node:net';
import { checkProto, encode, LineDecoder, ProtocolError } from './protocol.js';

export interface Reply {
  type: string;
  error?: string;
  [key: string]: unknown;
}

/** Sends `message` to the socket and resolves with the first reply. Rejects on no answer in `timeoutMs`. */
export function request(socketPath: string, message: object, timeoutMs = 5000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const decoder = new LineDecoder();
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no answer from ${socketPath} in ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(encode(message)));
    socket.on('data', (chunk: string) => {
      try {
        const [first] = decoder.push(chunk);
        if (first === undefined) return;
        checkProto(first, 'the other end');
        clearTimeout(timer);
        socket.end();
        resolve(first as Reply);
      } catch (err) {
        clearTimeout(timer);
        socket.destroy();
        reject(err instanceof ProtocolError ? err : new Error(String(err)));
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
