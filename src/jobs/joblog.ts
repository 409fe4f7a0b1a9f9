// The logs of the daemon (daemon.log) and the hosts (host.log): one entry per event, each starting
// with its time. Writing a log never throws: a full disk must not take a daemon or a host down.
import { appendPrivate, readTail } from '../shared/files.js';

const STAMP = /^\d{4}-\d\d-\d\dT[\d:.]+Z /;
const MAX_ENTRY = 4000;
const MAX_LOG_READ = 256 * 1024;

/** Appends one entry to the log `file`; false when it could not be written. */
export function appendEntry(file: string, message: string): boolean {
  try {
    appendPrivate(file, `${new Date().toISOString()} ${message.slice(0, MAX_ENTRY)}\n`);
    return true;
  } catch {
    return false;
  }
}

/** The first line of the log's last entry, without its time; '' when there is none. */
export function lastEntry(file: string): string {
  const r = readTail(file, MAX_LOG_READ);
  if (!r.ok) return '';
  const lines = r.text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) if (STAMP.test(lines[i]!)) return lines[i]!.replace(STAMP, '');
  return '';
}
