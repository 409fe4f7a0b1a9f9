// Whether a job's host lives: `<job>/host.json` and its pid. Small on purpose (`mado agents` loads it).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** `<job>/host.json`: the live host, for the daemon and the CLI. */
export interface HostInfo {
  proto: number;
  pid: number;
  ptyPid: number;
  socket: string;
  startedAt: number;
  /** Set when its agent has exited: the host is writing the job's last state and about to exit. */
  endedAt?: number;
}

export function readHostInfo(jobDir: string): HostInfo | undefined {
  const file = path.join(jobDir, 'host.json');
  // Most jobs have no host: asked first, their missing file throws no error (an error costs a cold
  // `mado agents` ~50 µs a job).
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as HostInfo;
  } catch {
    return undefined;
  }
}

/** True while the host process of a job lives. */
export function hostAlive(jobDir: string): boolean {
  const info = readHostInfo(jobDir);
  if (!info) return false;
  try {
    process.kill(info.pid, 0);
    return true;
  } catch {
    return false;
  }
}
