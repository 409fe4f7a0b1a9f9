// `mado review [--turn N] [--json] ID`: what a job changed in its folder during its last finished turn,
// or its turn N (counted from 1), from the checkpoints its host took at the turn's start and end (issue 29).
// As data (Neovim's :MadoReview, another machine's bridge): the review, with the files' texts on request.
import type { Io } from '../jobs/client/daemon.js';
import { resolveId } from '../jobs/client/jobs.js';
import type { TurnReview } from '../review/read.js';
import { reviewCheck, reviewTurn } from '../review/read.js';
import { reviewText } from '../review/text.js';
import { parseArgs } from '../shared/args.js';
import { bool, int, optional, strMax } from '../shared/checks.js';
import { UsageError } from '../shared/errors.js';
import { reviewKey } from '../shared/fleet-id.js';
import { safeText } from '../shared/text.js';
import { reviewDir } from '../shared/xdg.js';
import { defineOp } from './op.js';

/** The review of job `id`'s turn. */
function jobReview(io: Io, args: { id: string; turn?: number; contents?: boolean }): Promise<TurnReview> {
  const short = resolveId(io, args.id);
  const key = reviewKey({ kind: 'job', short, host: '' }) ?? '';
  return reviewTurn(reviewDir(io.env), key, {
    ...(args.turn === undefined ? {} : { turn: args.turn }),
    contents: args.contents === true,
  });
}

export const review = defineOp({
  name: 'review',
  usage: 'review [--turn N] [--json] ID',
  summary:
    'Show what a job changed in its folder during its last finished turn (or turn N, from 1), as a unified diff; --json prints { agent, name, turn, startedAt, endedAt, folder, others, files: [{ path, status, oldPath?, diff }] }.',
  args: { id: strMax(200), turn: optional(int(1, 1_000_000_000)), json: optional(bool), contents: optional(bool) },
  result: reviewCheck,
  fromArgv: (argv) => {
    const args = parseArgs(argv, [{ names: ['--turn'], value: true }, { names: ['--json'] }], ['ID']);
    const n = args.flags.get('--turn');
    if (n !== undefined && !/^[1-9]\d{0,8}$/.test(n))
      throw new UsageError(`--turn needs a turn's number (1 is the first), not '${safeText(n).slice(0, 20)}'`);
    return {
      id: args.positional[0] ?? '',
      ...(n === undefined ? {} : { turn: Number(n) }),
      json: args.flags.has('--json'),
    };
  },
  run: ({ io }, args) => jobReview(io, args),
  print: async ({ io }, args) => {
    const r = await jobReview(io, args);
    io.out(args.json === true ? `${JSON.stringify(r)}\n` : reviewText(r));
  },
  show: reviewText,
});
