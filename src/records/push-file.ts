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
 * What a hook runs, in Node (the host's own): its standard input (the event, as JSON), bounded and made
 * one line (JSON allows no raw newline inside a string), appended to the file in one write, opened
 * without following a link (a shell's `>>` would write through one planted in its place) and never
 * made (the host made it). A file it cannot write (a link, gone with its job) fails the hook with a
 * word of one line, not a stack the agent would show.
 */
const APPEND_SCRIPT = [
  'const fs = require("fs");',
  'const chunks = []; let size = 0;',
  `process.stdin.on("data", (d) => { if (size < ${MAX_EVENT_BYTES}) { chunks.push(d); size += d.length; } });`,
  'process.stdin.on("end", () => {',
  `  const line = Buffer.concat(chunks).subarray(0, ${MAX_EVENT_BYTES}).toString("utf8").replace(/[\\r\\n]/g, "");`,
  '  const c = fs.constants;',
  '  try {',
  '    const fd = fs.openSync(process.argv[1], c.O_WRONLY | c.O_APPEND | c.O_NOFOLLOW);',
  '    fs.writeSync(fd, line + "\\n"); fs.closeSync(fd);',
  '  } catch (e) {',
  '    process.stderr.write("madohub: its job\x27s events file takes no event (" + e.code + ")\\n");',
  '    process.exitCode = 1;',
  '  }',
  '});',
].join(' ');

/** The shell command a hook runs (see APPEND_SCRIPT): `node` is the one that runs the host (`node`: the test's). */
export function appendCommand(file: string, node: string = process.execPath): string {
  return `${shellQuote(node)} -e ${shellQuote(APPEND_SCRIPT)} ${shellQuote(file)}`;
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
    this.tail = new JsonlTail(file, {
      onRecord: onEvent,
      backlogBytes: 0,
      maxLineBytes: MAX_EVENT_BYTES + 2,
      onBadLine: () => undefined,
      // A link planted in its place is not read: its events are no job's.
      noFollow: () => this.log(`refusing ${this.file}: it is a link (its events are not read)`),
    });
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
        // Emptied here: read from its start, though a line longer than what was read lands at once.
        this.tail.rewind();
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
