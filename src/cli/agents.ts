// `mado agents`: also built as its own small entry (dist/mado-agents.js), since listing must be fast.
import path from 'node:path';
import { hostAlive } from '../jobs/hostinfo.js';
import { jobsDir, listJobs } from '../jobs/store.js';
import type { JobState } from '../jobs/types.js';

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** `mado agents [--json]`: read from the job folders (fast: no daemon is needed to read them). */
export function agents(env: NodeJS.ProcessEnv, out: (text: string) => void, argv: readonly string[]): void {
  const dir = jobsDir(env);
  const views = listJobs(dir);
  // Only a running job, or one done with a turn, can have a live host: the others are not asked.
  // (`alive` is added to the freshly read records rather than copied into new ones: 200 copies cost
  // a cold Node ~6 ms.)
  const live = (j: JobState): boolean => (j.state === 'running' || j.state === 'done') && hostAlive(path.join(dir, j.short));
  const jobs = views.map((v) => Object.assign(v.job, { alive: live(v.job) }));
  jobs.sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.updatedAt - a.updatedAt);
  if (argv.includes('--json')) {
    out(`${JSON.stringify(jobs)}\n`);
    return;
  }
  if (jobs.length === 0) {
    out('no jobs\n');
    return;
  }
  const now = Date.now();
  const rows = jobs.map((j) => [j.short, `${j.state}/${j.tempo}`, j.agent, age(now - j.updatedAt), j.name, j.needs ? `needs ${j.needs}` : j.detail]);
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  // One write: 200 rows must not be 200 writes to a pipe.
  out(rows.map((r) => `${r.slice(0, 5).map((c, i) => c.padEnd(widths[i]!)).join('  ')}  ${r[5]}`.trimEnd()).join('\n') + '\n');
}
