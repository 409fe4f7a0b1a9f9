// The waits of background jobs the user was told of (or saw come), kept in the jobs folder for every
// teller of this machine: the daemon (no Neovim open) and each Neovim's Node process. A Neovim that
// opens, or a daemon whose link to a host comes up, takes a job found waiting as news only when no
// teller knew of that wait: a remote job that began to wait while nothing followed its host is told
// once, and a wait told before (by the daemon, by the Node process before a restart) is not told again.
import path from 'node:path';
import { isObj } from '../shared/checks.js';
import { readJsonBounded, writeAtomic } from '../shared/files.js';

export const TOLD_FILE = 'told.json';
/** The most waits kept (the newest): a wait older than these is long told or long gone. */
export const MAX_TOLD = 500;
/** A key's longest form (the question in it is cut before). */
const MAX_KEY = 400;
const MAX_FILE = MAX_TOLD * (MAX_KEY + 8) + 64;

/** What the attention engine asks of it. */
export interface ToldWaits {
  /** Whether a teller of this machine knew of this wait. */
  has(key: string): boolean;
  /** Keeps that this wait is known. */
  add(key: string): void;
}

/** One wait of a job: which job, in which of its turns, asking what (a second question of one turn is another wait). */
export function waitKey(id: string, turns: number, question: string): string {
  return `${id}\t${turns}\t${question}`.slice(0, MAX_KEY);
}

/** The keys in the file, oldest first ([] when there is none or it is not ours). */
function readKeys(file: string): string[] {
  const v = readJsonBounded(file, MAX_FILE);
  if (!isObj(v) || !Array.isArray(v.waits)) return [];
  return v.waits.filter((k): k is string => typeof k === 'string' && k.length <= MAX_KEY).slice(-MAX_TOLD);
}

/**
 * The record in `<jobs folder>/told.json`: read at each question (another teller may have written), written
 * at each new wait.
 */
export class ToldLedger implements ToldWaits {
  private readonly file: string;

  constructor(
    jobsDir: string,
    private readonly log: (m: string) => void,
  ) {
    this.file = path.join(jobsDir, TOLD_FILE);
  }

  has(key: string): boolean {
    return readKeys(this.file).includes(key);
  }

  add(key: string): void {
    // Read again before writing: another teller may have kept a wait since.
    const keys = readKeys(this.file).filter((k) => k !== key);
    keys.push(key);
    try {
      writeAtomic(this.file, JSON.stringify({ waits: keys.slice(-MAX_TOLD) }));
    } catch (err) {
      this.log(`cannot keep the waits told (${TOLD_FILE}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
