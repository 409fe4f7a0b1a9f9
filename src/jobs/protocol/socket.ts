// The daemon's socket: who answers there, and how a new daemon takes it without a race.
import { existsSync, linkSync, lstatSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';

/**
 * True when something answers on the socket. A socket that refuses is stale and removed (only a
 * socket: a file or folder someone put there is left alone). A daemon's socket appears only once it
 * listens (see `publish`), so a refusal never means "still starting".
 */
export function socketLive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (!existsSync(socketPath)) return resolve(false);
    const s = connect(socketPath);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', (err: NodeJS.ErrnoException) => {
      try {
        if (err.code === 'ECONNREFUSED' && lstatSync(socketPath).isSocket()) unlinkSync(socketPath);
      } catch {
        // Gone already.
      }
      resolve(false);
    });
  });
}

/**
 * Puts the listening socket `tmp` in place at `socketPath` with link(2), which fails when a path is
 * there, so that of two daemons started at once exactly one is reached. A stale socket in the way is
 * removed and the link tried again. Returns why it could not, or null.
 */
export async function publish(tmp: string, socketPath: string): Promise<'live' | 'blocked' | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      linkSync(tmp, socketPath);
      return null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await socketLive(socketPath)) return 'live';
  }
  return 'blocked';
}

/** What is at `p` that is no daemon's socket, in words. */
export function inTheWay(p: string): string {
  try {
    const st = lstatSync(p);
    if (st.isDirectory()) return 'a folder';
    if (st.isSocket()) return 'a socket that takes no connection';
    return 'a file';
  } catch {
    return 'something that comes and goes';
  }
}
