// Routes of this Neovim's Node process: its terminals and the background jobs as sources and
// targets, and this Neovim's buffers and any file as targets. Answers come from the agents' records
// (the file the terminal's watcher follows, a job's Claude Code transcript), else from the screen.
import type { Pending } from '../shared/pending.js';
import path from 'node:path';
import { agentModule } from '../agents/index.js';
import { jobScreen, sendToJob } from '../jobs/client/jobs.js';
import type { Io } from '../jobs/client/jobs.js';
import type { FleetEntry } from '../fleet/entry.js';
import type { FleetHub } from '../fleet/hub.js';
import { jobsDir, readJob } from '../jobs/store.js';
import { stateDir } from '../shared/xdg.js';
import type { TerminalWatchers } from '../state/terminal-watchers.js';
import type { RouteBackend, RouteEnd, RouteFired, TurnBounds } from '../routes/engine.js';
import { appendText, turnDiff, diffProblemOf, jobRecordFile, screenText, spillFile, turnAnswer } from '../routes/io.js';
import type { Chain, Route } from '../shared/route-types.js';
import { jobChain } from '../jobs/chain-record.js';
import { readRoutes } from '../routes/store.js';
import { sendToRemoteJob, throughLink } from '../jobs/remote/job-ops.js';
import { parseFleetId, termBuf } from '../shared/fleet-id.js';

/** A review left open this long is dropped. */
const REVIEW_MS = 30 * 60 * 1000;

/** What the Lua side does for routes: write into a buffer, open a review, tell the user. */
export interface RouteLua {
  /** Appends lines to a normal buffer; '' or why not. */
  append(buf: number, lines: string[]): Promise<string>;
  review(review: number, route: Route, text: string): void;
  event(kind: 'fired' | 'held', data: object): void;
  say(message: string, warn: boolean): void;
  routes(list: Route[]): void;
}

export class NeovimRouteBackend implements RouteBackend {
  /** The answer last taken from each source's records (a new turn's must differ, or it has not landed yet). */
  private readonly taken = new Map<string, string>();
  private readonly reviews = new Map<number, (text: string | null) => void>();
  private lastReview = 0;

  constructor(
    private readonly hub: FleetHub,
    private readonly watchers: TerminalWatchers,
    private readonly lua: RouteLua,
    private readonly io: Io,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  private entry(id: string): FleetEntry | undefined {
    return this.hub.all().find((e) => e.id === id && (e.kind === 'terminal' || e.kind === 'job'));
  }

  end(id: string): RouteEnd | undefined {
    const e = this.entry(id);
    return e && { id: e.id, name: e.name, agent: agentModule(e.agent).displayName, cwd: e.cwd, state: e.state };
  }

  targetExists(target: string): boolean {
    if (target.startsWith('buf:')) return /^buf:\d+$/.test(target);
    if (target.startsWith('file:')) return path.isAbsolute(target.slice(5));
    return this.entry(target) !== undefined;
  }

  async answer(source: RouteEnd, turn: TurnBounds): Promise<string | undefined> {
    const e = this.entry(source.id);
    return e && turnAnswer(e.id, e.agent, this.recordFile(e), turn, () => this.screenLines(e), this.taken);
  }

  async screen(source: RouteEnd): Promise<string> {
    const e = this.entry(source.id);
    return e ? screenText(await this.screenLines(e)) : '';
  }

  otherRoutes(): Route[] {
    return readRoutes(jobsDir(this.env));
  }

  diffProblem(source: string): string | undefined {
    return diffProblemOf(this.end(source));
  }

  diff(source: RouteEnd): Promise<string> {
    return turnDiff(source.id, this.env);
  }

  async deliver(target: string, text: string, busyMs: number, chain: Chain): Promise<Pending> {
    const to = parseFleetId(target);
    switch (to?.kind) {
      case 'term':
        return this.hub.replies.reply(to.buf, text, false, { waitMenus: true, busyMs });
      case 'job':
        if (to.host === '') return sendToJob(this.io, to.short, text, { waitMenus: true, busyMs, chain });
        // A remote host's job: through the host's link, as its own host takes a route's text.
        return throughLink(
          async (fn) => fn(this.hub.remotes.link(to.host)),
          (link) => sendToRemoteJob(link, to.short, text, { waitMenus: true, busyMs, chain }),
        );
      case 'buf': {
        const why = await this.lua.append(to.buf, text.split('\n'));
        if (why) throw new Error(why);
        return '';
      }
      case 'file':
        appendText(to.path, `${text}\n`);
        return '';
    }
    throw new Error(`no target '${target}'`);
  }

  chainOf(entry: string): { chain: Chain | undefined } | undefined {
    return jobChain(jobsDir(this.env), entry);
  }

  review(route: Route, text: string): Promise<string | null> {
    const id = ++this.lastReview;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), REVIEW_MS);
      timer.unref();
      const done = (edited: string | null): void => {
        clearTimeout(timer);
        this.reviews.delete(id);
        resolve(edited);
      };
      this.reviews.set(id, done);
      this.lua.review(id, route, text);
    });
  }

  /** The user sent (a string) or dropped (null) a review. */
  reviewed(id: number, text: string | null): void {
    this.reviews.get(id)?.(text);
  }

  spill(route: Route, text: string): string {
    return spillFile(path.join(stateDir(this.env), 'routes'), route, text);
  }

  fired(e: RouteFired): void {
    this.lua.event('fired', e);
  }

  held(e: { route: string; reason: string }): void {
    this.lua.event('held', e);
  }

  say(message: string, warn = false): void {
    this.lua.say(message, warn);
  }

  changed(routes: Route[]): void {
    this.lua.routes(routes);
  }

  /** The record file that holds the entry's answers: its terminal's, or a job's (jobRecordFile). */
  private recordFile(e: FleetEntry): string | undefined {
    const buf = termBuf(e.id);
    if (buf !== undefined) return this.watchers.recordFileOf(buf);
    if (e.kind !== 'job' || e.host !== '') return undefined;
    const view = readJob(jobsDir(this.env), e.short);
    return view.ok ? jobRecordFile(view.job, this.env) : undefined;
  }

  private async screenLines(e: FleetEntry): Promise<readonly string[]> {
    const buf = termBuf(e.id);
    if (buf !== undefined) return this.hub.replies.screenOf(buf);
    if (e.kind !== 'job' || e.host !== '') return [];
    return jobScreen(this.io, e.short).catch(() => []);
  }
}
