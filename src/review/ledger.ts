// The review's ledger of an agent: the turns checkpointed in its folder's shadow repository, each with the
// trees of its start and its end, as a file of its own beside the repository (one writer: the process
// that takes that agent's checkpoints). Read as hostile input: a bad file is a ledger with no turns.
import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import type { Check } from '../shared/checks.js';
import { int, optional, pattern, recordGuard, str, strMax } from '../shared/checks.js';
import { readJsonBounded, writeReplacing } from '../shared/files.js';

/** The turns kept per agent; older ones are pruned (their trees go with the repository's next prune). */
export const KEPT_TURNS = 50;

/** A git object's name as the shadow repository writes it. */
const OBJECT = /^[0-9a-f]{40}$/;

/** An agent's key in the review (a job's `job-ID`, a terminal's `term-PID-BUF`): a file name and a ref's part. */
export const REVIEW_KEY = /^[a-z0-9][a-z0-9-]{0,79}$/;

const TURN_FIELDS = {
  turn: int(1, Number.MAX_SAFE_INTEGER),
  startedAt: int(0, Number.MAX_SAFE_INTEGER),
  endedAt: optional(int(0, Number.MAX_SAFE_INTEGER)),
  /** The trees of the folder at its start and its end (none: no checkpoint; `skipped` says why). */
  start: optional(pattern(OBJECT, 'a git object name')),
  end: optional(pattern(OBJECT, 'a git object name')),
  skipped: optional(strMax(300)),
};

/** One turn as the ledger keeps it. */
export type LedgerTurn = {
  turn: number;
  startedAt: number;
  endedAt?: number;
  start?: string;
  end?: string;
  skipped?: string;
};

export interface Ledger {
  key: string;
  agent: string;
  name: string;
  folder: string;
  /** When its last checkpoint was taken (its agents are pruned oldest first when the repositories grow too large). */
  at: number;
  turns: LedgerTurn[];
}

const turnGuard = recordGuard(TURN_FIELDS);
/** Its turns: a list no longer than those kept (each read on its own: a bad one is left out). */
const turnList: Check<unknown[]> = (v) => (Array.isArray(v) && v.length <= KEPT_TURNS + 1 ? null : 'a list of turns');
const ledgerGuard = recordGuard({
  key: pattern(REVIEW_KEY, 'a review key'),
  agent: strMax(64),
  name: strMax(200),
  folder: str,
  at: int(0, Number.MAX_SAFE_INTEGER),
  turns: turnList,
});

/** The largest ledger read. */
const MAX_LEDGER_BYTES = 256 * 1024;

/** The key of the moments the user worked in a folder (saved a file from Neovim): no agent's. */
export const userKey = (pid: number): string => `user-${pid}`;
export const isUserKey = (key: string): boolean => key.startsWith('user-');

/** Where a ledger lives in its repository. */
export function ledgerFile(gitDir: string, key: string): string {
  return path.join(gitDir, 'madohub', `${key}.json`);
}

/** A ledger as read (undefined: none, or one that is not one). */
export function readLedger(gitDir: string, key: string): Ledger | undefined {
  const file = ledgerFile(gitDir, key);
  if (!existsSync(file) || !lstatSync(file).isFile()) return undefined;
  const read = ledgerGuard(readJsonBounded(file, MAX_LEDGER_BYTES));
  if (typeof read === 'string') return undefined;
  const turns: LedgerTurn[] = [];
  for (const t of read.turns) {
    const turn = turnGuard(t);
    if (typeof turn !== 'string') turns.push(turn);
  }
  return { ...read, turns };
}

/** Writes a ledger whole (a reader sees the old or the new; never through a link: it is renamed into place). */
export function writeLedger(gitDir: string, ledger: Ledger): Promise<void> {
  return writeReplacing(ledgerFile(gitDir, ledger.key), JSON.stringify(ledger));
}

/** Every ledger of a repository (a folder's agents). */
export function ledgersOf(gitDir: string, readDir: (dir: string) => string[]): Ledger[] {
  const out: Ledger[] = [];
  let names: string[] = [];
  try {
    names = readDir(path.join(gitDir, 'madohub'));
  } catch {
    return out;
  }
  for (const n of names.slice(0, 1000)) {
    const key = n.endsWith('.json') ? n.slice(0, -5) : '';
    if (!REVIEW_KEY.test(key)) continue;
    const l = readLedger(gitDir, key);
    if (l) out.push(l);
  }
  return out;
}
