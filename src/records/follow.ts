import { statSync } from 'node:fs';
import path from 'node:path';
import type { RecordSignal } from '../shared/types.js';
import type { FolderEvent, FolderWatcher } from './folders.js';
import { JsonlTail } from './tail.js';
import { readJsonBounded } from '../shared/files.js';
import type { UsageFeed } from './usage-feed.js';

/** Where a follower says what it skipped or could not read. */
export interface RecordLog {
  debug(message: string): void;
}

/**
 * An event can come before the write it announces has ended: each event reads at once, and once
 * more when no event came for this long.
 */
export const REREAD_MS = 120;

export interface Reader {
  /** Reads now, and again REREAD_MS after the last poke. */
  poke(): void;
  cancel(): void;
}

/** Runs `read` now and once more REREAD_MS after the last call (one pending re-read at a time). */
export function rereading(read: () => void): Reader {
  let timer: NodeJS.Timeout | undefined;
  return {
    poke: () => {
      read();
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        read();
      }, REREAD_MS);
    },
    cancel: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * Follows one JSONL file through its folder's watcher. Each read reports only the last signal it
 * found, so that a backlog does not replay old turns. Returns the function that stops following.
 */
export function followJsonl(
  file: string,
  folders: FolderWatcher,
  interpret: (record: unknown) => RecordSignal | null,
  emit: (signal: RecordSignal) => void,
  onBadLine: (line: string) => void,
  usage?: UsageFeed,
): { stop(): void; poke(): void } {
  let pending: RecordSignal | undefined;
  let stopped = false;
  // What it spends is read from the same lines; the whole file's (its part before the backlog too).
  const count = usage?.open(file);
  const tail = new JsonlTail(file, {
    onRecord: (record) => {
      pending = interpret(record) ?? pending;
      count?.(record);
    },
    onBadLine,
    ...(count ? { early: count } : {}),
  });
  const read = async (): Promise<void> => {
    await tail.read();
    const signal = pending;
    pending = undefined;
    if (signal && !stopped) emit(signal);
    if (!stopped) usage?.flush();
  };
  return readAtChanges(
    file,
    folders,
    () => void read(),
    () => {
      stopped = true;
    },
  );
}

/**
 * Runs `read` now and at each change of `file` its folder's watcher tells (and again REREAD_MS after
 * the last: rereading); `stop` ends both (after `stopping`).
 */
function readAtChanges(
  file: string,
  folders: FolderWatcher,
  read: () => void,
  stopping: () => void,
): { stop(): void; poke(): void } {
  const reader = rereading(read);
  const unwatch = folders.watch(path.dirname(file), (changed, event) => {
    if (event === 'ready' || changed === file) reader.poke();
  });
  reader.poke();
  return {
    poke: reader.poke,
    stop: () => {
      stopping();
      reader.cancel();
      unwatch();
    },
  };
}

