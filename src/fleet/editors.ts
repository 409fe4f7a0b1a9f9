// Terminals watched by other Neovims on this machine. Each MadoHub Node process publishes a summary
// of its terminals, and its Neovim's server address, in a file of its own
// (`<runtime>/editors/<pid>.json`, 0600, removed when it exits), and reads the others' (no
// polling: the folder is watched). A file whose process is gone is ignored and removed.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isAgentId } from '../agents/index.js';
import { holdsCheck, isObj } from '../shared/checks.js';
import { usageCheck } from '../usage/view.js';
import { isAgentState, isConfirmed, STATE_SOURCES } from '../shared/types.js';
import { readJsonBounded, writeAtomic } from '../shared/files.js';
import { processStamp, sameProcess } from '../proc/stamp.js';
import type { FolderWatcher } from '../records/folders.js';
import { debounced } from '../shared/debounce.js';
import { UNPLACED } from './entry.js';
import type { EditorEntry, FleetEntry } from './entry.js';
import { MAX_DETAIL } from '../shared/text.js';
import { editorId, termBuf } from '../shared/fleet-id.js';

const QUIET_MS = 200;
const SOURCES = new Set<unknown>([...STATE_SOURCES, 'job-file'] satisfies FleetEntry['source'][]);
const MAX_SUMMARY_BYTES = 512 * 1024;
const MAX_EDITORS = 64;

/** What one Neovim publishes: who it is, where to reach it, its terminals' entries. */
export interface EditorSummary {
  pid: number;
  pidStart: string;
  /** Its `v:servername` ('' when it has none): where another Neovim can ask it to show a terminal. */
  server: string;
  terminals: FleetEntry[];
  /** The pids of its terminals' agents (so that no other Neovim lists them as sessions elsewhere). */
  agentPids: number[];
  /**
   * When it last gained the focus (epoch ms; 0: never told). The Neovim focused last tells what all
   * share (background jobs) outside the editor; the daemon tells them while no Neovim runs.
   */
  focusedAt: number;
}

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');

/** Another Neovim's terminal as an entry of this one's fleet: each field checked (anyone may write the file). */
export function editorEntry(summary: EditorSummary, t: FleetEntry): EditorEntry {
  const peerBuf = termBuf(t.id) ?? 0;
  const needs =
    isObj(t.needs) && typeof t.needs.question === 'string' && Array.isArray(t.needs.options)
      ? {
          question: t.needs.question.slice(0, 300),
          options: t.needs.options
            .filter((o): o is string => typeof o === 'string')
            .slice(0, 9)
            .map((o) => o.slice(0, 120)),
        }
      : null;
  const source = SOURCES.has(t.source) ? t.source : 'pty-scrape';
  return {
    id: editorId(summary.pid, peerBuf),
    kind: 'editor',
    name: text(t.name, MAX_DETAIL),
    named: t.named === true,
    intent: text(t.intent, 200),
    agent: t.agent,
    state: t.state,
    source,
    // Said again from the source checked above, not taken from the file.
    confirmed: isConfirmed(source),
    since: typeof t.since === 'number' && Number.isFinite(t.since) ? t.since : 0,
    cwd: text(t.cwd, 1024),
    detail: text(t.detail, MAX_DETAIL),
    needs,
    where: `nvim ${summary.pid}`,
    pinned: false,
    order: 0,
    pending: '',
    server: summary.server,
    attach: [],
    ...UNPLACED,
    pid: summary.pid,
    peerBuf,
    exit: Number.isInteger(t.exit) ? t.exit : null,
    interrupted: t.interrupted === true,
    usage: holdsCheck(usageCheck, t.usage) ? t.usage : null,
    ended: t.state === 'exited',
  };
}

/** A summary read from a file anyone may have edited: checked field by field; undefined when it is none. */
export function parseSummary(v: unknown): EditorSummary | undefined {
  if (
    !isObj(v) ||
    typeof v.pid !== 'number' ||
    typeof v.pidStart !== 'string' ||
    typeof v.server !== 'string' ||
    !Array.isArray(v.terminals)
  )
    return undefined;
  const terminals = v.terminals.filter(
    (t): t is FleetEntry =>
      isObj(t) &&
      typeof t.id === 'string' &&
      termBuf(t.id) !== undefined &&
      typeof t.state === 'string' &&
      isAgentState(t.state) &&
      isAgentId(t.agent),
  );
  const agentPids = Array.isArray(v.agentPids)
    ? v.agentPids.filter((p): p is number => Number.isInteger(p)).slice(0, 500)
    : [];
  const focusedAt = typeof v.focusedAt === 'number' && Number.isFinite(v.focusedAt) ? v.focusedAt : 0;
  return {
    pid: v.pid,
    pidStart: v.pidStart,
    server: v.server.slice(0, 4096),
    terminals: terminals.slice(0, 500),
    agentPids,
    focusedAt,
  };
}

/**
 * The Neovims that run MadoHub now, from their summaries in `dir` (bounded; a file whose process is
 * gone counts for none). The daemon asks it before it tells a job's news.
 */
export function liveEditors(dir: string): { pid: number; focusedAt: number }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: { pid: number; focusedAt: number }[] = [];
  for (const name of names.slice(0, MAX_EDITORS)) {
    const summary = parseSummary(readJsonBounded(path.join(dir, name), MAX_SUMMARY_BYTES));
    if (summary && `${summary.pid}.json` === name && sameProcess(summary.pid, summary.pidStart))
      out.push({ pid: summary.pid, focusedAt: summary.focusedAt });
  }
  return out;
}

