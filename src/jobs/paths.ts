import { lstatSync, mkdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/** The runtime folder of the sockets, before it is made or checked. */
export function runtimePath(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.MADOHUB_RUNTIME_DIR ||
    (env.XDG_RUNTIME_DIR ? path.join(env.XDG_RUNTIME_DIR, 'madohub') : path.join(tmpdir(), `madohub-${userInfo().uid}`))
  );
}

/** Why the folder `dir` (as lstat saw it) is not private to this user, or null. */
export function notPrivate(dir: string, st: Stats): string | null {
  if (st.isSymbolicLink()) return `${dir} is a symbolic link, not a folder of this user`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  if (st.uid !== userInfo().uid) return `${dir} belongs to uid ${st.uid}, not to this user (uid ${userInfo().uid})`;
  if ((st.mode & 0o077) !== 0) {
    return `${dir} is open to others (mode ${(st.mode & 0o777).toString(8)}); it must be 0700 (chmod 700 ${dir})`;
  }
  return null;
}

/**
 * The private runtime folder of the sockets: `$MADOHUB_RUNTIME_DIR`, `$XDG_RUNTIME_DIR/madohub`, else
 * `<tmp>/madohub-<uid>`; created 0700. Refused (an Error that says why) when it is a link, not this
 * user's, or open to others: another user could then put a socket of their own there.
 */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = runtimePath(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const why = notPrivate(dir, lstatSync(dir));
  if (why) throw new Error(`refusing the runtime folder: ${why}`);
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
export const hostSocket = (runtime: string, short: string): string =>
  socketPath(path.join(runtime, `host-${short}.sock`));
