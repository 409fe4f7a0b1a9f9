import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

export interface TailOptions {
  /** Called with each complete, parsed line. */
  onRecord: (value: unknown) => void;
  /** Called with a line that is not JSON (it is skipped). */
  onBadLine?: (line: string, error: Error) => void;
  /**
   * A file that already exists when the tail starts is read from this many bytes before its end,
   * not from its start: the current state is in its last records, and a 100 MB transcript must not
   * cost 100 MB. 0 reads it whole.
   */
  backlogBytes?: number;
  /** Bytes read at once. */
  chunkBytes?: number;
  /** A line longer than this is dropped (with onBadLine) so that memory stays bounded. */
  maxLineBytes?: number;
  /** Set: a link in the file's place is not read (and this is called, once a link); else links are followed. */
  noFollow?: () => void;
  /**
   * Set: a file first seen larger than the backlog is read whole all the same, its lines before the
   * backlog given to this (what sums the whole file: its usage), not to onRecord.
   */
  early?: (value: unknown) => void;
}

/**
 * Follows a JSONL file: each `read()` takes only the bytes appended since the last one. A partial
 * last line waits for its end; a truncated or replaced file is read again from its start; a line
 * that is not JSON is skipped.
 */
export class JsonlTail {
  private offset = 0;
  private partial = '';
  private identity: string | undefined;
  private reading: Promise<number> | undefined;
  private again = false;
  private dropping = false;
  /** Lines of chunks read from before this byte go to `early` (the part before the backlog). */
  private earlyEnd = 0;
  private early = false;
  /** A link in the file's place was said (noFollow). */
  private linkSaid = false;
  private readonly decoder = new StringDecoder('utf8');
  private readonly buffer: Buffer;
  private readonly backlog: number;
  private readonly maxLine: number;

  constructor(
    readonly file: string,
    private readonly options: TailOptions,
  ) {
    this.buffer = Buffer.alloc(options.chunkBytes ?? 64 * 1024);
    this.backlog = options.backlogBytes ?? 256 * 1024;
    this.maxLine = options.maxLineBytes ?? 8 * 1024 * 1024;
  }

  /** Bytes consumed so far (the position of the next read). */
  get position(): number {
    return this.offset;
  }

  /** The file was emptied by its reader's own hand: the next read starts at its start, whatever its size then. */
  rewind(): void {
    this.reset();
  }

  /** Reads what was appended; resolves with the number of records delivered. Calls never overlap. */
  read(): Promise<number> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.readLoop().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readLoop(): Promise<number> {
    let total = 0;
    do {
      this.again = false;
      total += await this.readOnce();
    } while (this.again);
    return total;
  }

  private reset(): void {
    this.offset = 0;
    this.earlyEnd = 0;
    this.partial = '';
    this.dropping = false;
    this.decoder.end();
  }

  private async readOnce(): Promise<number> {
    let info: Stats;
    try {
      info = await (this.options.noFollow ? lstat : stat)(this.file);
    } catch {
      return 0; // Not there (yet, or any more): nothing to read.
    }
    if (info.isSymbolicLink()) {
      if (!this.linkSaid) this.options.noFollow?.();
      this.linkSaid = true;
      return 0;
    }
    const identity = `${info.dev}:${info.ino}`;
    if (this.identity === undefined) {
      // First sight of the file: start near its end, at a line boundary.
      if (this.backlog > 0 && info.size > this.backlog) {
        if (this.options.early) this.earlyEnd = info.size - this.backlog;
        else {
          this.offset = info.size - this.backlog;
          this.dropping = true; // The first (cut) line is not whole.
        }
      }
    } else if (identity !== this.identity || info.size < this.offset) {
      this.reset(); // Replaced or truncated: read it again from its start.
    }
    this.identity = identity;
    if (info.size === this.offset) return 0;

    let records = 0;
    // Opened without following a link that took the file's place since it was looked at.
    const handle = await open(this.file, this.options.noFollow ? constants.O_RDONLY | constants.O_NOFOLLOW : 'r');
    try {
      while (this.offset < info.size) {
        const want = Math.min(this.buffer.length, info.size - this.offset);
        const { bytesRead } = await handle.read(this.buffer, 0, want, this.offset);
        if (bytesRead === 0) break;
        this.early = this.offset < this.earlyEnd;
        this.offset += bytesRead;
        records += this.consume(this.decoder.write(this.buffer.subarray(0, bytesRead)));
      }
    } finally {
      await handle.close();
    }
    return records;
  }

  private consume(text: string): number {
    let records = 0;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      const piece = text.slice(start, nl);
      start = nl + 1;
      if (this.dropping) {
        this.dropping = false;
        this.partial = '';
        continue;
      }
      const line = this.partial + piece;
      this.partial = '';
      if (this.deliver(line)) records++;
    }
    const rest = text.slice(start);
    if (!this.dropping) {
      this.partial += rest;
      if (this.partial.length > this.maxLine) {
        this.options.onBadLine?.(this.partial.slice(0, 200), new Error(`line longer than ${this.maxLine} bytes`));
        this.partial = '';
        this.dropping = true;
      }
    }
    return records;
  }

  private deliver(line: string): boolean {
    const trimmed = line.trim();
    if (trimmed === '') return false;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      this.options.onBadLine?.(trimmed.slice(0, 200), err instanceof Error ? err : new Error(String(err)));
      return false;
    }
    if (this.early && this.options.early) {
      this.options.early(value);
      return false;
    }
    this.options.onRecord(value);
    return true;
  }
}

/**
 * The first line of a file (a record file's header: Codex's session_meta, a Gemini chat's), read up
 * to `max` bytes. A regular file only: a FIFO or a device named like a record is refused without
 * blocking (O_NONBLOCK), a link is not followed.
 */
export function firstLine(file: string, max = 1024 * 1024): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const chunk = Buffer.alloc(64 * 1024);
    const parts: Buffer[] = [];
    let pos = 0;
    while (pos < max) {
      const n = readSync(fd, chunk, 0, chunk.length, pos);
      if (n === 0) break;
      const nl = chunk.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        parts.push(Buffer.from(chunk.subarray(0, nl)));
        return Buffer.concat(parts).toString('utf8');
      }
      parts.push(Buffer.from(chunk.subarray(0, n)));
      pos += n;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** What the first line of a record file says, read by `interpret` (its header); undefined when nothing. */
export function firstRecord<T>(file: string, interpret: (record: unknown) => T | null): T | undefined {
  const line = firstLine(file);
  if (!line) return undefined;
  try {
    return interpret(JSON.parse(line)) ?? undefined;
  } catch {
    return undefined;
  }
}
