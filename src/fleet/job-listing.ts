// The jobs as the hub shows them: each listing of their folder, never going back to an older file,
// and each job's row, whose state keeps the time it began across rewrites of its file.
import type { UsageTally } from '../usage/tally.js';
import type { Usage } from '../usage/types.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import type { JobFile } from '../jobs/types.js';
import { jobEntry } from './entry.js';
import { jobTurnEnded } from '../routes/engine.js';
import type { FleetEntry } from './entry.js';

/**
 * The jobs as newly listed. A job whose file was read fine before is never taken back to an older
 * file: a listing read before a write (the hub's own mark, or one a listing read in parallel) may end
 * after it. A job listed while its file could not be read (being made) takes the file whatever its time.
 */
export function newestJobs(known: readonly ListedJob[], listed: readonly ListedJob[]): ListedJob[] {
  const byShort = new Map(known.map((j) => [j.short, j]));
  return listed.map((j) => {
    const k = byShort.get(j.short);
    return k && k.error === undefined && j.error === undefined && j.updatedAt < k.updatedAt
      ? { ...k, alive: j.alive }
      : j;
  });
}

/**
 * The jobs `known` with `job` as newly read or told in its place (unless the one known is newer); a job
 * not known is left out.
 */
export function withJob(known: readonly ListedJob[], job: ListedJob): ListedJob[] {
  return newestJobs(
    known,
    known.map((j) => (j.short === job.short ? job : j)),
  );
}

/**
 * Whether `job` is as `known` has it already (the same write of its file, as alive): a job's write is
 * told by its host and read from its file, and heard once.
 */
export function sameJob(known: readonly ListedJob[], job: ListedJob): boolean {
  const k = known.find((j) => j.short === job.short);
  return k !== undefined && k.updatedAt === job.updatedAt && k.alive === job.alive && k.error === job.error;
}

/**
 * Who hears of a job's rows: a state that changed or a turn that ended (routes fire on it), a job gone from
 * the folder.
 */
export interface JobNews {
  stateChanged(id: string, from: FleetEntry['state'], to: FleetEntry['state'], turnEnded: boolean): void;
  gone(id: string): void;
}

export class JobListing {
  private listed: ListedJob[] = [];
  /** When each job's state began (a rename or pin rewrites the job file: its state began earlier). */
  private readonly since = new Map<string, { state: FleetEntry['state']; since: number; turns: number }>();

  /** `host`: the remote host these jobs run on ('' for this machine's). */
  constructor(
    private readonly news: JobNews,
    private readonly host = '',
    /** A job's tally as its row carries it (priced, held against the budget). */
    private readonly spent?: (tally: UsageTally | null) => Usage | null,
  ) {}

  /** The jobs as last listed or written. */
  get jobs(): readonly ListedJob[] {
    return this.listed;
  }

  /** A new listing of the folder. */
  list(listed: readonly ListedJob[]): void {
    this.listed = newestJobs(this.listed, listed);
  }

  /** One job as newly read (its file changed) or told: taken unless what is shown is newer. */
  one(job: ListedJob): boolean {
    if (sameJob(this.listed, job)) return false;
    this.listed = withJob(this.listed, job);
    return true;
  }

  /**
   * A job's file as the hub wrote it: shown so, not once the watcher reads it back (a second move before
   * then would undo the first).
   */
  wrote(job: JobFile): void {
    this.listed = this.listed.map((j) => (j.short === job.short ? { ...j, ...job } : j));
  }

  /** The jobs' rows (each shown in the terminal `shownIn` gives, if any); tells what changed since the last rows. */
  rows(shownIn: (short: string) => number | undefined): FleetEntry[] {
    const entries = this.listed.map((j) => {
      const e = jobEntry(j, shownIn(j.short), this.host, this.spent);
      const known = this.since.get(e.id);
      const turns = e.turns;
      const ended = known !== undefined && jobTurnEnded(known.state, e.state, { before: known.turns, now: turns });
      // A turn whose Working went unseen (done, then done again a turn later) is news too.
      if (known && ended) this.news.stateChanged(e.id, known.state, e.state, true);
      if (known && known.state === e.state) {
        known.turns = turns;
        // A new turn's end begins its state anew, though the word is the same.
        if (ended) known.since = e.since;
        return { ...e, since: known.since };
      }
      this.since.set(e.id, { state: e.state, since: e.since, turns });
      if (known && !ended) this.news.stateChanged(e.id, known.state, e.state, false);
      return e;
    });
    const listed = new Set(entries.map((e) => e.id));
    for (const id of this.since.keys()) {
      if (listed.has(id)) continue;
      this.since.delete(id);
      this.news.gone(id);
    }
    return entries;
  }
}
