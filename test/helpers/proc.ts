// What a test or the bench reads of a process in /proc.
import { readFileSync } from 'node:fs';

/** The context switches of `pid`'s main thread so far, voluntary and not: each one a wakeup. */
export function contextSwitches(pid: number): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  let n = 0;
  for (const m of text.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) n += Number(m[1]);
  return n;
}
