import path from 'node:path';
import type { RecordSignal } from '../shared/types.js';
import type { FolderWatcher } from './folders.js';
import { JsonlTail } from './tail.js';
import type { UsageFeed } from './usage-feed.js';

/** Where a follower says what it skipped or could not read. */
export interface RecordLog {
  debug(message: string): void;
}

/**
 * chokidar drops a change event that comes within 50 ms of the one before, and an event can come
 * before the write it announces has ended: each event reads at once, and once more when no event
 * came for this long.
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
  const reader = rereading(() => void read());
  const unwatch = folders.watch(path.dirname(file), (changed, event) => {
    if (event === 'ready' || changed === file) reader.poke();
  });
  reader.poke();
  return {
    poke: reader.poke,
    stop: () => {
      stopped = true;
      reader.cancel();
      unwatch();
    },
  };
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

  constructor(
    protected readonly folders: FolderWatcher,
    protected readonly claims: Set<string>,
    private readonly interpret: (record: unknown) => RecordSignal | null,
    private readonly emit: (signal: RecordSignal) => void,
    protected readonly log: { debug(message: string): void },
    /** Its name in the log: `codex pid 12`. */
    private readonly label: string,
    /** What counts its agent's spending from the file it follows. */
    private readonly usage?: UsageFeed,
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
    this.follow = followJsonl(
      file,
      this.folders,
      this.interpret,
      this.emit,
      (line) => this.log.debug(`${this.label}: skipped a line of ${file} that is not JSON: ${line.slice(0, 80)}`),
      this.usage,
    );
  }
}
