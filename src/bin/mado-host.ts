// The entry of a job's host (`mado __host JOBS SHORT`) and of the daemon's spare host (`mado __spare
// JOBS …`): bin/mado loads it instead of the whole CLI for these verbs, so that each host parses and
// keeps only the code a host runs (a host lives as long as its job: its memory is per job; issue 31).
import path from 'node:path';
import { runHost, runSpare } from '../jobs/host/index.js';
import { SPARE_VERB } from '../jobs/host/spare.js';
import { appendEntry } from '../jobs/joblog.js';
import { runtimePath } from '../jobs/paths.js';
import { SHORT_ID } from '../jobs/types.js';

const [verb, dir, short] = process.argv.slice(2);

/** The log a host's crash goes to: its job's, or the daemon's for a spare (it has no standard error to read). */
function crashLog(): string | undefined {
  if (verb === SPARE_VERB) return path.join(runtimePath(), 'daemon.log');
  if (dir && short && SHORT_ID.test(short)) return path.join(dir, short, 'host.log');
  return undefined;
}

function main(): Promise<number> {
  if (verb === '__host' && dir && short) return runHost(dir, short);
  if (verb === SPARE_VERB && dir) return runSpare(dir);
  process.stderr.write(`mado ${verb ?? ''}: started by the daemon only (see mado --help)\n`);
  return Promise.resolve(2);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const text = `mado: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
    process.stderr.write(text);
    try {
      const log = crashLog();
      if (log) appendEntry(log, text.trimEnd());
    } catch {
      // No log to write to: nothing more to do.
    }
    process.exit(1);
  },
);
