// The jobs as the verbs list them (`mado jobs`, `mado agents --all`; src/ops/agents.ts): their order,
// their status word, the table and the JSON. `mado jobs` alone is also built as its own small entry
// (dist/mado-agents.js, src/bin/mado-agents.ts), since listing must be fast.
import { agentStateOfJob, confirmedJob, usageOf } from './entry.js';
import { spendShort } from '../usage/sum.js';
import type { HostListing, ListedJob } from '../jobs/protocol/replies.js';
import { listedJobs } from '../jobs/listed.js';
import { safeText } from '../shared/text.js';

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

/** This machine's jobs of folder `dir`, in the order the verbs list them. */
export async function localJobs(dir: string): Promise<ListedJob[]> {
  return (await listedJobs(dir)).sort(byCreation);
}

/** `mado jobs [--json]`'s words for jobs listed in order. */
export function localJobsText(jobs: readonly ListedJob[], json: boolean, home = ''): string {
  if (json) return `${JSON.stringify(jobs.map(jobJson))}\n`;
  return jobs.length === 0 ? 'no jobs\n' : jobTable(jobs, Date.now(), home);
}

/** A job of some machine's list, its host named (`local` for this one). */
export type HostJob = ReturnType<typeof jobJson> & { host: string };

/** A host as `mado agents --all` lists it: online (and its mado's version), or offline and why. */
export type HostState =
  | { host: string; online: true; version?: string }
  | { host: string; online: false; reason: string };

/** Every machine's jobs, as `mado agents --all --json` prints them. */
export interface JobsAcross {
  jobs: HostJob[];
  hosts: HostState[];
}

/** The listings of every machine (this one's first, as `local`) as one list of jobs and hosts. */
export function jobsAcross(listings: readonly HostListing[]): JobsAcross {
  return {
    jobs: listings.flatMap((l) =>
      'jobs' in l ? [...l.jobs].sort(byCreation).map((j) => ({ ...jobJson(j), host: l.host })) : [],
    ),
    hosts: listings.map((l) =>
      'jobs' in l
        ? { host: l.host, online: true, ...(l.version ? { version: l.version } : {}) }
        : { host: l.host, online: false, reason: l.offline },
    ),
  };
}

/** `mado agents --all`'s table: a HOST column, and a row for each host with no job to show. */
export function acrossTable(listings: readonly HostListing[], home = ''): string {
  const rows: { host: string; job: ListedJob }[] = [];
  const jobless: { host: string; offline?: string }[] = [];
  for (const l of listings) {
    if (!('jobs' in l)) jobless.push({ host: l.host, offline: l.offline });
    else if (l.jobs.length === 0 && l.host !== 'local') jobless.push({ host: l.host });
    else for (const job of [...l.jobs].sort(byCreation)) rows.push({ host: l.host, job });
  }
  return jobTable(
    rows.map((r) => r.job),
    Date.now(),
    home,
    { hosts: rows.map((r) => r.host), jobless },
  );
}
