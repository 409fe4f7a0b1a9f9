// The agents' sessions running on this machine outside this Neovim (and outside its jobs), from
// the agents that tell them in files of their own (AgentModule.sessions: Claude Code's
// `<config>/sessions/<pid>.json`) whose process lives. The folders are watched (no polling) and read
// again 100 ms after the last change, and when this Neovim's terminals change.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { AgentModule, SessionElsewhere } from '../agents/types.js';
import { readJsonBounded } from '../shared/files.js';
import { processStamp } from '../proc/stamp.js';
import type { FolderWatcher } from '../records/folders.js';
import { followJsonl } from '../records/follow.js';
import { UsageFeed } from '../records/usage-feed.js';
import type { UsageTally } from '../usage/tally.js';
import type { Usage } from '../usage/types.js';
import { debounced } from '../shared/debounce.js';
import { MAX_DETAIL } from '../shared/text.js';
import { isConfirmed } from '../shared/types.js';
import { UNPLACED } from './entry.js';
import type { FleetEntry, SessionEntry } from './entry.js';
import { ttyOf } from '../proc/stamp.js';
import { sessionId } from '../shared/fleet-id.js';

const QUIET_MS = 100;
/** A session file is a few hundred bytes; more files than this are not read (the newest count). */
const MAX_SESSION_BYTES = 64 * 1024;
const MAX_SESSIONS = 500;
/** The most sessions elsewhere whose records are followed for what they spend (the newest files first). */
export const MAX_COUNTED_SESSIONS = 50;

/** What one session elsewhere spent, counted from its record file as it is written. */
interface Counted {
  file: string;
  stop(): void;
  tally: UsageTally | null;
}

/** The longest folder an entry of a session file keeps (the file is anyone's to write). */
const MAX_CWD = 1024;

/** A session's entry. */
export function sessionEntry(agent: AgentModule, session: SessionElsewhere, at: number): SessionEntry {
  const s = { ...session, cwd: session.cwd.slice(0, MAX_CWD), sessionId: session.sessionId.slice(0, 128) };
  const { state } = s.signal;
  const detail = s.signal.detail.slice(0, MAX_DETAIL);
  return {
    id: sessionId(agent.id, s.sessionId),
    kind: 'session',
    intent: '',
    name: s.name ?? `${agent.id} ${s.cwd ? (s.cwd.split('/').pop() ?? s.cwd) : s.sessionId.slice(0, 8)}`,
    named: s.name !== undefined,
    agent: agent.id,
    state,
    source: s.signal.source,
    confirmed: isConfirmed(s.signal.source),
    since: s.signal.at ?? at,
    cwd: s.cwd,
    detail,
    needs: state === 'waiting' ? { question: detail, options: [] } : null,
    where: s.attachId ? `background session ${s.attachId}, pid ${s.pid}` : `pid ${s.pid}`,
    pinned: false,
    order: 0,
    pending: '',
    server: '',
    attach: s.attachId && agent.attachCommand ? agent.attachCommand(s.attachId) : [],
    ...UNPLACED,
    pid: s.pid,
    tty: ttyOf(s.pid),
  };
}

export class SessionsWatch {
  private stopWatches: (() => void)[] = [];
  private readonly later = debounced(() => this.read(), QUIET_MS);
  /** The sessions whose spending is counted, by entry id. */
  private readonly counted = new Map<string, Counted>();

  /** `ours` gives the pids that are this Neovim's terminals' agents or its jobs' processes. */
  constructor(
    private readonly agents: readonly AgentModule[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly folders: FolderWatcher,
    private readonly ours: () => ReadonlySet<number>,
    private readonly onSessions: (entries: FleetEntry[]) => void,
    /** A tally as an entry carries it (priced, held against the budget). */
    private readonly usageOf: (tally: UsageTally | null) => Usage | null = () => null,
  ) {}

  start(): void {
    for (const a of this.agents)
      if (a.sessions) this.stopWatches.push(this.folders.watch(a.sessions.folder(this.env), () => this.poke()));
    this.poke();
  }

  /** Reads the sessions again soon. */
  poke(): void {
    this.later.soon();
  }

  private read(): void {
    const ours = this.ours();
    const entries: FleetEntry[] = [];
    for (const agent of this.agents) {
      const told = agent.sessions;
      if (!told) continue;
      const dir = told.folder(this.env);
      let names: string[];
      try {
        names = readdirSync(dir).filter((n) => told.file.test(n));
      } catch {
        names = [];
      }
      for (const name of names.slice(-MAX_SESSIONS)) {
        const session = told.read(readJsonBounded(path.join(dir, name), MAX_SESSION_BYTES));
        // The file is named after its process: one that names another is not believed.
        if (!session || `${session.pid}.json` !== name || ours.has(session.pid)) continue;
        if (processStamp(session.pid) === undefined) continue; // Its process is gone: a stale file.
        const entry = sessionEntry(agent, session, Date.now());
        entries.push({ ...entry, usage: this.usageOf(this.count(agent, entry, session)) });
      }
    }
    // A session gone (or another in its place) is no longer counted.
    const live = new Set(entries.map((e) => e.id));
    for (const [id, c] of this.counted)
      if (!live.has(id)) {
        c.stop();
        this.counted.delete(id);
      }
    this.onSessions(entries);
  }

  /**
   * What a session spent so far, from its record file (its agent's, as a job's is found), followed as it
   * is written; null while not known, or when past MAX_COUNTED_SESSIONS.
   */
  private count(agent: AgentModule, entry: SessionEntry, session: SessionElsewhere): UsageTally | null {
    const spec = agent.usage;
    const file =
      spec && agent.jobRecordFile?.({ cwd: entry.cwd, sessionId: session.sessionId, resumeSessionId: null }, this.env);
    if (!spec || !file) return null;
    const known = this.counted.get(entry.id);
    if (known?.file === file) return known.tally;
    known?.stop();
    if (!known && this.counted.size >= MAX_COUNTED_SESSIONS) return null;
    const counted: Counted = { file, tally: null, stop: () => undefined };
    const feed = new UsageFeed(
      spec,
      this.folders,
      (tally) => {
        counted.tally = tally;
        this.poke();
      },
      () => undefined,
    );
    const follow = followJsonl(
      file,
      this.folders,
      () => null,
      () => undefined,
      () => undefined,
      feed,
    );
    counted.stop = () => {
      follow.stop();
      feed.stop();
    };
    this.counted.set(entry.id, counted);
    return null;
  }

  stop(): void {
    this.later.cancel();
    for (const stop of this.stopWatches.splice(0)) stop();
    for (const c of this.counted.values()) c.stop();
    this.counted.clear();
  }
}
