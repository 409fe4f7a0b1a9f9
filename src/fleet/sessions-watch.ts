// Claude Code sessions running on this machine outside this Neovim (and outside its jobs): their
// session files (`<config>/sessions/<pid>.json`) whose process lives. The folder is watched (no
// polling) and read again 100 ms after the last change, and when this Neovim's terminals change.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { claudeSession } from '../detect/records.js';
import { isConfirmed } from '../detect/types.js';
import type { ClaudeSession } from '../detect/records.js';
import { readJsonBounded } from '../shared/files.js';
import { processStamp } from '../proc/stamp.js';
import type { FolderWatcher } from '../records/folders.js';
import { debounced } from '../shared/debounce.js';
import type { FleetEntry } from './entry.js';

const SETTLE_MS = 100;
/** A session file is a few hundred bytes; more files than this are not read (the newest count). */
const MAX_SESSION_BYTES = 64 * 1024;
const MAX_SESSIONS = 500;

/** The longest folder and detail an entry of a session file keeps (the file is anyone's to write). */
const MAX_CWD = 1024;
const MAX_DETAIL = 120;

/** A session's entry. */
export function sessionEntry(session: ClaudeSession, at: number): FleetEntry {
  const s = { ...session, cwd: session.cwd.slice(0, MAX_CWD), sessionId: session.sessionId.slice(0, 128) };
  const { state } = s.signal;
  const detail = s.signal.detail.slice(0, MAX_DETAIL);
  return {
    id: `claude:${s.sessionId}`,
    kind: 'session',
    intent: '',
    name: s.name ?? `claude ${s.cwd ? (s.cwd.split('/').pop() ?? s.cwd) : s.sessionId.slice(0, 8)}`,
    named: s.name !== undefined,
    agent: 'claude',
    state,
    source: 'session-file',
    confirmed: isConfirmed('session-file'),
    since: s.signal.at ?? at,
    cwd: s.cwd,
    detail,
    needs: state === 'waiting' ? { question: detail, options: [] } : null,
    where: s.bgId ? `background session ${s.bgId}, pid ${s.pid}` : `pid ${s.pid}`,
    pinned: false,
    order: 0,
    pending: '',
    server: '',
    attachId: s.bgId ?? '',
  };
}

export class SessionsWatch {
  private stopWatch?: () => void;
  private readonly later = debounced(() => this.read(), SETTLE_MS);

  /** `ours` gives the pids that are this Neovim's terminals' agents or its jobs' processes. */
  constructor(
    private readonly dir: string,
    private readonly folders: FolderWatcher,
    private readonly ours: () => ReadonlySet<number>,
    private readonly onSessions: (entries: FleetEntry[]) => void,
  ) {}

  start(): void {
    this.stopWatch = this.folders.watch(this.dir, () => this.poke());
    this.poke();
  }

  /** Reads the sessions again soon. */
  poke(): void {
    this.later.soon();
  }

  private read(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => /^\d+\.json$/.test(n));
    } catch {
      names = [];
    }
    const ours = this.ours();
    const entries: FleetEntry[] = [];
    for (const name of names.slice(-MAX_SESSIONS)) {
      const session = claudeSession(readJsonBounded(path.join(this.dir, name), MAX_SESSION_BYTES));
      if (!session || String(session.pid) !== name.slice(0, -5) || ours.has(session.pid)) continue;
      if (processStamp(session.pid) === undefined) continue; // Its process is gone: a stale file.
      entries.push(sessionEntry(session, Date.now()));
    }
    this.onSessions(entries);
  }

  stop(): void {
    this.later.cancel();
    this.stopWatch?.();
  }
}
