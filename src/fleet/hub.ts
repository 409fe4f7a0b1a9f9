// The fleet of one Neovim's Node process: what it knows of each kind of entry, put together, and
// every change pushed through `push`. Terminals come from the tracker (and their watchers), jobs
// from their folder, sessions elsewhere from Claude Code's sessions folder, other Neovims from
// their summaries; this Neovim's terminals are published for the others.
import path from 'node:path';
import { optionsOf, questionOf } from '../detect/question.js';
import { hostAlive, readHostInfo } from '../jobs/hostinfo.js';
import { runtimeDir } from '../jobs/paths.js';
import { findJob, jobsDir, updateJob } from '../jobs/store.js';
import { matchJob } from '../jobs/ids.js';
import { SHORT_ID } from '../jobs/types.js';
import { AGENT_MODULES, contextOfScreen } from '../agents/index.js';
import type { Usage } from '../usage/types.js';
import type { TerminalWatchers } from '../state/terminal-watchers.js';
import type { Tracker } from '../state/tracker.js';
import { Editors } from './editors.js';
import { terminalEntry } from './entry.js';
import { checkBudget, Spending } from './spending.js';
import type { FleetSpending } from './spending.js';
import { loadPricesFile, useSetupPrices } from '../agents/prices.js';
import { checkPrices } from '../usage/prices.js';
import type { UsageTally } from '../usage/tally.js';
import type { FleetEntry, FleetKind } from './entry.js';
import { Fleet } from './fleet.js';
import type { FleetChange } from './fleet.js';
import { JobsWatch } from './jobs-watch.js';
import { JobFeeds } from './job-feeds.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { SessionsWatch } from './sessions-watch.js';
import { cleanName, keptMarks, MAX_KEPT_MARKS } from './marks.js';
import type { EntryMarks } from './marks.js';
import { JobListing } from './job-listing.js';
import { JobViews } from './job-views.js';
import { freeName } from './terminal-names.js';
import { TerminalReplies } from './terminal-replies.js';
import { Remotes } from '../jobs/remote/remotes.js';
import type { RemoteStatus } from '../jobs/remote/remotes.js';
import { allHosts, hostsFile } from '../jobs/remote/hosts.js';
import type { HostConfig } from '../jobs/remote/hosts.js';
import { watchPath } from '../shared/watch-path.js';
import type { KeptReply, TerminalWrite } from './terminal-replies.js';
import { jobId, localJobShort, termBuf, termId } from '../shared/fleet-id.js';

export interface HubLog {
  debug(m: string): void;
  warn(m: string): void;
}

/** The most entries one move changes the order of. */
const MAX_REORDER = 1000;

/** What is placed again once marks change: a terminal (its buffer), the jobs, the sessions or other Neovims. */
type Placed = number | 'job' | 'session' | 'editor';

/** A burst of writes to hosts.json (an editor's save) is read once, this long after its first. */
const HOSTS_SETTLE_MS = 100;

/** What the hub tells those that listen (the routes, the Lua side), each event with what it carries. */
export interface HubEvents {
  /** A job's agent changed state (routes fire on it). */
  jobState(id: string, from: FleetEntry['state'], to: FleetEntry['state'], turnEnded: boolean): void;
  /** An entry left the fleet. */
  gone(id: string): void;
  /** A reply (a route's) waited for a terminal past its time and was dropped. */
  replyExpired(buf: number): void;
  /** A reply started to wait for a terminal, or no longer does (Lua keeps them meanwhile). */
  replyKept(buf: number, replies: KeptReply[]): void;
  /** What is wrong with the hosts, when hosts.json changed while this process runs. */
  hostProblems(problems: string[]): void;
  /** What the fleet spent today changed (the picker's header), or crossed the day's budget. */
  spending(s: FleetSpending): void;
}

