// `mado answer ID N`: choice N of the approval or question a job's agent shows, picked as a person
// picks it (its host reads the menu on the screen and types what picks it).
import { chooseInJob, resolveId } from '../jobs/client/jobs.js';
import { parseArgs } from '../shared/args.js';
import { int, isObj, plainLine, strMax } from '../shared/checks.js';
import { UsageError } from '../shared/errors.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { safeText } from '../shared/text.js';
import { defineOp } from './op.js';

/** The most of the chosen option's text said back. */
const OPTION_CHARS = 200;

const choice = int(1, 9);

export const answer = defineOp({
  name: 'answer',
  usage: 'answer ID N',
  summary: "Pick choice N (1-9) of the approval or question a job's agent shows.",
  args: { id: strMax(200), choice },
  result: (v): string | null =>
    isObj(v) &&
    shortIdCheck(v.short) === null &&
    choice(v.choice) === null &&
    strMax(OPTION_CHARS)(v.option) === null &&
    plainLine(v.option) === null
      ? null
      : '{ short, choice, option }',
  fromArgv: (argv) => {
    const [id = '', n = ''] = parseArgs(argv, [], ['ID', 'N']).positional;
    if (!/^[1-9]$/.test(n)) throw new UsageError(`N is a choice from 1 to 9, not '${safeText(n).slice(0, 20)}'`);
    return { id, choice: Number(n) };
  },
  run: async ({ io }, args) => {
    const short = resolveId(io, args.id);
    const option = safeText(await chooseInJob(io, short, args.choice)).slice(0, OPTION_CHARS);
    return { short, choice: args.choice, option };
  },
  show: (answered) =>
    `answered ${answered.short}: ${answered.choice}${answered.option ? `. ${answered.option}` : ''}\n`,
});
