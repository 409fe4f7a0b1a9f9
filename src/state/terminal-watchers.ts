import { attachedJob } from '../detect/process.js';
import { SESSION_REF } from '../shared/types.js';
import type { AgentId, RecordSignal } from '../shared/types.js';
import { processSource } from '../proc/shared.js';
import type { ProcessSource } from '../proc/source.js';
import { ProcessTree } from '../proc/tree.js';
import { agentModule, agentOfTree } from '../agents/index.js';
import type { RecordFollower } from '../agents/types.js';
import type { RecordLog } from '../records/follow.js';
import { FolderWatcher } from '../records/folders.js';
import { UsageFeed } from '../records/usage-feed.js';
import type { UsageTally } from '../usage/tally.js';

/** A screen change after this much quiet may be a new program: the tree is scanned again. */
export const QUIET_MS = 750;
/** At most one scan of a terminal per this many ms. */
export const MIN_SCAN_MS = 500;

export interface WatcherEvents {
  process(buf: number, agent: AgentId | null): void;
  record(buf: number, signal: RecordSignal): void;
  /** What the terminal's agent spent so far, counted from its records (a new agent's starts from nothing). */
  usage?(buf: number, tally: UsageTally | null): void;
  /** The folder the terminal's agent works in, or the job it shows, changed. */
  place?(buf: number): void;
}

interface Watched {
  pid?: number;
  lastScreen: number;
  lastScan: number;
  /** The scan armed for when the current burst of screen changes is over. */
  scanTimer?: NodeJS.Timeout;
  agent?: AgentId | null;
  agentPid?: number;
  records?: RecordFollower;
  /** The folder its agent (else its own process) works in, from the last scan. */
  cwd?: string;
  /** The background job it shows (`mado attach <id>`), as its fleet id, from the last scan. */
  job?: string;
  /** A scan waits for the portable process list to be read again. */
  rescan?: boolean;
}

/**
 * What watches every terminal for confirmed sources of its state: which agent its process tree runs, and
 * that agent's own records. Scans happen when a terminal opens, when its screen changes after a quiet spell
 * (or shows another agent; at most every MIN_SCAN_MS), and once when a burst of changes is over. Nothing
 * runs while nothing happens: the only timer is the settling one, armed by a screen change.
 */
export class TerminalWatchers {
  readonly tree: ProcessSource;
  readonly folders = new FolderWatcher();
  private readonly claims = new Set<string>();
  private readonly terminals = new Map<number, Watched>();
  /** The sessions of terminals whose program exited, and where they ran, by buffer, until the buffer is wiped. */
  private readonly ended = new Map<number, { session: { agent: AgentId | null; sessionId?: string }; cwd: string }>();
  /** Scans made, for the benchmark. */
  scans = 0;

  constructor(
    private readonly events: WatcherEvents,
    private readonly log: RecordLog,
    private readonly env: NodeJS.ProcessEnv = process.env,
    procRoot?: string,
  ) {
    // A /proc of the tests' making, else this system's source (portable where /proc is missing).
    this.tree = procRoot ? new ProcessTree(procRoot) : processSource(env);
  }

  /** A screen of `buf` arrived. `agentChanged`: its screen now shows another agent. */
  screen(buf: number, pid: number | undefined, now: number, agentChanged: boolean): void {
    let t = this.terminals.get(buf);
    if (!t) {
      t = { pid, lastScreen: now, lastScan: 0 };
      this.terminals.set(buf, t);
      if (pid) this.scan(buf, now);
      return;
    }
    if (pid && t.pid !== pid) t.pid = pid;
    // What the screen shows may be in the records too: a stat, and bytes only when some were added.
    // (an event may come before the write it tells has ended; this makes up for it.)
    t.records?.poke();
    const quiet = now - t.lastScreen >= QUIET_MS;
    t.lastScreen = now;
    if (!t.pid) return;
    if ((quiet || agentChanged) && now - t.lastScan >= MIN_SCAN_MS) this.scan(buf, now);
    // And once more when this burst of changes is over, if it changed anything since that scan.
    if (t.scanTimer) clearTimeout(t.scanTimer);
    const watched = t;
    t.scanTimer = setTimeout(() => {
      watched.scanTimer = undefined;
      if (this.terminals.get(buf) === watched && watched.lastScan < watched.lastScreen) this.scan(buf, Date.now());
    }, QUIET_MS);
  }

