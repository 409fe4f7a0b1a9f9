// `mado agents`: also built as its own small entry (dist/mado-agents.js), since listing must be fast.
// It reads the job folders (no daemon is needed to read them) and marks errored a job whose host died.
import { agentStateOfJob, confirmedJob, usageOf } from '../fleet/entry.js';
import { spendShort } from '../usage/sum.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { listedJobs } from '../jobs/listed.js';
import { jobsDir } from '../jobs/store.js';
import { parseArgs, safeText } from '../shared/args.js';

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** A stable order: pinned jobs first, then by creation, oldest first (ids break ties). */
export function byCreation(a: ListedJob, b: ListedJob): number {
  return (
    Number(b.pinned) - Number(a.pinned) ||
    a.createdAt - b.createdAt ||
    (a.short < b.short ? -1 : a.short > b.short ? 1 : 0)
  );
}

/**
 * A job's status as the verbs use the word: `running` while its host lives (between turns too, when
 * its file says `done`: `mado rm` refuses it, `mado stop` ends it), else how it ended.
 */
export function statusWord(j: Pick<ListedJob, 'status' | 'alive'>): string {
  return j.alive ? 'running' : j.status;
}

/**
 * The table of jobs: a header row, one row per job; fields made safe to print. `across` adds a HOST
 * column (each job's machine, `local` for this one) and a row for each host with no job to show:
 * offline (with why), or listed with none.
 */
export function jobTable(
  jobs: readonly ListedJob[],
  now: number,
  home = '',
  across?: { hosts: readonly string[]; jobless: readonly { host: string; offline?: string }[] },
): string {
  const header = ['ID', 'STATUS', 'STATE', 'AGENT', 'AGE', 'NAME', 'FOLDER', 'USAGE', 'DETAIL'];
  // Another machine's folders are its own: only this one's home is written ~.
  const short = (p: string, i: number): string =>
    home && (across?.hosts[i] ?? 'local') === 'local' && (p === home || p.startsWith(`${home}/`))
      ? `~${p.slice(home.length)}`
      : p;
  let rows = jobs.map((j, i) => [
    j.short,
    statusWord(j),
    // The agent's state, in the winbar's and the picker's words; ✓ when its agent's own events told it.
    `${agentStateOfJob(j)}${confirmedJob(j) ? ' ✓' : ''}`,
    j.agent,
    age(now - j.updatedAt),
    safeText(j.name).slice(0, 40),
    safeText(short(j.cwd, i)).slice(0, 60),
    usageWords(j),
    safeText([j.needs ? `needs ${j.needs}` : j.detail, j.problem ? `(! ${j.problem})` : ''].filter(Boolean).join(' ')),
  ]);
  if (across) {
    header.unshift('HOST');
    rows = rows.map((r, i) => [across.hosts[i] ?? 'local', ...r]);
    for (const o of across.jobless)
      rows.push([
        o.host,
        '-',
        o.offline === undefined ? 'no jobs' : 'offline',
        '',
        '',
        '',
        '',
        '',
        '',
        safeText(o.offline ?? '').slice(0, 200),
      ]);
  }
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const lines = all.map((r) =>
    r
      .map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** What a job's agent spent, as its row says it (`12.3k tok · $0.41`); '' when not known. */
function usageWords(j: ListedJob): string {
  const usage = usageOf(j.usage);
  return usage ? spendShort(usage) : '';
}

/** A job as `--json` prints it: its usage as an entry carries it (|madohub-usage|), not its host's tally. */
export const jobJson = (j: ListedJob): Omit<ListedJob, 'usage'> & { usage: ReturnType<typeof usageOf> } => ({
  ...j,
  usage: usageOf(j.usage),
});

/** `mado agents [--json]`. */
export async function agents(
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  argv: readonly string[],
): Promise<void> {
  const args = parseArgs(argv, [{ names: ['--json'] }], []);
  const dir = jobsDir(env);
  const jobs = await listedJobs(dir);
  jobs.sort(byCreation);
  if (args.flags.has('--json')) {
    out(`${JSON.stringify(jobs.map(jobJson))}\n`);
    return;
  }
  out(jobs.length === 0 ? 'no jobs\n' : jobTable(jobs, Date.now(), env.HOME));
}
