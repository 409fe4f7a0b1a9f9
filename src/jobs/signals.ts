/** Sends `signal` to the process group led by `pid` (a job's agent leads its PTY's session), else to `pid`. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
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
