// `mado logs [-n N] [-f] [--raw] ID`: a job's output as a person reads it — its host's terminal model
// (scrollback and screen), or, once the host is gone, its output log replayed through one. As data
// (the Lua side, another machine's bridge): its lines; at a terminal it can follow them as they come.
import path from 'node:path';
import { resolveId } from '../jobs/client/jobs.js';
import { jobText } from '../jobs/job-text.js';
import { printLogs } from '../jobs/print-logs.js';
import { jobsDir } from '../jobs/store.js';
import { parseArgs } from '../shared/args.js';
import { bool, int, isObj, optional, plainLines, strMax } from '../shared/checks.js';
import { UsageError } from '../shared/errors.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { safeText } from '../shared/text.js';
import { defineOp } from './op.js';

/** The most lines asked for (`-n`). */
const MAX_LINES = 1_000_000;

export const logs = defineOp({
  name: 'logs',
  usage: 'logs [-n N] [-f] [--raw] ID',
  summary:
    "Show a job's output as text: its scrollback and screen (the last N lines); -f follows it (each line once it has left the screen); --raw prints the recorded bytes instead.",
  args: { id: strMax(200), lines: optional(int(0, MAX_LINES)), follow: optional(bool), raw: optional(bool) },
  result: (v): string | null =>
    isObj(v) && shortIdCheck(v.short) === null && plainLines(v.lines) === null ? null : '{ short, lines }',
  fromArgv: (argv) => {
    const args = parseArgs(
      argv,
      [{ names: ['-n', '--lines'], value: true }, { names: ['-f', '--follow'] }, { names: ['--raw'] }],
      ['ID'],
    );
    const n = args.flags.get('-n');
    if (n !== undefined && !/^\d{1,6}$/.test(n))
      throw new UsageError(`-n needs a number of lines, not '${safeText(n).slice(0, 20)}'`);
    return {
      id: args.positional[0] ?? '',
      ...(n === undefined ? {} : { lines: Number(n) }),
      follow: args.flags.has('-f'),
      raw: args.flags.has('--raw'),
    };
  },
  run: async ({ io }, args) => {
    if (args.follow === true || args.raw === true) throw new UsageError('-f and --raw are for a terminal (mado logs)');
    const short = resolveId(io, args.id);
    const text = (await jobText(path.join(jobsDir(io.env), short))).lines.map(safeText);
    return { short, lines: args.lines === undefined ? text : text.slice(Math.max(0, text.length - args.lines)) };
  },
  print: async ({ io }, args) => {
    const short = resolveId(io, args.id);
    await printLogs(
      path.join(jobsDir(io.env), short),
      { lines: args.lines, follow: args.follow === true, raw: args.raw === true },
      io.out,
    );
  },
  show: (read) => (read.lines.length > 0 ? `${read.lines.join('\n')}\n` : ''),
});
