import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/**
 * The private runtime folder of the sockets: `$XDG_RUNTIME_DIR/madohub`, else `<tmp>/madohub-<uid>`;
 * created 0700 and refused when it is not a folder of this user.
 */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.MADOHUB_RUNTIME_DIR || (env.XDG_RUNTIME_DIR ? path.join(env.XDG_RUNTIME_DIR, 'madohub') : path.join(tmpdir(), `madohub-${userInfo().uid}`));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== userInfo().uid) throw new Error(`${dir} is not a private folder of this user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/** The longest path a Unix socket can have on Linux (sun_path is 108 bytes with its NUL). */
export const MAX_SOCKET_PATH = 107;

/** Throws a clear error for a socket path the kernel would cut. */
function socketPath(p: string): string {
  const n = Buffer.byteLength(p);
  if (n > MAX_SOCKET_PATH) {
    throw new Error(
      `the socket path ${p} is ${n} bytes, and a socket's path can have at most ${MAX_SOCKET_PATH}: ` +
        'set MADOHUB_RUNTIME_DIR (or XDG_RUNTIME_DIR) to a shorter folder',
    );
  }
  return p;
}

export const daemonSocket = (runtime: string): string => socketPath(path.join(runtime, 'daemon.sock'));
export const hostSocket = (runtime: string, short: string): string => socketPath(path.join(runtime, `host-${short}.sock`));
