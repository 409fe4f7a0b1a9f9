// The one process source of this process (the watchers, the records and the hosts ask it).
import { PsTree } from './ps-tree.js';
import type { ProcessSource } from './source.js';
import { sourceKind } from './source.js';
import { ProcessTree } from './tree.js';

let shared: ProcessSource | undefined;

/** /proc where it can be read, else ps-list and lsof (MADOHUB_PROCESS_SOURCE=ps forces them). */
export function processSource(env: NodeJS.ProcessEnv = process.env): ProcessSource {
  shared ??= sourceKind(env) === 'ps' ? new PsTree() : new ProcessTree();
  return shared;
}

/**
 * Where and when a process started: its working folder and start time (epoch ms); undefined while either is
 * unknown.
 */
export function processPlace(pid: number): { cwd: string; startedAt: number } | undefined {
  const source = processSource();
  const cwd = source.cwd(pid);
  const startedAt = source.startMs(pid);
  return cwd === undefined || startedAt === undefined ? undefined : { cwd, startedAt };
}
