// The file a job's agent appends its own events to (its hooks: one JSON object a line), how a hook
// command appends one, and how the job's host follows it. The host makes the file before the agent
// starts (a regular file, 0600, in the job's folder) and keeps it bounded.
import { closeSync, constants, fchmodSync, ftruncateSync, openSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { JsonlTail } from './tail.js';

/** The events file and the settings file, in a job's folder. */
export const PUSH_EVENTS = 'push.jsonl';
export const PUSH_SETTINGS = 'push-settings.json';

/** The most of one event a hook appends (what its agent gives it on standard input). */
export const MAX_EVENT_BYTES = 64 * 1024;
/** Past this size the events file is emptied (what was in it has been read). */
export const MAX_EVENTS_FILE = 1024 * 1024;

/** A word quoted for a POSIX shell: `'it'\''s'`. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The shell command a hook runs: its standard input (the event, as JSON), bounded and made one line
 * (JSON allows no raw newline inside a string), appended to `file` in one write.
 */
export function appendCommand(file: string): string {
  return `printf '%s\\n' "$(head -c ${MAX_EVENT_BYTES} | tr -d '\\n\\r')" >> ${shellQuote(file)}`;
}

/** Makes the events file empty and private (0600), refusing a link planted where it goes. */
export function resetEventsFile(file: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    ftruncateSync(fd, 0);
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/**
 * Follows a job's events file: each new line parsed goes to `onEvent` (a line that is not JSON, or
 * longer than MAX_EVENT_BYTES, is dropped). The file is emptied once it passes MAX_EVENTS_FILE.
 */
export class PushEvents {
  private readonly tail: JsonlTail;
  private watcher: FSWatcher | undefined;

  constructor(
    readonly file: string,
    onEvent: (event: unknown) => void,
    private readonly log: (line: string) => void,
  ) {
    this.tail = new JsonlTail(file, { onRecord: onEvent, backlogBytes: 0, maxLineBytes: MAX_EVENT_BYTES + 2, onBadLine: () => undefined });
  }

  start(): void {
    try {
      this.watcher = watch(this.file, { persistent: false }, () => void this.read());
      this.watcher.on('error', () => this.stop());
    } catch (err) {
      this.log(`cannot follow ${this.file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }

  /** Reads what was appended (also called by the host when its screen changes: a watch can miss). */
  async read(): Promise<void> {
    await this.tail.read().catch(() => 0);
    if (this.tail.position > MAX_EVENTS_FILE) {
      try {
        resetEventsFile(this.file);
      } catch {
        // Gone with the job's folder.
      }
    }
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