/** The terminals of the Neovims that run MadoHub now, from their summaries in `dir` (as liveEditors reads them). */
export function editorTerminals(dir: string): EditorEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  return names.slice(0, MAX_EDITORS).flatMap((name) => {
    const summary = parseSummary(readJsonBounded(path.join(dir, name), MAX_SUMMARY_BYTES));
    return summary && `${summary.pid}.json` === name && sameProcess(summary.pid, summary.pidStart)
      ? summary.terminals.map((t) => editorEntry(summary, t))
      : [];
  });
}

/**
 * Whether the Neovim `self` (its pid and focus time) is the one that tells shared news: focused last, else
 * the lowest pid.
 */
export function tellsShared(
  self: { pid: number; focusedAt: number },
  others: readonly { pid: number; focusedAt: number }[],
): boolean {
  return others.every(
    (o) => o.pid === self.pid || self.focusedAt > o.focusedAt || (self.focusedAt === o.focusedAt && self.pid < o.pid),
  );
}

export class Editors {
  private readonly file: string;
  private stopWatch?: () => void;
  private readonly later = debounced(() => this.read(), QUIET_MS);
  private writeTimer?: NodeJS.Timeout;
  private server = '';
  private terminals: FleetEntry[] = [];
  private agentPids: number[] = [];
  private focusedAt = 0;
  /** The agent pids the other Neovims published at the last read. */
  othersAgentPids = new Set<number>();
  /** The other Neovims at the last read, with when each last gained the focus. */
  private others: { pid: number; focusedAt: number }[] = [];

  constructor(
    private readonly dir: string,
    private readonly folders: FolderWatcher,
    /** The other Neovims' terminals, and how many other Neovims are past MAX_EDITORS (not shown). */
    private readonly onEditors: (entries: FleetEntry[], notShown: number) => void,
    private readonly log: { debug(m: string): void },
  ) {
    this.file = path.join(dir, `${process.pid}.json`);
  }

  start(): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      this.log.debug(`editors folder ${this.dir}: ${String(err)}`);
      return;
    }
    this.stopWatch = this.folders.watch(this.dir, (file) => {
      if (file !== this.file) this.later.soon();
    });
    this.later.soon();
  }

  /** This Neovim's server address, and its terminals now: published soon (changes gather). */
  publish(change: { server?: string; terminals?: FleetEntry[]; agentPids?: number[]; focusedAt?: number }): void {
    if (change.server !== undefined) this.server = change.server;
    if (change.focusedAt !== undefined) this.focusedAt = change.focusedAt;
    if (change.terminals !== undefined) this.terminals = change.terminals;
    if (change.agentPids !== undefined) this.agentPids = change.agentPids;
    if (this.writeTimer) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      const summary: EditorSummary = {
        pid: process.pid,
        pidStart: processStamp(process.pid) ?? '',
        server: this.server,
        terminals: this.terminals,
        agentPids: this.agentPids,
        focusedAt: this.focusedAt,
      };
      try {
        writeAtomic(this.file, JSON.stringify(summary));
      } catch (err) {
        this.log.debug(`editors: cannot write ${this.file}: ${String(err)}`);
      }
    }, QUIET_MS);
  }

  private read(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => /^\d+\.json$/.test(n) && n !== `${process.pid}.json`);
    } catch {
      names = [];
    }
    const entries: FleetEntry[] = [];
    const pids = new Set<number>();
    const others: { pid: number; focusedAt: number }[] = [];
    // Past the bound, a Neovim is counted (the picker says how many are not shown), not read; one
    // that is gone has its file removed all the same.
    let notShown = 0;
    for (const name of names.slice(MAX_EDITORS)) {
      const pid = Number(name.slice(0, -'.json'.length));
      if (pidAlive(pid)) notShown++;
      else rmSync(path.join(this.dir, name), { force: true });
    }
    for (const name of names.slice(0, MAX_EDITORS)) {
      const file = path.join(this.dir, name);
      const summary = parseSummary(readJsonBounded(file, MAX_SUMMARY_BYTES));
      if (!summary || `${summary.pid}.json` !== name) continue;
      if (!sameProcess(summary.pid, summary.pidStart)) {
        rmSync(file, { force: true }); // Its Neovim is gone.
        continue;
      }
      for (const t of summary.terminals) entries.push(editorEntry(summary, t));
      for (const p of summary.agentPids) pids.add(p);
      others.push({ pid: summary.pid, focusedAt: summary.focusedAt });
    }
    this.othersAgentPids = pids;
    this.others = others;
    this.onEditors(entries, notShown);
  }

  /** Whether this Neovim tells the news all share (see tellsShared), by the others as last read. */
  tellsShared(): boolean {
    return tellsShared({ pid: process.pid, focusedAt: this.focusedAt }, this.others);
  }

  stop(): void {
    this.later.cancel();
    if (this.writeTimer) clearTimeout(this.writeTimer);
    this.stopWatch?.();
    rmSync(this.file, { force: true });
  }
}

/** Whether a process of that pid runs (of this user or another: EPERM says it runs). */
function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid < 1) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
