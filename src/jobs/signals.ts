import { constants as osConstants } from 'node:os';

/** Sends `signal` to the process group led by `pid` (a job's agent leads its PTY's session), else to `pid`. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  // 0 and 1 are no job's (kill(0) is the caller's own group, -1 every process it may signal).
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}

/** A signal's name from its number as node-pty reports it (`SIGKILL` for 9), else `signal N`. */
export function signalName(signal: number): string {
  for (const [name, n] of Object.entries(osConstants.signals)) if (n === signal) return name;
  return `signal ${signal}`;
}
