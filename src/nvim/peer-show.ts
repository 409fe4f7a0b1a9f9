// Asking another Neovim (a peer, by the server address its summary names) to show one of its
// terminals: over its socket, answered within a bound, so that a peer that never answers (stopped
// with Ctrl-Z, hung) never blocks this Neovim.
import net from 'node:net';
import path from 'node:path';
import { attach } from 'neovim';
import { LuaWire } from './lua-wire.js';

/** The longest a peer may take to answer. */
export const PEER_ANSWER_MS = 1000;

/** Whether the peer showed its terminal `buf` (false: it has no such terminal); throws why it could not be asked. */
export async function showInPeer(server: string, buf: number, timeoutMs = PEER_ANSWER_MS): Promise<boolean> {
  // A peer's address comes from a file another process wrote: a socket path, nothing else.
  if (!path.isAbsolute(server) || server.length > 4096 || /[\0\n]/.test(server))
    throw new Error('its server address is no socket path');
  const socket = net.connect(server);
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = new Promise<boolean>((resolve, reject) => {
      socket.once('error', (err) =>
        reject(new Error(`cannot reach it: ${(err as NodeJS.ErrnoException).code ?? err.message}`)),
      );
      socket.once('connect', () => {
        const nvim = attach({ reader: socket, writer: socket });
        new LuaWire(nvim).ask({ type: 'show', buf }).then(
          (shown) => resolve(shown === true),
          (err: unknown) => reject(new Error(err instanceof Error ? err.message : String(err))),
        );
      });
    });
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it does not answer (within ${timeoutMs / 1000} s)`)), timeoutMs);
    });
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
}
