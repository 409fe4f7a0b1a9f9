// `mado usage [--since DATE] [--by agent|folder|model|day] [--all] [--json]`: what the agents MadoHub
// knows spent (issue 30), summed from their entries: this machine's jobs (their hosts' tallies), the
// terminals of every Neovim that runs MadoHub here (their summaries), and with --all every remote
// host's jobs. Each is counted from the agent's own records (|madohub-usage|).
import path from 'node:path';
import { loadPricesFile, priceOf } from '../agents/prices.js';
import { editorTerminals } from '../fleet/editors.js';
import { jobEntry, usageOf } from '../fleet/entry.js';
import type { UsageTally } from '../usage/tally.js';
import type { Io } from '../jobs/client/daemon.js';
import { hostsListings } from '../jobs/client/host-listings.js';
import { listedJobs } from '../jobs/listed.js';
import { runtimeDir } from '../jobs/paths.js';
import { jobsDir } from '../jobs/store.js';
import { parseArgs } from '../shared/args.js';
import { bool, int, listOf, num, oneOf, optional, orNull, pattern, plainMax, shape } from '../shared/checks.js';
import type { Check } from '../shared/checks.js';
import { UsageError } from '../shared/errors.js';
import { safeText } from '../shared/text.js';
import { DAY, localDay } from '../usage/tally.js';
import { sumUsage, USAGE_GROUPS, usageTable } from '../usage/sum.js';
import type { SpendingEntry, UsageGroup, UsageSum } from '../usage/sum.js';
import { defineOp } from './op.js';

/** The most entries summed (this machine's jobs and terminals, and every host's jobs). */
const MAX_ENTRIES = 10_000;

/** The entries whose spending is known: this machine's jobs and Neovims' terminals, and (all) every host's jobs. */
async function spendingEntries(io: Io, all: boolean): Promise<SpendingEntry[]> {
  for (const problem of await loadPricesFile(io.env)) io.err(`mado usage: ${safeText(problem)}\n`);
  const [jobs, hosts] = await Promise.all([listedJobs(jobsDir(io.env)), all ? hostsListings(io) : []]);
  const priced = (tally: UsageTally | null) => usageOf(tally, priceOf);
  const entries = [
    ...jobs.map((j) => jobEntry(j, undefined, '', priced)),
    ...editorTerminals(path.join(runtimeDir(io.env), 'editors')),
    ...hosts.flatMap((h) => ('jobs' in h ? h.jobs.map((j) => jobEntry(j, undefined, h.host, priced)) : [])),
  ];
  return entries
    .slice(0, MAX_ENTRIES)
    .flatMap((e) => (e.usage ? [{ agent: e.agent, cwd: e.cwd, host: e.host, usage: e.usage }] : []));
}

/** The sum `mado usage` prints or answers, of the entries its arguments name. */
async function summed(io: Io, args: { since?: string; by?: UsageGroup; all?: boolean }): Promise<UsageSum> {
  return sumUsage(await spendingEntries(io, args.all === true), args.by ?? 'agent', args.since ?? '');
}

const count = int(0, Number.MAX_SAFE_INTEGER);
const spend = {
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  costUsd: orNull(num),
};
const sumCheck: Check<UsageSum> = shape(
  {
    by: oneOf(...USAGE_GROUPS),
    since: pattern(/^(?:\d{4}-\d{2}-\d{2})?$/, "a day (YYYY-MM-DD) or ''"),
    rows: listOf(shape({ key: plainMax(4096), ...spend }, 'a row'), MAX_ENTRIES * 10, 'rows of spends'),
    total: shape(spend, 'a spend'),
  },
  'a sum of usage {by, since, rows, total}',
);

/** `--since`'s day: `YYYY-MM-DD`, `today`, or `Nd` (the last N days, today among them). */
export function sinceDay(word: string, now = Date.now()): string {
  if (DAY.test(word) && !Number.isNaN(Date.parse(word))) return word;
  if (word === 'today') return localDay(now);
  const days = /^([1-9]\d{0,3})d$/.exec(word);
  if (days) return localDay(now - (Number(days[1]) - 1) * 86_400_000);
  throw new UsageError(`--since needs a day (YYYY-MM-DD, today, or 7d), not '${safeText(word).slice(0, 20)}'`);
}

export const usage = defineOp({
  name: 'usage',
  usage: 'usage [--since DATE] [--by agent|folder|model|day] [--all] [--json]',
  summary:
    "Sum what the agents spent (tokens, cost in US dollars) from their own records: this machine's jobs and Neovims' terminals, every host's jobs with --all; --since YYYY-MM-DD, today or 7d; --json prints { by, since, rows: [{ key, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd }], total }.",
  args: {
    since: optional(pattern(DAY, 'a day (YYYY-MM-DD)')),
    by: optional(oneOf(...USAGE_GROUPS)),
    all: optional(bool),
    json: optional(bool),
  },
  result: sumCheck,
  fromArgv: (argv) => {
    const args = parseArgs(
      argv,
      [
        { names: ['--since'], value: true },
        { names: ['--by'], value: true },
        { names: ['--all', '-a'] },
        { names: ['--json'] },
      ],
      [],
    );
    const by = args.flags.get('--by');
    if (by !== undefined && !USAGE_GROUPS.some((g) => g === by))
      throw new UsageError(`--by takes ${USAGE_GROUPS.join(', ')}, not '${safeText(by).slice(0, 20)}'`);
    const since = args.flags.get('--since');
    return {
      ...(since === undefined ? {} : { since: sinceDay(since) }),
      ...(by === undefined ? {} : { by: USAGE_GROUPS.find((g) => g === by) }),
      all: args.flags.has('--all'),
      json: args.flags.has('--json'),
    };
  },
  run: ({ io }, args) => summed(io, args),
  print: async ({ io }, args) => {
    const sum = await summed(io, args);
    io.out(args.json === true ? `${JSON.stringify(sum)}\n` : usageTable(sum));
  },
  show: usageTable,
});