export class FleetHub {
  private readonly fleet = new Fleet();
  private readonly dir = jobsDir();
  /** Terminals that show a job (`mado attach`): views of its entry, not agents of their own. */
  private readonly views = new JobViews();
  /** Other Neovims past the bound of those shown (their terminals are not listed). */
  editorsNotShown = 0;
  /** Peer Neovims (by server address) that did not answer when last asked. */
  private readonly silentPeers = new Set<string>();
  /** What a terminal asks while it waits, from its last screen. */
  private readonly asks = new Map<number, FleetEntry['needs']>();
  /** The files each terminal's last finished turn changed, from the review's records. */
  private readonly changedFiles = new Map<number, number | null>();
  /** What each terminal's agent spent, counted from its records. */
  private readonly tallies = new Map<number, UsageTally>();
  /** How full each terminal's agent's context is, as its screen's footer says (where its records do not). */
  private readonly screenContext = new Map<number, number>();
  /** The user's prices and budget, applied to every entry's usage. */
  readonly spending = new Spending();
  /** The fleet's spending as last told. */
  private spentKey = '';
  /** Replies and menu answers to this Neovim's terminals. */
  readonly replies: TerminalReplies;
  /** The user's names, pins and order of entries other than jobs (jobs keep theirs in their file). */
  private readonly marks = new Map<string, EntryMarks>();
  /** The sessions and other Neovims' terminals as last read (marks are put on them as they are placed). */
  private readonly read: { session: FleetEntry[]; editor: FleetEntry[] } = { session: [], editor: [] };
  /** The jobs as last listed or written, and their rows. */
  private readonly jobList = new JobListing(
    {
      stateChanged: (id, from, to, turnEnded) => this.tell('jobState', id, from, to, turnEnded),
      gone: (id) => this.tell('gone', id),
    },
    '',
    (tally) => this.spending.usageOf(tally),
  );
  /** The remote hosts' jobs, followed through their links, and their rows by host. */
  readonly remotes: Remotes;
  private readonly remoteLists = new Map<string, JobListing>();
  /** Those that listen to the hub's events (listen()). */
  private readonly listeners: Partial<HubEvents>[] = [];
  /** The hosts of setup() (what Lua gave last), beside hosts.json's. */
  private hostsFromSetup: unknown;
  /** hosts.json's hosts as last read (kept while the file is half written). */
  private hostsOfFile?: ReadonlyMap<string, HostConfig>;
  private stopHostsWatch?: () => void;
  private readonly jobs: JobsWatch;
  /** The live jobs' hosts, which tell each change of their jobs. */
  private readonly feeds: JobFeeds;
  private readonly sessions: SessionsWatch;
  private editors?: Editors;

  constructor(
    private readonly tracker: Tracker,
    private readonly watchers: TerminalWatchers,
    private readonly push: (change: FleetChange) => void,
    private readonly log: HubLog,
    write: TerminalWrite = () => Promise.resolve('no Neovim to write to'),
  ) {
    this.replies = new TerminalReplies(
      tracker,
      write,
      (buf) => this.placeTerminal(buf),
      (buf) => this.tell('replyExpired', buf),
      (buf, r) => this.tell('replyKept', buf, r),
    );
    this.remotes = new Remotes(process.env, () => this.placeJobs(), log);
    // One job told by its host or read from its file: placed unless it is as shown.
    const jobHeard = (job: ListedJob): void => {
      if (this.jobList.one(job)) this.placeJobs();
    };
    this.feeds = new JobFeeds(this.dir, jobHeard, log);
    this.jobs = new JobsWatch(
      this.dir,
      {
        jobs: (listed) => {
          this.feeds.follow(listed);
          this.jobList.list(listed);
          this.placeJobs();
          this.sessions.poke();
        },
        job: jobHeard,
      },
      log,
    );
    this.sessions = new SessionsWatch(
      AGENT_MODULES,
      process.env,
      watchers.folders,
      () => new Set([...watchers.agentPids(), ...this.jobPids(), ...(this.editors?.othersAgentPids ?? [])]),
      (entries) => this.placeRead('session', entries),
      (tally) => this.spending.usageOf(tally),
    );
  }
  /** Hears the hub's events from now on (each listener the ones it names). */
  listen(events: Partial<HubEvents>): void {
    this.listeners.push(events);
  }

  private tell<K extends keyof HubEvents>(event: K, ...args: Parameters<HubEvents[K]>): void {
    for (const l of this.listeners) {
      const heard = l[event];
      if (heard) Reflect.apply(heard, l, args);
    }
  }

