// What tells one process from a later one with the same pid: its start time in /proc/<pid>/stat.
// Small on purpose (`mado agents` loads it).
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat that tell a process: its parent, start time (clock ticks since boot) and name. */
export function parseStat(text: string): { state: string; ppid: number; pgrp: number; start: string; name: string } | undefined {
  // The name (field 2) is in parentheses and may hold spaces: read the fields after its last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const start = fields[19];
  if (!Number.isFinite(ppid) || start === undefined) return undefined;
  return { state: fields[0] ?? '', ppid, pgrp: Number(fields[2]), start, name: text.slice(text.indexOf('(') + 1, close) };
}

const hasProc = ((): boolean => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/**
 * The start stamp of a running process ('' where /proc is missing), or undefined when it is gone or
 * a zombie (dead, not yet reaped: where no init reaps orphans, a job's agent can stay one).
 */
export function processStamp(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (!hasProc) {
    try {
      process.kill(pid, 0);
      return '';
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM' ? '' : undefined;
    }
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
  if (!hasProc) return true;
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.pgrp === pid;
  } catch {
    return false;
  }
}

/** True while the process `pid` that had the stamp `stamp` runs (not another one that took its pid). */
export function sameProcess(pid: number, stamp: string): boolean {
  const now = processStamp(pid);
  return now !== undefined && (now === '' || stamp === '' || now === stamp);
}

/**
 * True when some process is still in the process group `pgid` whose leader has exited. The kernel
 * gives no new process a pid that is still a group's id, so such members are that group's.
 */
export function orphanedGroupLives(pgid: number): boolean {
  if (!hasProc || !Number.isInteger(pgid) || pgid <= 0 || processStamp(pgid) !== undefined) return false;
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
