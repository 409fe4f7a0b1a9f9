// Where MadoHub reads processes from: /proc where the system has it (Linux), else `ps-list`, `ps`
// and `lsof` (macOS and the other Unixes). One interface, two implementations;
// MADOHUB_PROCESS_SOURCE=ps forces the portable one (CI runs the process tests through both).
import { readFileSync } from 'node:fs';
import type { ProcessInfo } from '../shared/types.js';

export interface ProcessSource {
  readonly kind: 'proc' | 'ps';
  /**
   * True when what `walk` answers may be older than the system (the portable source reads the
   * process list in the background): `refresh()` brings it up to date.
   */
  readonly stale: boolean;
  refresh(): Promise<void>;
  /** `root` and its descendants, parents before children; [] when `root` is gone. */
  walk(root: number): ProcessInfo[];
  /** Drops what is kept of processes that are gone. */
  prune(): void;
  /** When a process started (epoch ms), or undefined. */
  startMs(pid: number): number | undefined;
  /** A process's working folder, or undefined. */
  cwd(pid: number): string | undefined;
  /** The files a process holds open. */
  openFiles(pid: number): string[];
}

let procReadable: boolean | undefined;

/** Whether this system has a /proc MadoHub can read (asked once). */
export function hasProc(): boolean {
  if (procReadable === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procReadable = true;
    } catch {
      procReadable = false;
    }
  }
  return procReadable;
}

/** `ps` when asked for (MADOHUB_PROCESS_SOURCE=ps) or when there is no /proc; else `proc`. */
export function sourceKind(env: NodeJS.ProcessEnv = process.env): 'proc' | 'ps' {
  return env.MADOHUB_PROCESS_SOURCE === 'ps' || !hasProc() ? 'ps' : 'proc';
}
