// Reading and writing the files of a job folder as hostile input: only regular files, never through
// a link, never more than a bound; writes that a reader sees whole or not at all, 0600, and that
// leave no temporary file behind when they fail.
import {
  appendFileSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** What a bounded read gives: the text, or an error code/reason for a person. */
export type ReadResult = { ok: true; text: string } | { ok: false; why: string; missing: boolean };

/**
 * Reads a regular file of at most `maxBytes`. A FIFO, a device, a folder or a link (O_NOFOLLOW) is
 * refused without blocking (O_NONBLOCK), and so is a larger file.
 */
export function readBounded(file: string, maxBytes: number): ReadResult {
  return readRegular(file, maxBytes, false);
}

/**
 * Reads one of the user's configuration files as readBounded does, but through a link: dotfile
 * managers link them in (what is read is still a regular file of at most `maxBytes`).
 */
export function readConfigFile(file: string, maxBytes: number): ReadResult {
  return readRegular(file, maxBytes, false, true);
}

/** The last `maxBytes` of a regular file (the whole file when it is smaller), refused as readBounded refuses. */
export function readTail(file: string, maxBytes: number): ReadResult {
  return readRegular(file, maxBytes, true);
}

function readRegular(file: string, maxBytes: number, tail: boolean, follow = false): ReadResult {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (follow ? 0 : constants.O_NOFOLLOW) | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return {
      ok: false,
      why: code === 'ELOOP' ? 'a link, not a file' : code,
      missing: code === 'ENOENT' || code === 'ENOTDIR',
    };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, why: 'not a regular file', missing: false };
    if (st.size > maxBytes && !tail) {
      return {
        ok: false,
        why: `larger than ${Math.round(maxBytes / 1024)} KiB (${Math.round(st.size / 1024)} KiB)`,
        missing: false,
      };
    }
    const from = Math.max(0, st.size - maxBytes);
    const buf = Buffer.alloc(st.size - from);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, from + n);
      if (got === 0) break;
      n += got;
    }
    return { ok: true, text: buf.subarray(0, n).toString('utf8') };
  } catch (err) {
    return { ok: false, why: (err as NodeJS.ErrnoException).code ?? String(err), missing: false };
  } finally {
    closeSync(fd);
  }
}

/** Parses a bounded JSON file; undefined when it is missing, not regular, too large or not JSON. */
export function readJsonBounded(file: string, maxBytes: number, read: typeof readBounded = readBounded): unknown {
  const r = read(file, maxBytes);
  if (!r.ok) return undefined;
  try {
    return JSON.parse(r.text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Writes a file so that a reader sees the old or the new content, never a part: temp, fsync, rename,
 * 0600 unless `mode` says. A failure (a full or read-only disk) throws and leaves no temporary file.
 */
export function writeAtomic(file: string, text: string, mode = 0o600): void {
  // A fresh name, created exclusively: a link planted where the temporary file goes is never written through.
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(tmp, 'wx', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  try {
    const dirFd = openSync(path.dirname(file), 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some file systems refuse to fsync a folder; the rename is done all the same.
  }
}

/**
 * Writes a file by a fresh temporary one (created exclusively: never through a link) renamed into
 * place, 0600, without holding the event loop and without fsync: for what a crash may lose at no cost
 * (a review's ledger), written where the editor's process must not wait on the disk.
 */
export async function writeReplacing(file: string, text: string): Promise<void> {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, { flag: 'wx', mode: 0o600 });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Appends to a file created 0600. Throws on failure (callers that must not fail use a Reporter). */
export function appendPrivate(file: string, text: string): void {
  appendFileSync(file, text, { mode: 0o600 });
}

/**
 * Keeps a file that could not be read aside (`<file>.bad-<time>`), so that the next write does not
 * lose what it held; answers what was done, for the message that says why.
 */
export function keepAside(file: string): string {
  const aside = `${file}.bad-${Date.now()}`;
  try {
    renameSync(file, aside);
    return `kept aside as ${aside}`;
  } catch (err) {
    return `not kept aside: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
  }
}
