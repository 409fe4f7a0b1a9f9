// Whether a job's host lives: `<job>/host.json`, its pid and the process's start stamp (a pid alone
// may be another process's after the host died, or after a reboot). Small on purpose: `mado agents`
// loads it.
import { lstatSync, rmSync } from 'node:fs';
import path from 'node:path';
import { leadsGroup, orphanedGroupLives, sameProcess } from '../proc/stamp.js';
import { isObj } from '../shared/checks.js';
import { readJsonBounded } from '../shared/files.js';

/** `<job>/host.json`: the live host, for the daemon and the CLI. */
export interface HostInfo {
  proto: number;
  pid: number;
  /** The host's start stamp (see proc/stamp.ts). */
  pidStart: string;
  /** The agent: the leader of the PTY's session and process group. */
  ptyPid: number;
  ptyStart: string;
  socket: string;
  startedAt: number;
  /** Set when its agent has exited: the host is writing the job's last state and about to exit. */
  endedAt?: number;
}

const MAX_HOST_INFO_BYTES = 4096;

export function readHostInfo(jobDir: string): HostInfo | undefined {
  const v = readJsonBounded(`${jobDir}${path.sep}host.json`, MAX_HOST_INFO_BYTES);
  if (!isObj(v) || typeof v.pid !== 'number' || typeof v.ptyPid !== 'number' || typeof v.socket !== 'string')
    return undefined;
  return {
    proto: Number(v.proto),
    pid: v.pid,
    pidStart: typeof v.pidStart === 'string' ? v.pidStart : '',
    ptyPid: v.ptyPid,
    ptyStart: typeof v.ptyStart === 'string' ? v.ptyStart : '',
    socket: v.socket,
    startedAt: Number(v.startedAt) || 0,
    endedAt: typeof v.endedAt === 'number' ? v.endedAt : undefined,
  };
}

/** True while the host process named by `info` runs. */
export const hostRuns = (info: HostInfo): boolean => sameProcess(info.pid, info.pidStart);

/** True while the host process of a job lives. */
export function hostAlive(jobDir: string): boolean {
  const info = readHostInfo(jobDir);
  return info !== undefined && hostRuns(info);
}

/**
 * Sends `signal` to the process group of the job's agent while that group is still the job's: led by
 * the agent (its pid and start stamp), or, its leader gone already (it dies with its host where
 * setpriv is there), still holding a child that ignores the hang-up.
 */
export function signalAgentGroup(info: HostInfo, signal: NodeJS.Signals): void {
  if (!leadsGroup(info.ptyPid, info.ptyStart) && !orphanedGroupLives(info.ptyPid)) return;
  try {
    process.kill(-info.ptyPid, signal);
  } catch {
    // Gone meanwhile.
  }
}

/**
 * After a host died without its goodbye (kill -9, OOM, a reboot): ends what its agent left running
 * (its process group, which ignores the hang-up when the agent ignores SIGHUP) and removes the
 * host's files. Returns true when a dead host was found.
 */
export function clearDeadHost(jobDir: string): boolean {
  const info = readHostInfo(jobDir);
  if (!info || hostRuns(info)) return false;
  signalAgentGroup(info, 'SIGKILL');
  // host.json is a file anyone may have edited: only a socket named for this job is removed.
  try {
    if (path.basename(info.socket) === `host-${path.basename(jobDir)}.sock` && lstatSync(info.socket).isSocket())
      rmSync(info.socket);
  } catch {
    // Gone already.
  }
  rmSync(path.join(jobDir, 'host.json'), { force: true });
  return true;
}
