// The TCP ports a process listens on at the loopback address, from /proc: its sockets' inodes
// (/proc/<pid>/fd) matched to the listening rows of /proc/net/tcp and tcp6. Bounded reads; Linux only
// (elsewhere, and for a process not ours, none).
import { closeSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';

/** The most file descriptors of a process looked at, and of /proc/net/tcp read. */
const MAX_FDS = 4096;
const MAX_TABLE = 4 * 1024 * 1024;

/** A row's local address is loopback: 127.0.0.1 (as /proc writes it), ::1, or ::ffff:127.0.0.1. */
const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000', '0000000000000000FFFF00000100007F']);

/** A /proc table (its size reads 0: read until its end), MAX_TABLE bytes at most; '' when it cannot be read. */
function readTable(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0 || total + n > MAX_TABLE) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
      total += n;
    }
    return Buffer.concat(chunks).toString('latin1');
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

/** The loopback ports `pid` listens on (lowest first), or [] when they cannot be read. */
export function listeningPorts(pid: number, procRoot = '/proc'): number[] {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`${procRoot}/${pid}/fd`).slice(0, MAX_FDS);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${procRoot}/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // Closed meanwhile.
    }
  }
  if (inodes.size === 0) return [];
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    for (const row of readTable(`${procRoot}/net/${table}`).split('\n')) {
      // `sl local_address rem_address st … uid timeout inode`: st 0A is LISTEN.
      const f = row.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A' || !inodes.has(f[9]!)) continue;
      const [addr, port] = f[1]!.split(':');
      if (addr && port && LOOPBACK.has(addr.toUpperCase())) ports.add(parseInt(port, 16));
    }
  }
  return [...ports].filter((p) => p > 0 && p < 65536).sort((a, b) => a - b);
}
