// How a job's file tells its agent's end: stopped or killed by the user, killed by a signal, done, or
// errored with its status. Pure.
import { signalName } from '../signals.js';
import type { JobFile, JobStatus } from '../types.js';

/**
 * The job's last change once its agent exited: `ending` when the user stopped or killed it; a signal
 * (SIGKILL, the OOM killer: node-pty says status 0 and the signal) is no finish; status 0 is done.
 */
export function endOf(ending: JobStatus | undefined, exitCode: number, signal: number | undefined): Partial<JobFile> {
  const end: Partial<JobFile> = ending
    ? { status: ending, detail: ending }
    : signal
      ? { status: 'errored', detail: `killed by ${signalName(signal)}` }
      : exitCode === 0
        ? { status: 'done' }
        : { status: 'errored', detail: `exited with status ${exitCode}` };
  return { ...end, tempo: 'idle', needs: null, block: null, pendingReply: null };
}
