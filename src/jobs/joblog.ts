// The logs of the daemon (daemon.log) and the hosts (host.log): one entry per event, each starting
// with its time.
import { appendFileSync, readFileSync } from 'node:fs';

const STAMP = /^\d{4}-\d\d-\d\dT[\d:.]+Z /;

/** Appends one entry to the log `file`. */
export function appendEntry(file: string, message: string): void {
  appendFileSync(file, `${new Date().toISOString()} ${message}\n`);
}

/** The first line of the log's last entry, without its time; '' when there is none. */
export function lastEntry(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) if (STAMP.test(lines[i]!)) return lines[i]!.replace(STAMP, '');
  return '';
}