  start(): void {
    this.jobs.start();
    this.sessions.start();
    try {
      this.editors = new Editors(
        path.join(runtimeDir(), 'editors'),
        this.watchers.folders,
        (entries, notShown) => {
          const counted = notShown !== this.editorsNotShown;
          this.editorsNotShown = notShown;
          this.placeRead('editor', entries);
          // A count that changed alone is news too.
          if (counted) this.push({ put: [], removed: [] });
          this.sessions.poke();
        },
        this.log,
      );
      this.editors.start();
    } catch (err) {
      this.log.warn(`other Neovims are not shown: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * The remote hosts followed from now on: hosts.json's and setup()'s (`fromSetup`); answers what is
   * wrong with them. hosts.json is followed from then on: a change to it is read again (100 ms after
   * the first write of a burst), its problems told as `hostProblems`.
   */
  /**
   * setup()'s prices and budget (|madohub-usage|), the prices file read again: every entry's usage
   * priced and held against them anew. Answers what is wrong with them.
   */
  async configureSpending(prices: unknown, budget: unknown): Promise<{ problems: string[] }> {
    // An empty Lua table comes as a list.
    const table = (v: unknown): unknown => (v === undefined || (Array.isArray(v) && v.length === 0) ? {} : v);
    const fromSetup = checkPrices(table(prices));
    useSetupPrices(fromSetup.prices);
    const fromFile = await loadPricesFile(process.env);
    const checked = checkBudget(table(budget));
    this.spending.budget = checked.budget;
    for (const e of this.all()) if (e.kind === 'terminal') this.placeTerminal(e.buf);
    this.placeJobs();
    this.spending.problems = [...fromSetup.problems.map((p) => `prices: ${p}`), ...fromFile, ...checked.problems];
    return { problems: this.spending.problems };
  }

  configureHosts(fromSetup: unknown): { problems: string[] } {
    this.hostsFromSetup = fromSetup;
    this.stopHostsWatch ??= watchPath(hostsFile(process.env), HOSTS_SETTLE_MS, () => {
      const { problems } = this.rereadHosts();
      if (problems.length > 0) this.tell('hostProblems', problems);
    });
    return this.rereadHosts();
  }

  private rereadHosts(): { problems: string[] } {
    const { hosts, file, problems } = allHosts(process.env, this.hostsFromSetup, this.hostsOfFile);
    this.hostsOfFile = file;
    this.remotes.configure(hosts);
    this.placeJobs();
    return { problems };
  }

  /** Tries the offline hosts again now (all, or the one named); the names tried. */
  retryHosts(name?: string): string[] {
    return this.remotes.retry(name);
  }

  /** Each remote host, how its link is, and how many jobs it lists. */
  hostStatus(): { host: string; status: RemoteStatus; jobs: number }[] {
    return this.remotes.names().flatMap((host) => {
      const status = this.remotes.status(host);
      return status ? [{ host, status, jobs: this.remotes.jobs(host).length }] : [];
    });
  }

  /** This Neovim's server address, for the other Neovims. */
  hello(server: string): void {
    this.editors?.publish({ server });
  }

  /** This Neovim gained the focus (epoch ms): it tells what all Neovims share (see Editors.tellsShared). */
  focused(at: number): void {
    this.editors?.publish({ focusedAt: at });
  }

  /** Whether this Neovim tells the news of what all share (background jobs) outside the editor. */
  tellsShared(): boolean {
    return this.editors?.tellsShared() ?? true;
  }

  /** A terminal's screen: what it asks while it waits (known before the terminal is placed). */
  screen(buf: number, lines: readonly string[]): void {
    const st = this.tracker.get(buf);
    const waiting = st?.state === 'waiting' ? st : undefined;
    const question = waiting && questionOf(lines);
    const options = waiting ? optionsOf(lines) : [];
    // What the screen asks: nothing while it shows no question nor menu yet (the agent's own word
    // that it waits can come first; the row then says its detail, and a notice waits for the question).
    this.asks.set(
      buf,
      waiting && (question !== undefined || options.length > 0)
        ? { question: question ?? waiting.detail, options }
        : null,
    );
    this.replies.screen(buf, lines);
    const context = st ? contextOfScreen(st.agent, lines) : undefined;
    if (context !== this.screenContext.get(buf)) {
      if (context === undefined) this.screenContext.delete(buf);
      else this.screenContext.set(buf, context);
      if (this.tallies.has(buf)) this.placeTerminal(buf);
    }
  }

  /** The files a terminal's last finished turn changed (|madohub-review|): its entry says how many. */
  turnChanged(buf: number, count: number | null): void {
    this.changedFiles.set(buf, count);
    this.placeTerminal(buf);
  }

  /** What a terminal's agent spent, as its entry carries it: its context from its screen where its records say none. */
  private terminalSpent(buf: number): Usage | null {
    const usage = this.spending.usageOf(this.tallies.get(buf));
    const screen = this.screenContext.get(buf);
    return usage && usage.contextUsedPct === null && screen !== undefined
      ? { ...usage, contextUsedPct: screen }
      : usage;
  }

  /** What a terminal's agent spent so far (null: an agent that records none, or none now): its entry says. */
  terminalUsage(buf: number, tally: UsageTally | null): void {
    if (tally) this.tallies.set(buf, tally);
    else this.tallies.delete(buf);
    this.placeTerminal(buf);
  }

  /** A terminal's state, folder or job changed: its entry follows (and a reply that waits for it). */
  placeTerminal(buf: number): void {
    const st = this.tracker.get(buf);
    if (!st) return;
    const { cwd, job } = this.watchers.placeOf(buf);
    if (this.views.show(buf, job)) this.placeJobs();
    const entry = {
      ...terminalEntry(st, cwd, this.asks.get(buf) ?? null, this.tracker.intentOf(buf) ?? ''),
      changed: this.changedFiles.get(buf) ?? null,
      usage: this.terminalSpent(buf),
    };
    // A view's state is its winbar's, and no agent's (its exit too, once detached): the job's row stays the one truth.
    const view = this.views.viewOf(buf, st.state === 'exited');
    if (view) return this.apply(this.fleet.set({ ...entry, shows: view }));
    this.apply(
      this.fleet.set(this.marked({ ...entry, name: this.freeName(entry), pending: this.replies.pendingOf(buf) })),
    );
    // A reply that waited and failed now has nobody waiting for its answer: the log says why.
    this.replies
      .flush(buf)
      .catch((err: unknown) =>
        this.log.warn(`reply to buffer ${buf}: ${err instanceof Error ? err.message : String(err)}`),
      );
  }

  /** The user's name, pin or order for an entry: a job's in its file, the others' here. */
  async mark(id: string, change: EntryMarks): Promise<void> {
    const placed = await this.markOne(id, change);
    this.placeMarked(placed);
  }

  /**
   * A row moved in its group: the new orders of every entry that changed, shown together once all
   * are kept (a job's in its file), so that no half-moved group is ever drawn.
   */
  async reorder(orders: readonly { id: string; order: number }[]): Promise<void> {
    const kept = await Promise.allSettled(
      orders.slice(0, MAX_REORDER).map((o) => this.markOne(o.id, { order: o.order })),
    );
    // What was kept shows even when an entry of the move is gone (it is said as the error).
    this.placeMarked(kept.flatMap((k) => (k.status === 'fulfilled' ? k.value : [])));
    const failed = kept.find((k): k is PromiseRejectedResult => k.status === 'rejected');
    if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }

  /** Keeps one entry's marks; answers what is to be placed again for them to show. */
  private async markOne(id: string, change: EntryMarks): Promise<Placed[]> {
    const bad = change.name !== undefined && change.name.trim() === '' ? 'a name needs some text' : undefined;
    if (bad) throw new Error(bad);
    const name = change.name === undefined ? undefined : cleanName(change.name);
    const clean: EntryMarks = { ...change, ...(name !== undefined ? { name } : {}) };
    const short = localJobShort(id);
    if (short !== undefined) {
      const written = await updateJob(this.dir, short, {
        ...(clean.name !== undefined ? { name: clean.name, nameSource: 'user' as const } : {}),
        ...(clean.pinned !== undefined ? { pinned: clean.pinned } : {}),
        ...(clean.order !== undefined ? { sortOrder: clean.order } : {}),
      });
      this.jobList.wrote(written);
      return ['job'];
    }
    const entry = this.fleet.get(id);
    if (!entry) throw new Error(`no agent '${id.slice(0, 80)}'`);
    this.marks.set(id, { ...this.marks.get(id), ...clean });
    // A terminal is placed by its buffer; the other kinds by their list.
    return entry.kind === 'terminal' ? [entry.buf] : [entry.kind];
  }

  /** Places again what marks changed, each once. */
  private placeMarked(placed: readonly Placed[]): void {
    for (const p of new Set(placed)) {
      if (typeof p === 'number') this.placeTerminal(p);
      else if (p === 'job') this.placeJobs();
      else this.placeRead(p, this.read[p]);
    }
  }

  /**
   * The user's names, pins and order of this Neovim's terminals, which Lua kept while a Node process
   * before this one ran: each applies once its terminal is here again.
   */
  restoreMarks(list: unknown): void {
    if (!Array.isArray(list)) return;
    for (const v of list.slice(0, MAX_KEPT_MARKS)) {
      const kept = keptMarks(v);
      if (!kept) continue;
      this.marks.set(kept.id, { ...this.marks.get(kept.id), ...kept.marks });
      const buf = termBuf(kept.id);
      if (buf !== undefined && this.fleet.get(kept.id)) this.placeTerminal(buf);
    }
  }

  forgetTerminal(buf: number): void {
    const id = termId(buf);
    this.tell('gone', id);
    this.asks.delete(buf);
    this.changedFiles.delete(buf);
    this.tallies.delete(buf);
    this.screenContext.delete(buf);
    this.replies.forget(buf);
    this.marks.delete(id);
    if (this.views.forget(buf)) this.placeJobs();
    this.apply(this.fleet.remove(id));
  }

  /** This Neovim's terminals' agents changed: a session elsewhere may be one of them now. */
  agentsChanged(): void {
    this.sessions.poke();
  }

  /** Every agent of the fleet (a terminal that shows a job is none of its own). */
  all(): FleetEntry[] {
    return this.fleet.all().filter((e) => e.shows === '');
  }

  count(kind: FleetKind): number {
    return this.all().filter((e) => e.kind === kind).length;
  }

  /**
   * A job by its id, a unique prefix or its name, read from the jobs folder, and whether its host
   * lives; `NAME:ID` is a job of remote host NAME, from its last listing.
   */
  job(query: string): { short: string; alive: boolean; host?: string } | { error: string } {
    const remote = /^([^:]+):(.+)$/.exec(query);
    if (remote && this.remotes.names().includes(remote[1]!)) {
      const host = remote[1]!;
      const status = this.remotes.status(host);
      if (!status?.online) return { error: `${host} is offline${status?.reason ? `: ${status.reason}` : ''}` };
      const jobs = this.remotes.jobs(host);
      const m = matchJob(
        jobs.map((j) => j.short),
        remote[2]!,
        () => jobs,
      );
      // One just started there may not be listed yet: its id is taken as it is (attaching says if it runs).
      if (!m.ok)
        return SHORT_ID.test(remote[2]!) ? { short: remote[2]!, alive: true, host } : { error: `${host}: ${m.error}` };
      return { short: m.short, alive: jobs.find((j) => j.short === m.short)?.alive === true, host };
    }
    const m = findJob(this.dir, query);
    return m.ok ? { short: m.short, alive: hostAlive(path.join(this.dir, m.short)) } : { error: m.error };
  }

  stop(): void {
    this.stopHostsWatch?.();
    this.remotes.stop();
    this.editors?.stop();
    this.sessions.stop();
    void this.jobs.stop();
    this.feeds.stop();
  }

  private placeJobs(): void {
    const rows = this.jobList.rows((short) => this.views.bufOf(jobId(short)));
    const hosts = new Set(this.remotes.names());
    for (const [host, listing] of this.remoteLists) {
      if (hosts.has(host)) continue;
      // A host no longer followed: its rows go (each told gone).
      listing.list([]);
      listing.rows(() => undefined);
      this.remoteLists.delete(host);
    }
    for (const host of hosts) {
      let listing = this.remoteLists.get(host);
      if (!listing) {
        listing = new JobListing(
          {
            stateChanged: (id, from, to, turnEnded) => this.tell('jobState', id, from, to, turnEnded),
            gone: (id) => this.tell('gone', id),
          },
          host,
          (tally) => this.spending.usageOf(tally),
        );
        this.remoteLists.set(host, listing);
      }
      listing.list(this.remotes.jobs(host));
      const status = this.remotes.status(host);
      // A host that went offline keeps its rows as last known, each saying so and why (a question
      // there cannot be answered meanwhile: it is not shown).
      const offline = status && !status.online && status.reason ? `${host} offline: ${status.reason}` : '';
      // The user's marks of a remote job (its name, pin and place) are this Neovim's: its file is there.
      for (const e of listing.rows((short) => this.views.bufOf(jobId(short, host))))
        rows.push(this.marked(offline ? { ...e, detail: offline.slice(0, 200), needs: null } : e));
    }
    this.apply(this.fleet.replaceKind('job', rows));
  }

  /** A peer Neovim answered (or did not, within its bound) when asked to show a terminal: its rows say so. */
  peerAnswered(server: string, answered: boolean): void {
    if (answered === !this.silentPeers.has(server)) return;
    if (answered) this.silentPeers.delete(server);
    else this.silentPeers.add(server);
    this.placeRead('editor', this.read.editor);
  }

  private placeRead(kind: 'session' | 'editor', entries: FleetEntry[]): void {
    this.read[kind] = entries;
    this.apply(
      this.fleet.replaceKind(
        kind,
        entries.map((e) => this.marked(e)),
      ),
    );
  }

  /** A terminal's own name, told apart from the other terminals' (see freeName). */
  private freeName(entry: FleetEntry): string {
    const taken = new Set(
      this.all()
        .filter((e) => e.id !== entry.id && e.kind === 'terminal')
        .map((e) => e.name),
    );
    return freeName(entry.name, this.fleet.get(entry.id)?.name, taken);
  }

  /** The entry with the user's marks on it. */
  private marked(e: FleetEntry): FleetEntry {
    if (e.kind === 'editor' && this.silentPeers.has(e.server)) e = { ...e, detail: `${e.where} does not answer` };
    const m = this.marks.get(e.id);
    return m
      ? {
          ...e,
          name: m.name ?? e.name,
          named: m.name !== undefined || e.named,
          pinned: m.pinned ?? e.pinned,
          order: m.order ?? e.order,
        }
      : e;
  }

  /** The pids of this Neovim's jobs: each job's agent and what runs under it. */
  private jobPids(): Set<number> {
    const out = new Set<number>();
    for (const j of this.jobList.jobs) {
      const info = j.alive ? readHostInfo(path.join(this.dir, j.short)) : undefined;
      if (info) for (const p of this.watchers.tree.walk(info.ptyPid)) out.add(p.pid);
    }
    return out;
  }

  /** What the fleet spent today, told when it changed (the entries shown in a list: no terminal that shows a job). */
  private spendingNow(): void {
    const now = this.spending.fleet(this.all().map((e) => e.usage));
    const key = JSON.stringify(now);
    if (key === this.spentKey) return;
    this.spentKey = key;
    this.tell('spending', now);
  }

  private apply(change: FleetChange | null): void {
    if (!change) return;
    this.push(change);
    if (change.put.some((e) => e.usage !== null) || change.removed.length > 0) this.spendingNow();
    // Other Neovims see this one's terminals.
    const isTerminal = (id: string): boolean => termBuf(id) !== undefined;
    if (change.put.some((e) => isTerminal(e.id)) || change.removed.some(isTerminal)) {
      this.editors?.publish({
        terminals: this.all().filter((e) => e.kind === 'terminal'),
        agentPids: [...this.watchers.agentPids()],
      });
    }
  }
}
