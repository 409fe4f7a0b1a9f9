import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { ProcessInfo } from '../shared/types.js';
import { parseStat } from './stamp.js';
import type { ProcessSource } from './source.js';

/**
 * /proc/<pid>/stat: the parent pid, its start time (clock ticks since boot; tells pid reuse) and its
 * name. An exec keeps the pid and start time, and may keep the name too (a fork of node that execs
 * `env node agent` ends named node again): what tells the image is these and its command line.
 */
function readStat(procRoot: string, pid: number): { ppid: number; start: string; image: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const st = parseStat(text);
  return st && { ppid: st.ppid, start: st.start, image: `${st.start} ${st.name}` };
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

/** Children of `pid` from /proc/<pid>/task/<tid>/children (every thread's). */
function childrenOf(procRoot: string, pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`${procRoot}/${pid}/task`);
  } catch {
    return undefined;
  }
  const out: number[] = [];
  for (const tid of tasks) {
    let text: string;
    try {
      text = readFileSync(`${procRoot}/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      return undefined; // No children files on this kernel.
    }
    for (const c of text.trim().split(/\s+/)) if (c) out.push(Number(c));
  }
  return out;
}

/** Every process's parent, from a scan of /proc (when children files are missing). */
function parentMap(procRoot: string): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const name of readdirSync(procRoot)) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(procRoot, Number(name));
    if (!st) continue;
    const list = map.get(st.ppid) ?? [];
    list.push(Number(name));
    map.set(st.ppid, list);
  }
  return map;
}

/**
 * Reads a terminal's process tree from /proc. What it learns of a process (name, executable) is
 * kept per pid, start time, name and command line (see `readStat`), so that a scan of a tree that
 * did not change reads two small files per process.
 */
export class ProcessTree implements ProcessSource {
  readonly kind = 'proc';
  /** /proc is read as it is now. */
  readonly stale = false;
  private readonly cache = new Map<number, { image: string; info: ProcessInfo }>();

  constructor(private readonly procRoot = '/proc') {}

  refresh(): Promise<void> {
    return Promise.resolve();
  }

  startMs(pid: number): number | undefined {
    return processStartMs(pid, this.procRoot);
  }

  cwd(pid: number): string | undefined {
    return processCwd(pid, this.procRoot);
  }

  openFiles(pid: number): string[] {
    return openFiles(pid, this.procRoot);
  }

  private info(pid: number): ProcessInfo | undefined {
    const st = readStat(this.procRoot, pid);
    if (!st) {
      this.cache.delete(pid);
      return undefined;
    }
    const dir = `${this.procRoot}/${pid}`;
    const cmdline = readOr(`${dir}/cmdline`, '');
    const image = `${st.image}\0${cmdline}`;
    const cached = this.cache.get(pid);
    if (cached && cached.image === image) return cached.info;
    let exe = '';
    try {
      exe = readlinkSync(`${dir}/exe`);
    } catch {
      // Another user's process, or a zombie: the other fields still tell.
    }
    const info: ProcessInfo = {
      pid,
      ppid: st.ppid,
      comm: readOr(`${dir}/comm`, '').trim(),
      argv: cmdline.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1),
      exe,
    };
    this.cache.set(pid, { image, info });
    return info;
  }

  /** `root` and its descendants, parents before children; [] when `root` is gone. */
  walk(root: number): ProcessInfo[] {
    const out: ProcessInfo[] = [];
    let parents: Map<number, number[]> | undefined;
    const queue = [root];
    const seen = new Set<number>();
    while (queue.length > 0) {
      const pid = queue.shift()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const info = this.info(pid);
      if (!info) continue;
      out.push(info);
      let kids = childrenOf(this.procRoot, pid);
      if (kids === undefined) {
        parents ??= parentMap(this.procRoot);
        kids = parents.get(pid) ?? [];
      }
      queue.push(...kids);
    }
    return out;
  }

  /** Drops what is cached of processes that are gone. */
  prune(): void {
    for (const pid of this.cache.keys()) if (!readStat(this.procRoot, pid)) this.cache.delete(pid);
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** When the system booted (epoch ms), from /proc/stat's btime. */
function bootTimeMs(procRoot: string): number | undefined {
  const m = /^btime (\d+)$/m.exec(readOr(`${procRoot}/stat`, ''));
  return m ? Number(m[1]) * 1000 : undefined;
}

/** When a process started (epoch ms), or undefined when it is gone. */
export function processStartMs(pid: number, procRoot = '/proc'): number | undefined {
  const st = readStat(procRoot, pid);
  const boot = bootTimeMs(procRoot);
  if (!st || boot === undefined) return undefined;
  return boot + (Number(st.start) * 1000) / USER_HZ;
}

/** A process's working folder, or undefined. */
export function processCwd(pid: number, procRoot = '/proc'): string | undefined {
  try {
    return readlinkSync(`${procRoot}/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** The files a process holds open (targets of /proc/<pid>/fd/*); [] when they cannot be read. */
export function openFiles(pid: number, procRoot = '/proc'): string[] {
  let fds: string[];
  try {
    fds = readdirSync(`${procRoot}/${pid}/fd`);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const fd of fds) {
    try {
      out.push(readlinkSync(`${procRoot}/${pid}/fd/${fd}`));
    } catch {
      // Closed meanwhile.
    }
  }
  return out;
}
