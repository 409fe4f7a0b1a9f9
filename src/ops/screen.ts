// `mado screen ID`: a running job's screen as its host renders it now (text lines, no escape bytes);
// once the job has ended, the last lines of its output. What the picker's peek pane shows of a job.
import path from 'node:path';
import { jobScreen, resolveId } from '../jobs/client/jobs.js';
import { jobText } from '../jobs/job-text.js';
import { jobsDir } from '../jobs/store.js';
import { parseArgs } from '../shared/args.js';
import { bool, isObj, plainLines, strMax } from '../shared/checks.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { safeText } from '../shared/text.js';
import { defineOp } from './op.js';

/** The most lines of an ended job's output it gives. */
const ENDED_LINES = 150;

export const screen = defineOp({
  name: 'screen',
  usage: 'screen ID',
  summary: `Print a running job's screen as it is now; once it has ended, the last ${ENDED_LINES} lines of its output.`,
  args: { id: strMax(200) },
  result: (v): string | null =>
    isObj(v) && shortIdCheck(v.short) === null && plainLines(v.lines) === null && bool(v.live) === null
      ? null
      : '{ short, lines, live }',
  fromArgv: (argv) => ({ id: parseArgs(argv, [], ['ID']).positional[0] ?? '' }),
  run: async ({ io }, { id }) => {
    const short = resolveId(io, id);
    try {
      return { short, lines: (await jobScreen(io, short)).map(safeText), live: true };
    } catch {
      const text = (await jobText(path.join(jobsDir(io.env), short))).lines;
      return { short, lines: text.slice(-ENDED_LINES).map(safeText), live: false };
    }
  },
  show: (shown) => (shown.lines.length > 0 ? `${shown.lines.join('\n')}\n` : ''),
});
