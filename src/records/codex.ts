import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { codexMeta, codexRolloutRecord } from '../detect/records.js';
import type { CodexMeta, RecordSignal } from '../detect/records.js';
import { processSource } from '../proc/shared.js';
import type { RecordLog } from './claude.js';
import type { FolderWatcher } from './folders.js';
import { followJsonl } from './follow.js';

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

/** The first line of a file (its session_meta), read up to `max` bytes. */
function firstLine(file: string, max = 1024 * 1024): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const chunk = Buffer.alloc(64 * 1024);
    const parts: Buffer[] = [];
    let pos = 0;
    while (pos < max) {
      const n = readSync(fd, chunk, 0, chunk.length, pos);
      if (n === 0) break;
      const nl = chunk.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        parts.push(Buffer.from(chunk.subarray(0, nl)));
        return Buffer.concat(parts).toString('utf8');
      }
      parts.push(Buffer.from(chunk.subarray(0, n)));
      pos += n;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export function readMeta(file: string): CodexMeta | undefined {
  const line = firstLine(file);
  if (!line) return undefined;
  try {
    return codexMeta(JSON.parse(line)) ?? undefined;
  } catch {
    return undefined;
  }
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

/** Follows one Codex process's rollout; while it is not found, waits for it in today's folder. */
export class CodexRecords {
  private follow?: { stop(): void; poke(): void };
  private stopWait?: () => void;
  private stopped = false;
  rollout?: string;

  constructor(
    private readonly home: string,
    readonly pid: number,
    private readonly pids: readonly number[],
    private readonly folders: FolderWatcher,
    private readonly claims: Set<string>,
    private readonly emit: (signal: RecordSignal) => void,
    private readonly log: RecordLog,
  ) {}

  start(): void {
    if (this.tryFind()) return;
    const startedAt = processSource().startMs(this.pid) ?? Date.now();
    const dirs = new Set([dayFolder(this.home, startedAt), dayFolder(this.home, Date.now())]);
    const stops = [...dirs].map((dir) =>
      this.folders.watch(dir, (file, event) => {
        if (event === 'ready' || (event === 'add' && ROLLOUT.test(file))) this.tryFind();
      }),
    );
    this.stopWait = () => stops.forEach((s) => s());
  }

  stop(): void {
    this.stopped = true;
    this.stopWait?.();
    this.follow?.stop();
    if (this.rollout) this.claims.delete(this.rollout);
  }

  /** The rollout followed, once found. */
  get recordFile(): string | undefined {
    return this.rollout;
  }

  /** The Codex session id of the rollout followed. */
  get sessionId(): string | undefined {
    return this.rollout ? readMeta(this.rollout)?.sessionId : undefined;
  }

  /** Reads again what may have changed; looks for the rollout again while it is not found. */
  poke(): void {
    if (this.follow) this.follow.poke();
    else this.tryFind();
  }

  private tryFind(): boolean {
    if (this.stopped || this.rollout) return true;
    const cwd = processSource().cwd(this.pid);
    const startedAt = processSource().startMs(this.pid);
    if (cwd === undefined || startedAt === undefined) return false;
    const file = findRollout(this.home, { pids: this.pids, cwd, startedAt }, this.claims);
    if (!file) return false;
    this.rollout = file;
    this.claims.add(file);
    this.stopWait?.();
    this.stopWait = undefined;
    this.log.debug(`codex pid ${this.pid}: rollout ${file}`);
    this.follow = followJsonl(file, this.folders, codexRolloutRecord, this.emit, (line) =>
      this.log.debug(`codex rollout ${file}: skipped a line that is not JSON: ${line.slice(0, 80)}`),
    );
    return true;
  }
}
