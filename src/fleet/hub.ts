// The fleet of one Neovim's Node process: what it knows of each kind of entry, put together, and
// every change pushed through `push`. Terminals come from the tracker (and their watchers), jobs
// from their folder, sessions elsewhere from Claude Code's sessions folder, other Neovims from
// their summaries; this Neovim's terminals are published for the others.
import path from 'node:path';
import { optionsOf, questionOf } from '../detect/question.js';
import { hostAlive, readHostInfo } from '../jobs/hostinfo.js';
import { matchId } from '../jobs/ids.js';
import { runtimeDir } from '../jobs/paths.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { jobShorts, jobsDir } from '../jobs/store.js';
import { claudeConfigDir } from '../records/claude.js';
import type { TerminalWatchers } from '../records/watchers.js';
import type { Tracker } from '../state/tracker.js';
import { Editors } from './editors.js';
import { jobEntry, terminalEntry } from './entry.js';
import type { FleetEntry, FleetKind } from './entry.js';
import { Fleet } from './fleet.js';
import type { FleetChange } from './fleet.js';
import { JobsWatch } from './jobs-watch.js';
import { SessionsWatch } from './sessions-watch.js';

export interface HubLog {
  debug(m: string): void;
  warn(m: string): void;
}

export class FleetHub {
  private readonly fleet = new Fleet();
  private readonly dir = jobsDir();
  /** A terminal that shows a job (`mado attach`) is that job's entry, not one of its own. */
  private readonly attachedIn = new Map<string, number>();
  private listedJobs: ListedJob[] = [];
  /** What a terminal asks while it waits, from its last screen. */
  private readonly asks = new Map<number, FleetEntry['needs']>();
  private readonly jobs: JobsWatch;
  private readonly sessions: SessionsWatch;
  private editors?: Editors;

  constructor(
    private readonly tracker: Tracker,
    private readonly watchers: TerminalWatchers,
    private readonly push: (change: FleetChange) => void,
    private readonly log: HubLog,
  ) {
    this.jobs = new JobsWatch(this.dir, (listed) => {
      this.listedJobs = listed;
      this.placeJobs();
      this.sessions.poke();
    }, log);
    this.sessions = new SessionsWatch(
      path.join(claudeConfigDir(), 'sessions'),
      watchers.folders,
      () => new Set([...watchers.agentPids(), ...this.jobPids(), ...(this.editors?.othersAgentPids ?? [])]),
      (entries) => this.apply(this.fleet.replaceKind('session', entries)),
    );
  }

  start(): void {
    this.jobs.start();
    this.sessions.start();
    try {
      this.editors = new Editors(path.join(runtimeDir(), 'editors'), this.watchers.folders, (entries) => {
        this.apply(this.fleet.replaceKind('editor', entries));
        this.sessions.poke();
      }, this.log);
      this.editors.start();
    } catch (err) {
      this.log.warn(`other Neovims are not shown: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** This Neovim's server address, for the other Neovims. */
  hello(server: string): void {
    this.editors?.publish({ server });
  }

  /** A terminal's screen: what it asks while it waits (known before the terminal is placed). */
  screen(buf: number, lines: readonly string[]): void {
    const st = this.tracker.get(buf);
    const waiting = st?.state === 'waiting';
    this.asks.set(buf, waiting ? { question: questionOf(lines) ?? st.detail, options: optionsOf(lines) } : null);
  }

  /** A terminal's state, folder or job changed: its entry follows. */
  placeTerminal(buf: number): void {
    const st = this.tracker.get(buf);
    if (!st) return;
    const { cwd, job } = this.watchers.placeOf(buf);
    const was = this.jobShownIn(buf);
    if (was !== job) {
      if (was) this.attachedIn.delete(was);
      if (job) this.attachedIn.set(job, buf);
      this.placeJobs();
    }
    this.apply(job ? this.fleet.remove(`term:${buf}`) : this.fleet.set(terminalEntry(st, cwd, this.asks.get(buf) ?? null)));
  }

  forgetTerminal(buf: number): void {
    this.asks.delete(buf);
    const was = this.jobShownIn(buf);
    if (was) {
      this.attachedIn.delete(was);
      this.placeJobs();
    }
    this.apply(this.fleet.remove(`term:${buf}`));
  }

  /** This Neovim's terminals' agents changed: a session elsewhere may be one of them now. */
  agentsChanged(): void {
    this.sessions.poke();
  }

  all(): FleetEntry[] {
    return this.fleet.all();
  }

  count(kind: FleetKind): number {
    return this.fleet.all().filter((e) => e.kind === kind).length;
  }

  /** A job by its id or a unique prefix, read from the jobs folder, and whether its host lives. */
  job(query: string): { short: string; alive: boolean } | { error: string } {
    const m = matchId(jobShorts(this.dir), query);
    return m.ok ? { short: m.short, alive: hostAlive(path.join(this.dir, m.short)) } : { error: m.error };
  }

  stop(): void {
    this.editors?.stop();
    this.sessions.stop();
    void this.jobs.stop();
  }

  private jobShownIn(buf: number): string | undefined {
    for (const [short, b] of this.attachedIn) if (b === buf) return short;
    return undefined;
  }

  private placeJobs(): void {
    this.apply(this.fleet.replaceKind('job', this.listedJobs.map((j) => jobEntry(j, this.attachedIn.get(j.short)))));
  }

  /** The pids of this Neovim's jobs: each job's agent and what runs under it. */
  private jobPids(): Set<number> {
    const out = new Set<number>();
    for (const j of this.listedJobs) {
      const info = j.alive ? readHostInfo(path.join(this.dir, j.short)) : undefined;
      if (info) for (const p of this.watchers.tree.walk(info.ptyPid)) out.add(p.pid);
    }
    return out;
  }

  private apply(change: FleetChange | null): void {
    if (!change) return;
    this.push(change);
    // Other Neovims see this one's terminals.
    const isTerminal = (id: string): boolean => id.startsWith('term:');
    if (change.put.some((e) => isTerminal(e.id)) || change.removed.some(isTerminal)) {
      this.editors?.publish({ terminals: this.fleet.all().filter((e) => e.kind === 'terminal'), agentPids: [...this.watchers.agentPids()] });
    }
  }
}
