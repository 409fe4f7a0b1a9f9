import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { codexMeta, codexRolloutRecord } from '../detect/records.js';
import type { CodexMeta, RecordSignal } from '../detect/records.js';
import { processPlace, processSource } from '../proc/shared.js';
import type { RecordLog } from './claude.js';
import type { FolderWatcher } from './folders.js';
import { FoundFile } from './follow.js';
import { firstRecord } from './tail.js';

/** Codex's folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME || path.join(env.HOME || homedir(), '.codex');
}

const ROLLOUT = /\/rollout-[^/]*\.jsonl$/;

/** The most folder entries looked at for a session's rollout. */
const MAX_ROLLOUT_LOOKS = 5000;

/**
 * The rollout of Codex session `sessionId` (`sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`), newest days
 * first, looking at a bounded number of entries; undefined when not found.
 */
export function rolloutOfSession(home: string, sessionId: string): string | undefined {
  if (!/^[0-9a-f-]{8,64}$/i.test(sessionId)) return undefined;
  let looks = 0;
  const list = (dir: string): string[] => {
    try {
      const names = readdirSync(dir).sort().reverse();
      looks += names.length;
      return names;
    } catch {
      return [];
    }
  };
  const root = path.join(home, 'sessions');
  for (const y of list(root)) {
    for (const m of list(path.join(root, y))) {
      for (const d of list(path.join(root, y, m))) {
        const day = path.join(root, y, m, d);
        const hit = list(day).find((f) => f.endsWith(`-${sessionId}.jsonl`) && f.startsWith('rollout-'));
        if (hit) return path.join(day, hit);
        if (looks > MAX_ROLLOUT_LOOKS) return undefined;
      }
    }
  }
  return undefined;
}

/** `sessions/YYYY/MM/DD` of a local date. */
export function dayFolder(home: string, at: number): string {
  const d = new Date(at);
  const two = (n: number): string => String(n).padStart(2, '0');
  return path.join(home, 'sessions', String(d.getFullYear()), two(d.getMonth() + 1), two(d.getDate()));
}

/** A rollout's session_meta (its first line). */
export function readMeta(file: string): CodexMeta | undefined {
  return firstRecord(file, codexMeta);
}

/** What is known of the Codex process whose rollout is wanted. */
export interface CodexProcess {
  /** The processes of the terminal from Codex down (their open files are looked at first). */
  pids: readonly number[];
  cwd: string;
  startedAt: number;
}

/**
 * Which rollout belongs to a Codex process: one it holds open; else the earliest rollout of its day
 * folders whose session_meta names its folder and starts after it, and that no other terminal
 * claimed (two Codex sessions in one folder must not be crossed).
 */
export function findRollout(home: string, proc: CodexProcess, claimed: ReadonlySet<string>): string | undefined {
  const sessions = path.join(home, 'sessions') + path.sep;
  for (const pid of proc.pids) {
    const open = processSource().openFiles(pid).find((f) => f.startsWith(sessions) && ROLLOUT.test(f));
    if (open) return open;
  }
  let best: { file: string; startedAt: number } | undefined;
  const days = new Set([dayFolder(home, proc.startedAt), dayFolder(home, Date.now())]);
  for (const dir of days) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      if (!ROLLOUT.test(file) || claimed.has(file)) continue;
      const meta = readMeta(file);
      if (!meta || meta.cwd !== proc.cwd || meta.startedAt === undefined) continue;
      // The session starts with the process or after it (a second of slack for the clocks).
      if (meta.startedAt < proc.startedAt - 1000) continue;
      if (!best || meta.startedAt < best.startedAt) best = { file, startedAt: meta.startedAt };
    }
  }
  return best?.file;
}

/** Follows one Codex process's rollout; while it is not found, waits for it in its day folders. */
export class CodexRecords extends FoundFile {
  private waiting = false;

  constructor(
    private readonly home: string,
    readonly pid: number,
    private readonly pids: readonly number[],
    folders: FolderWatcher,
    claims: Set<string>,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
  ) {
    super(folders, claims, codexRolloutRecord, emit, log, `codex pid ${pid}`);
  }

  protected sessionIn(file: string): string | undefined {
    return readMeta(file)?.sessionId;
  }

  protected find(): string | undefined {
    const place = processPlace(this.pid);
    const file = place ? findRollout(this.home, { pids: this.pids, ...place }, this.claims) : undefined;
    if (!file && !this.waiting) {
      this.waiting = true;
      const days = new Set([dayFolder(this.home, processSource().startMs(this.pid) ?? Date.now()), dayFolder(this.home, Date.now())]);
      for (const dir of days) {
        this.wait(
          this.folders.watch(dir, (changed, event) => {
            if (event === 'ready' || (event === 'add' && ROLLOUT.test(changed))) this.look();
          }),
        );
      }
    }
    return file;
  }
}
