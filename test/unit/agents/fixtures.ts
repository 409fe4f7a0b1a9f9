// What the tests of one agent read: its screens (test/fixtures/screens/<id>.json, captured from the
// real agent), its records, the runs of states the records tell, and a follower of records run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RecordLog } from '../../../src/records/follow.js';
import { FolderWatcher } from '../../../src/records/folders.js';
import type { AgentState, RecordSignal } from '../../../src/shared/types.js';
import { until as untilHolds } from '../../helpers/wait.js';

export interface ScreenFixture {
  title: string;
  lines: string[];
  expect: { agent: string; state: AgentState };
  note: string;
}

const FIX = path.join(__dirname, '../../fixtures');

/** An agent's captured screens, by name. */
export function agentScreens(id: string): Record<string, ScreenFixture> {
  return JSON.parse(readFileSync(path.join(FIX, 'screens', `${id}.json`), 'utf8')) as Record<string, ScreenFixture>;
}

/**
 * The kinds of screen a whole captured session holds at one size: the names after `prefix` (`kilo-real-`,
 * `kilo-real-80-`) that are a kind alone (no further size), sorted.
 */
export function kindsAt(fixtures: Record<string, ScreenFixture>, prefix: string): string[] {
  return Object.keys(fixtures)
    .filter((n) => n.startsWith(prefix) && /^[a-z-]+$/.test(n.slice(prefix.length)))
    .map((n) => n.slice(prefix.length))
    .sort();
}

/** The records of a JSONL fixture, one value per line. */
export function recordsOf(file: string): unknown[] {
  return readFileSync(path.join(FIX, 'records', file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
}

/** The states the records tell, in order, a state said again in a row kept once. */
export function stateRuns(
  records: readonly unknown[],
  interpret: (record: unknown) => RecordSignal | null,
): AgentState[] {
  const runs: AgentState[] = [];
  for (const r of records) {
    const s = interpret(r);
    if (s && runs[runs.length - 1] !== s.state) runs.push(s.state);
  }
  return runs;
}

/** The record's `type`. */
export const typeOf = (record: unknown): string => (record as { type: string }).type;

/** Waits (3 s at most) for `pred`, calling `poke` between looks. */
export async function until(pred: () => boolean, poke?: () => void): Promise<void> {
  await untilHolds(() => {
    if (pred()) return true;
    poke?.();
    return false;
  }, 3000);
}

/** What a follower of an agent's records is to a test: started, poked, stopped. */
interface Follower {
  start(): void;
  stop(): void;
}

/**
 * Runs `body` with a started follower of records that `make` builds on a new folder watcher and an
 * emit that gathers its signals; the follower and the watcher are stopped after, whatever happens.
 */
export async function following<F extends Follower>(
  make: (folders: FolderWatcher, emit: (signal: RecordSignal) => void, log: RecordLog) => F,
  body: (follower: F, got: RecordSignal[]) => Promise<void>,
): Promise<void> {
  const got: RecordSignal[] = [];
  const folders = new FolderWatcher();
  const follower = make(folders, (s) => got.push(s), { debug: () => undefined });
  try {
    follower.start();
    await body(follower, got);
  } finally {
    follower.stop();
    await folders.close();
  }
}
