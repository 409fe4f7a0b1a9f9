// What tells one process from a later one with the same pid: its start time in /proc/<pid>/stat,
// or where there is no /proc (macOS, the BSDs; MADOHUB_PROCESS_SOURCE=ps) in `ps`'s list. Small on
// purpose (`mado agents` loads it).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { sourceKind } from './source.js';

/** The fields of /proc/<pid>/stat that tell a process: its parent, start time (clock ticks since boot) and name. */
export function parseStat(
  text: string,
): { state: string; ppid: number; pgrp: number; start: string; name: string } | undefined {
  // The name (field 2) is in parentheses and may hold spaces: read the fields after its last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const start = fields[19];
  if (!Number.isFinite(ppid) || start === undefined) return undefined;
  return {
    state: fields[0] ?? '',
    ppid,
    pgrp: Number(fields[2]),
    start,
    name: text.slice(text.indexOf('(') + 1, close),
  };
}

/** Whether /proc is read (else `ps`): the one choice of every process reader (source.ts). */
const useProc = (): boolean => sourceKind() === 'proc';

/** A process as `ps` lists it: its group, state, and start time (what tells it from a later one). */
interface Listed {
  pgid: number;
  state: string;
  start: string;
}

/** `ps`'s list is read at most this often (one read answers every question asked meanwhile). */
const LIST_MS = 200;
let listed: { at: number; procs: Map<number, Listed> } | undefined;

/** Every process, from `ps` (bounded in time); an empty list when ps cannot run. */
function psTable(): Map<number, Listed> {
  if (listed && Date.now() - listed.at < LIST_MS) return listed.procs;
  const procs = new Map<number, Listed>();
  try {
    const out = execFileSync('ps', ['-A', '-o', 'pid=,pgid=,stat=,lstart='], {
      encoding: 'utf8',
      timeout: 2000,
      maxBuffer: 16 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    for (const line of out.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
      if (m) procs.set(Number(m[1]), { pgid: Number(m[2]), state: m[3]!, start: m[4]! });
    }
  } catch {
    // No ps: nothing is known.
  }
  listed = { at: Date.now(), procs };
  return procs;
}

const alive = (p: Listed | undefined): p is Listed => p !== undefined && !p.state.startsWith('Z');

/**
 * The start stamp of a running process ('' when neither /proc nor ps tells it), or undefined when it
 * is gone or a zombie (dead, not yet reaped: where no init reaps orphans, a job's agent can stay one).
 */
export function processStamp(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (!useProc()) {
    const p = psTable().get(pid);
    if (alive(p)) return p.start;
    // Not in the list (no ps, or another user's process it does not show): alive by its pid alone.
    if (p === undefined) {
      try {
        process.kill(pid, 0);
        return '';
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM' ? '' : undefined;
      }
    }
    return undefined;
  }
  try {
    const st = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return st && st.state !== 'Z' && st.state !== 'X' ? st.start : undefined;
  } catch {
    return undefined;
  }
}

/** True when the process `pid` (with the stamp `stamp`) runs and leads its own process group. */
export function leadsGroup(pid: number, stamp: string): boolean {
  if (!sameProcess(pid, stamp)) return false;
  if (!useProc()) return (psTable().get(pid)?.pgid ?? pid) === pid;
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.pgrp === pid;
  } catch {
    return false;
  }
}

/** True while the process `pid` that had the stamp `stamp` runs (not another one that took its pid). */
export function sameProcess(pid: number, stamp: string): boolean {
  const now = processStamp(pid);
  // A stamp of the other kind (clock ticks from /proc, a date from ps: written by a process that read
  // the other source) cannot be compared: the pid alone tells then.
  const comparable = /^\d+$/.test(now ?? '') === /^\d+$/.test(stamp);
  return now !== undefined && (now === '' || stamp === '' || !comparable || now === stamp);
}

/**
 * True when some process is still in the process group `pgid` whose leader has exited. The kernel
 * gives no new process a pid that is still a group's id, so such members are that group's.
 */
export function orphanedGroupLives(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 0 || processStamp(pgid) !== undefined) return false;
  if (!useProc()) return [...psTable().values()].some((p) => p.pgid === pgid && alive(p));
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return false;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const st = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') return true;
    } catch {
      // Gone meanwhile.
    }
  }
  return false;
}

/**
 * The terminal a process reads from (`/dev/pts/3`, its standard input's link in /proc), or '' when it
 * cannot be read.
 */
export function ttyOf(pid: number): string {
  if (!Number.isInteger(pid) || pid <= 0 || !useProc()) return '';
  try {
    const target = readlinkSync(`/proc/${pid}/fd/0`);
    return /^\/dev\/[\w/]{1,64}$/.test(target) ? target : '';
  } catch {
    return '';
  }
}