/** A file's size and modification time (ns), '' when it cannot be read. */
function stampOf(file: string): string {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.size} ${st.mtimeNs}`;
  } catch {
    return '';
  }
}

/** The largest JSON document followed whole (a session file its agent rewrites with each change). */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** What one read of a whole JSON document holds: the state it tells, its records in order, its totals. */
export interface DocumentReading {
  signal: RecordSignal | null;
  /** Its records, oldest first (a session's messages), for the usage reader. */
  records: readonly unknown[];
  /** What it holds of the whole session (its totals), for the usage reader after the records. */
  whole?: unknown;
}

/**
 * Follows one JSON file that its agent rewrites whole with each change (Continue CLI's session) through
 * its folder's watcher: each read parses it (at most MAX_DOCUMENT_BYTES; one caught mid-write is read
 * again REREAD_MS later) and tells the signal it holds when that (or the count of its records) differs
 * from the last one told. Its records go to the usage reader once each (the last one again: it may
 * have been written anew).
 */
export function followJsonDocument(
  file: string,
  folders: FolderWatcher,
  interpret: (document: unknown) => DocumentReading | undefined,
  emit: (signal: RecordSignal) => void,
  onBad: (why: string) => void,
  usage?: UsageFeed,
): { stop(): void; poke(): void } {
  let stopped = false;
  let told = '';
  let fed = 0;
  const count = usage?.open(file);
  /** The file as last read whole (its size and time): a re-read of the same is no second parse. */
  let readStamp = '';
  const read = (): void => {
    if (stopped) return;
    const stamp = stampOf(file);
    if (stamp !== '' && stamp === readStamp) return;
    const reading = interpret(readJsonBounded(file, MAX_DOCUMENT_BYTES));
    if (!reading) {
      onBad(`not a session (yet): missing, larger than ${MAX_DOCUMENT_BYTES} bytes or not JSON`);
      return;
    }
    readStamp = stamp;
    if (count) {
      // Fewer records than read before: the file was started again.
      const from = reading.records.length < fed ? 0 : Math.max(0, fed - 1);
      for (const r of reading.records.slice(from)) count(r);
      if (reading.whole !== undefined) count(reading.whole);
      fed = reading.records.length;
      usage?.flush();
    }
    // Its records' count with it: the same words at the end of another turn are news.
    const key = reading.signal ? `${reading.records.length} ${JSON.stringify(reading.signal)}` : '';
    if (reading.signal && key !== told) {
      told = key;
      emit(reading.signal);
    }
  };
  return readAtChanges(file, folders, read, () => {
    stopped = true;
  });
}

/**
 * What follows the one record file of an agent's process that must first be found among others
 * (Codex's rollout, Gemini's chat): `find` looks for it (and arranges to be asked again, through
 * `wait`, while it is not there); once found, it is claimed, so that no other terminal takes it, and
 * followed until `stop`.
 */
export abstract class FoundFile {
  private follow?: { stop(): void; poke(): void };
  private stopWait?: () => void;
  private stopped = false;
  private file?: string;
  /** The folders waited in (waitIn). */
  private readonly waitedIn = new Set<string>();

  constructor(
    protected readonly folders: FolderWatcher,
    protected readonly claims: Set<string>,
    private readonly interpret: (record: unknown) => RecordSignal | null,
    protected readonly emit: (signal: RecordSignal) => void,
    protected readonly log: { debug(message: string): void },
    /** Its name in the log: `codex pid 12`. */
    protected readonly label: string,
    /** What counts its agent's spending from the file it follows. */
    protected readonly usage?: UsageFeed,
  ) {}

  /** The file, if it is there now; else undefined (after arranging, through `wait`, to look again). */
  protected abstract find(): string | undefined;

  /** The agent's session id a found file names (its header's). */
  protected abstract sessionIn(file: string): string | undefined;

  /** The session id of the file followed, once found. */
  get sessionId(): string | undefined {
    return this.file ? this.sessionIn(this.file) : undefined;
  }

  start(): void {
    this.look();
  }

  stop(): void {
    this.stopped = true;
    this.usage?.stop();
    this.stopWait?.();
    this.stopWait = undefined;
    this.follow?.stop();
    if (this.file) this.claims.delete(this.file);
  }

  /** The file followed, once found. */
  get recordFile(): string | undefined {
    return this.file;
  }

  /** Reads again what may have changed; looks for the file again while it is not found. */
  poke(): void {
    if (this.follow) this.follow.poke();
    else this.look();
  }

  /**
   * Waits in `dir` for the file (each folder once): looks again when its watcher is ready and at each
   * change `wanted` says may bring the file.
   */
  protected waitIn(dir: string, wanted: (name: string, event: FolderEvent) => boolean): void {
    if (this.waitedIn.has(dir)) return;
    this.waitedIn.add(dir);
    this.wait(
      this.folders.watch(dir, (file, event) => {
        if (event === 'ready' || wanted(path.basename(file), event)) this.look();
      }),
    );
  }

  /** Adds what stops a wait for the file (a folder's listener); all of them end once it is found. */
  protected wait(stop: () => void): void {
    const before = this.stopWait;
    this.stopWait = () => {
      before?.();
      stop();
    };
  }

  protected look(): void {
    if (this.stopped || this.file) return;
    const file = this.find();
    if (!file || this.stopped) return;
    this.file = file;
    this.claims.add(file);
    this.stopWait?.();
    this.stopWait = undefined;
    this.log.debug(`${this.label}: following ${file}`);
    this.follow = this.followFile(file);
  }

  /** Follows the file found: a JSONL file, line after line (an agent's whole document: followJsonDocument). */
  protected followFile(file: string): { stop(): void; poke(): void } {
    return followJsonl(
      file,
      this.folders,
      this.interpret,
      this.emit,
      (line) => this.log.debug(`${this.label}: skipped a line of ${file} that is not JSON: ${line.slice(0, 80)}`),
      this.usage,
    );
  }
}
