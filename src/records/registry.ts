// A follower of an agent process's registry file (`sessions/<pid>.json`, Claude Code's and Qwen
// Code's): the file names the process's session and where its records are; `/clear` and `/resume`
// name another under the same pid. The records it names are followed, one file at a time.
import path from 'node:path';
import { readJsonBounded } from '../shared/files.js';
import type { RecordSignal } from '../shared/types.js';
import type { FolderWatcher } from './folders.js';
import { followJsonl, rereading } from './follow.js';
import type { RecordLog } from './follow.js';
import type { UsageFeed } from './usage-feed.js';

/** A registry file is small; a larger one is not read. */
const MAX_REGISTRY_BYTES = 64 * 1024;

/** What an agent's module reads from the registry file. */
export interface RegistryEntry {
  sessionId: string;
  /** The records of the session, when the entry says where (a JSONL file). */
  recordFile?: string;
  /** A state the registry file tells itself (Claude Code's live status). */
  signal?: RecordSignal;
}

/** What the agent's module gives: where the registry file is, how to read it, how to read its records. */
export interface RegistrySpec {
  registryFile: string;
  /** The entry a registry file's value holds; undefined when it is not one (or not this process's). */
  entryOf(value: unknown): RegistryEntry | undefined;
  /** One record of the session's file. */
  interpret(record: unknown): RecordSignal | null;
  /** Its name in the log: `qwen pid 12`. */
  label: string;
  /** What counts its agent's spending from the records it follows. */
  usage?: UsageFeed;
}

export class RegistryRecords {
  private stopWatch?: () => void;
  private records?: { stop(): void; poke(): void };
  private followed?: string;
  private stopped = false;
  private lastText?: string;
  /** The session the registry file names (for resuming it elsewhere). */
  sessionId?: string;
  private readonly reader = rereading(() => this.readRegistry());

  constructor(
    private readonly spec: RegistrySpec,
    private readonly folders: FolderWatcher,
    private readonly emit: (signal: RecordSignal) => void,
    private readonly log: RecordLog,
  ) {}

  /** The records file followed, once the registry file has named it. */
  get recordFile(): string | undefined {
    return this.followed;
  }

  start(): void {
    const file = this.spec.registryFile;
    this.stopWatch = this.folders.watch(path.dirname(file), (changed, event) => {
      if (event === 'ready' || changed === file) this.reader.poke();
    });
    this.reader.poke();
  }

  stop(): void {
    this.stopped = true;
    this.reader.cancel();
    this.stopWatch?.();
    this.records?.stop();
    this.spec.usage?.stop();
  }

  /** Reads again what may have changed (the terminal's screen changed: the records may have too). */
  poke(): void {
    this.reader.poke();
    this.records?.poke();
  }

  private readRegistry(): void {
    if (this.stopped) return;
    // A regular file of a bounded size only (a FIFO would block): undefined while it is not there.
    const value = readJsonBounded(this.spec.registryFile, MAX_REGISTRY_BYTES);
    const text = value === undefined ? undefined : JSON.stringify(value);
    // Not there, or the re-read of a file that did not change.
    if (text === undefined || text === this.lastText) return;
    const entry = this.spec.entryOf(value);
    if (!entry) return;
    this.lastText = text;
    this.sessionId = entry.sessionId;
    if (entry.signal) this.emit(entry.signal);
    if (entry.recordFile) this.follow(entry.recordFile);
  }

  private follow(file: string): void {
    if (file === this.followed) return;
    this.records?.stop();
    this.followed = file;
    const label = this.spec.label;
    this.log.debug(`${label}: following ${file}`);
    this.records = followJsonl(
      file,
      this.folders,
      this.spec.interpret,
      this.emit,
      (line) => this.log.debug(`${label}: skipped a line of ${file} that is not JSON: ${line.slice(0, 80)}`),
      this.spec.usage,
    );
  }
}
