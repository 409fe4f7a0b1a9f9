// Routes between background jobs, kept by the daemon so that they work with Neovim closed: sources
// and targets are jobs (a target may be a file), what is sent comes from the job's records or its
// host's screen, and the payload goes through the target's host. Messages go to the daemon's log.
import type { Pending } from '../shared/pending.js';
import { asPending } from '../shared/pending.js';
import path from 'node:path';
import { agentModule } from '../agents/index.js';
import { agentStateOfJob } from '../fleet/entry.js';
import { askHost, hostScreen } from '../jobs/host-client.js';
import { stateDir } from '../shared/xdg.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import type { RouteBackend, RouteEnd, RouteFired, TurnBounds, RouteRequest } from '../routes/engine.js';
import { appendText, turnDiff, diffProblemOf, jobRecordFile, screenText, spillFile, turnAnswer } from '../routes/io.js';
import { writeRoutes } from '../routes/store.js';
import { DAEMON_ENDS } from '../shared/route-check.js';
import type { Chain, Route } from '../shared/route-types.js';
import { jobChain } from '../jobs/chain-record.js';
import type { LinkPool } from '../jobs/remote/pool.js';
import { sendToRemoteJob, throughLink } from '../jobs/remote/job-ops.js';
import { remoteTarget } from '../routes/store.js';
import { idIsOf, jobId } from '../shared/fleet-id.js';

/** A job as a route's end. */
export function jobEnd(j: ListedJob): RouteEnd {
  return {
    id: jobId(j.short),
    name: j.name,
    agent: agentModule(j.agent).displayName,
    cwd: j.cwd,
    state: agentStateOfJob(j),
  };
}

export class DaemonRouteBackend implements RouteBackend {
  readonly hopsOption = '--hops N';
  private jobs = new Map<string, ListedJob>();
  private readonly taken = new Map<string, string>();

  constructor(
    private readonly jobsDir: string,
    private readonly say_: (message: string) => void,
    /** The daemon's links to remote hosts (the routes' targets there). */
    private readonly links: LinkPool,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The jobs as the daemon last listed them. */
  setJobs(jobs: readonly ListedJob[]): void {
    this.jobs = new Map(jobs.map((j) => [jobId(j.short), j]));
  }

  refuse(req: RouteRequest): string | undefined {
    if (req.review) return 'review needs Neovim (:MadoRoute … review)';
    if (!idIsOf(req.target, DAEMON_ENDS.target))
      return 'a route of the daemon goes to a job (of this machine or of a remote host) or a file';
    return undefined;
  }

  end(id: string): RouteEnd | undefined {
    const j = this.jobs.get(id);
    return j && jobEnd(j);
  }

  targetExists(target: string): boolean {
    if (target.startsWith('file:')) return path.isAbsolute(target.slice(5));
    // A remote host's job: there while its host is named (the delivery says whether it runs).
    const remote = remoteTarget(target);
    return remote ? this.links.knows(remote.host) : this.jobs.has(target);
  }

  async answer(source: RouteEnd, turn: TurnBounds): Promise<string | undefined> {
    const j = this.jobs.get(source.id);
    return (
      j &&
      turnAnswer(
        source.id,
        j.agent,
        jobRecordFile(j, this.env),
        turn,
        () => hostScreen(this.jobsDir, j.short).catch(() => []),
        this.taken,
      )
    );
  }

  async screen(source: RouteEnd): Promise<string> {
    return screenText(await hostScreen(this.jobsDir, source.id.slice(4)).catch(() => []));
  }

  diffProblem(source: string): string | undefined {
    return diffProblemOf(this.end(source));
  }

  diff(source: RouteEnd): Promise<string> {
    return turnDiff(source.id, this.env);
  }

  async deliver(target: string, text: string, busyMs: number, chain: Chain): Promise<Pending> {
    if (target.startsWith('file:')) {
      appendText(target.slice(5), `${text}\n`);
      return '';
    }
    const remote = remoteTarget(target);
    if (remote) {
      return throughLink(
        (fn) => this.links.use(remote.host, fn),
        (link) => sendToRemoteJob(link, remote.short, text, { waitMenus: true, busyMs, chain }),
      );
    }
    const reply = await askHost(this.jobsDir, target.slice(4), { op: 'send', text, waitMenus: true, busyMs, chain });
    return reply.type === 'ok' ? asPending(reply.pending) : '';
  }

  chainOf(entry: string): { chain: Chain | undefined } | undefined {
    return jobChain(this.jobsDir, entry);
  }

  review(): Promise<string | null> {
    return Promise.resolve(null);
  }

  spill(route: Route, text: string): string {
    return spillFile(path.join(stateDir(this.env), 'routes'), route, text);
  }

  fired(e: RouteFired): void {
    this.say_(`route ${e.route}: ${e.source} → ${e.target}, hop ${e.hop}, ${e.bytes} bytes`);
  }

  held(e: { route: string; reason: string }): void {
    this.say_(`route ${e.route}: ${e.reason}`);
  }

  say(message: string): void {
    this.say_(message);
  }

  changed(routes: Route[]): void {
    try {
      writeRoutes(this.jobsDir, routes);
    } catch (err) {
      this.say_(`cannot keep the routes: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
