// The small entry of `mado jobs` (and `mado agents`) without --all: bin/mado loads it instead of the
// whole CLI for these verbs. It prints what the operation (src/ops/agents.ts) prints, through the same
// functions, without loading the operations.
import { writeSync } from 'node:fs';
import { localJobs, localJobsText } from '../fleet/job-table.js';
import { jobsDir } from '../jobs/store.js';
import { parseArgs } from '../shared/args.js';
import { UsageError } from '../shared/errors.js';
import { agentViewDisabled } from '../cli/switch.js';

/**
 * Writes to a file descriptor without a stream: `process.stdout` on a pipe or a terminal loads
 * Node's stream and socket modules, which costs `mado agents` about 6 ms.
 */
function writeAll(fd: number, text: string): void {
  let rest = Buffer.from(text);
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return; // The reader has gone (`mado agents | head -1`).
      // A non-blocking pipe that is full: wait for the reader.
      if (code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

function fail(message: string, code: number): void {
  writeAll(2, `mado ${process.argv[2] ?? 'jobs'}: ${message}\n`);
  process.exitCode = code;
}

async function main(): Promise<void> {
  if (agentViewDisabled(process.env))
    return fail('the agent view is off (MADOHUB_DISABLE_AGENT_VIEW=1 or agent_view = false in settings.json)', 1);
  try {
    const args = parseArgs(process.argv.slice(3), [{ names: ['--json'] }], []);
    writeAll(1, localJobsText(await localJobs(jobsDir(process.env)), args.flags.has('--json'), process.env.HOME));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), err instanceof UsageError ? 2 : 1);
  }
}

// All is written (synchronously): leave at once rather than tear the heap down (~3 ms).
void main().finally(() => process.exit());