  /** Walks the terminal's process tree; starts or stops record watching as the agent comes and goes. */
  scan(buf: number, now: number): void {
    const t = this.terminals.get(buf);
    if (!t?.pid) return;
    t.lastScan = now;
    this.scans++;
    const procs = this.tree.walk(t.pid);
    // A portable list may be behind: once it is read again, this terminal is scanned again.
    if (this.tree.stale && !t.rescan) {
      t.rescan = true;
      void this.tree.refresh().then(() => {
        t.rescan = false;
        if (this.terminals.get(buf) === t) this.scan(buf, Date.now());
      });
    }
    // The terminal's program has ended: nothing left it (an agent that quits to its shell does); the
    // exit, on its way from Neovim, says what ran there has ended.
    if (procs.length === 0) return;
    const found = agentOfTree(procs);
    const cwd = this.tree.cwd(found?.pid ?? t.pid) ?? '';
    const job = attachedJob(procs);
    if (cwd !== t.cwd || job !== t.job) {
      t.cwd = cwd;
      t.job = job;
      this.events.place?.(buf);
    }
    const agent = found?.agent ?? null;
    if (agent !== t.agent) this.events.process(buf, agent);
    if (agent === t.agent && found?.pid === t.agentPid) return;
    t.records?.stop();
    t.records = undefined;
    if (t.agentPid !== undefined) this.events.usage?.(buf, null);
    t.agent = agent;
    t.agentPid = found?.pid;
    this.log.debug(`buffer ${buf}: ${found ? `${found.agent} pid ${found.pid}` : 'no agent'} (scan ${this.scans})`);
    if (!found) return;
    const emit = (signal: RecordSignal): void => {
      if (this.terminals.get(buf) !== t || t.agentPid !== found.pid) return;
      this.log.debug(`buffer ${buf}: ${signal.source} ${signal.state} (${signal.detail})`);
      this.events.record(buf, signal);
    };
    // The agent's own records, where it writes any (its module says how to follow them), and what
    // it spent, counted from them.
    const module = agentModule(found.agent);
    const usage =
      module.usage && this.events.usage
        ? new UsageFeed(
            module.usage,
            this.folders,
            (tally) => {
              if (this.terminals.get(buf) === t && t.agentPid === found.pid) this.events.usage?.(buf, tally);
            },
            (message) => this.log.debug(`buffer ${buf}: ${message}`),
          )
        : undefined;
    const follower = module.records?.({
      env: this.env,
      pid: found.pid,
      pids: procs.map((p) => p.pid),
      argv: procs.find((p) => p.pid === found.pid)?.argv,
      folders: this.folders,
      claims: this.claims,
      emit,
      log: this.log,
      usage,
    });
    if (follower) {
      follower.start();
      t.records = follower;
    }
  }

  /** The pids of the agents this Neovim's terminals run. */
  agentPids(): Set<number> {
    const out = new Set<number>();
    for (const t of this.terminals.values()) if (t.agentPid) out.add(t.agentPid);
    return out;
  }

  /** Where `buf`'s agent works and the job it shows, from the last scan of its process tree. */
  placeOf(buf: number): { cwd: string; job?: string } {
    const t = this.terminals.get(buf);
    // An ended terminal is still where it ran (its row keeps its name).
    return t ? { cwd: t.cwd ?? '', job: t.job } : { cwd: this.ended.get(buf)?.cwd ?? '' };
  }

  /**
   * The agent running in `buf` and the session id its records name, when known and one a job can
   * resume (SESSION_REF: a record file is another program's, and its id goes on to Lua and argv).
   */
  sessionOf(buf: number): { agent: AgentId | null; sessionId?: string } | undefined {
    const t = this.terminals.get(buf);
    if (!t) return this.ended.get(buf)?.session;
    const id = t.records?.sessionId;
    return { agent: t.agent ?? null, sessionId: id !== undefined && SESSION_REF.test(id) ? id : undefined };
  }

  /** The record file that holds the answers of the terminal's agent, once known. */
  recordFileOf(buf: number): string | undefined {
    return this.terminals.get(buf)?.records?.recordFile;
  }

  /**
   * The terminal's program exited: its watchers go, and the session it ran is kept (until the buffer
   * is wiped) so that it can still be resumed elsewhere.
   */
  end(buf: number): void {
    const session = this.sessionOf(buf);
    const { cwd } = this.placeOf(buf);
    this.forget(buf);
    if (session) this.ended.set(buf, { session, cwd });
  }

  /** The terminal closed or was wiped: its watchers go. */
  forget(buf: number): void {
    this.ended.delete(buf);
    const t = this.terminals.get(buf);
    if (!t) return;
    if (t.scanTimer) clearTimeout(t.scanTimer);
    t.records?.stop();
    this.terminals.delete(buf);
    this.tree.prune();
  }

  async close(): Promise<void> {
    for (const buf of [...this.terminals.keys()]) this.forget(buf);
    await this.folders.close();
  }
}
