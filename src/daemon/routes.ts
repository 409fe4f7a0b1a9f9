// The daemon's routes: between jobs (or from a job to a file), kept in the jobs folder, fired as the
// daemon's check sees a job's agent end a turn — with Neovim closed too.
import { JobListing } from '../fleet/job-listing.js';
import { DaemonRouteBackend } from './route-backend.js';
import type { LinkPool } from '../jobs/remote/pool.js';
import { DEFAULT_SETTINGS, MAX_ROUTES, RouteEngine } from '../routes/engine.js';
import { loadRoutes } from '../routes/store.js';
import type { RouteAddRequest, RouteRemoveRequest } from '../jobs/protocol/daemon-requests.js';
import type { ListedJob, Reply } from '../jobs/protocol/replies.js';
import { localJobShort } from '../shared/fleet-id.js';

export class DaemonRoutes {
  private readonly backend: DaemonRouteBackend;
  private readonly engine: RouteEngine;
  /**
   * The jobs as the last check read them: a state that changed or a turn that ended sets routes off, as in
   * the fleet.
   */
  private readonly listing = new JobListing({
    stateChanged: (id, from, to, turnEnded) => this.engine.changed(id, from, to, turnEnded),
    gone: (id) => this.engine.gone(id),
  });

  /** What was wrong with routes.json when the daemon started ([] when nothing): `mado route ls` says it. */
  readonly problems: string[];

  constructor(
    jobsDir: string,
    private readonly say: (message: string) => void,
    links: LinkPool,
  ) {
    this.backend = new DaemonRouteBackend(jobsDir, say, links);
    this.engine = new RouteEngine(this.backend);
    const loaded = loadRoutes(jobsDir, MAX_ROUTES);
    this.problems = loaded.problems;
    for (const p of loaded.problems) say(`routes: ${p}`);
    this.engine.restore(loaded.routes);
  }

  get size(): number {
    return this.engine.list().length;
  }

  /** The jobs as the daemon's check lists them: a job whose agent ended a turn sets its routes off. */
  jobs(jobs: readonly ListedJob[]): void {
    this.backend.setJobs(jobs);
    this.listing.list(jobs);
    const seen = new Set(this.listing.rows(() => undefined).map((e) => e.id));
    // Routes whose ends are jobs of this machine that are not there (removed while no daemon ran, a
    // file written by hand): pruned, each said, not restored and listed for ever.
    for (const r of this.engine.list()) {
      for (const end of [r.source, r.target]) {
        const short = localJobShort(end);
        if (short === undefined || seen.has(end)) continue;
        this.say(`route ${r.id} (${r.source} → ${r.targetName}) removed: no job ${short}`);
        this.engine.gone(end);
      }
    }
  }

  /** Adds a route; `jobs` are the jobs as they are now (one just dispatched may not have been checked yet). */
  add(m: RouteAddRequest, jobs: readonly ListedJob[]): Reply {
    this.backend.setJobs(jobs);
    this.engine.configure({ ...DEFAULT_SETTINGS, templates: m.templates ?? {} });
    try {
      return { type: 'routes', routes: [this.engine.add(m)] };
    } catch (err) {
      return { type: 'error', error: err instanceof Error ? err.message : String(err) };
    }
  }

  list(): Reply {
    return {
      type: 'routes',
      routes: this.engine.list(),
      ...(this.problems.length > 0 ? { problems: this.problems } : {}),
    };
  }

  remove(m: RouteRemoveRequest): Reply {
    return this.engine.remove(m.id) ? { type: 'ok' } : { type: 'error', error: `no route '${m.id}'` };
  }
}
