import path from 'node:path';
import type { RecordSignal } from '../detect/records.js';
import type { FolderWatcher } from './folders.js';
import { JsonlTail } from './tail.js';

/**
 * chokidar drops a change event that comes within 50 ms of the one before, and an event can come
 * before the write it announces has ended: each event reads at once, and once more when no event
 * came for this long.
 */
export const SETTLE_MS = 120;

export interface Reader {
  /** Reads now, and again SETTLE_MS after the last poke. */
  poke(): void;
  cancel(): void;
}

/** Runs `read` now and once more SETTLE_MS after the last call (one pending re-read at a time). */
export function settled(read: () => void): Reader {
  let timer: NodeJS.Timeout | undefined;
  return {
    poke: () => {
      read();
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        read();
      }, SETTLE_MS);
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
): { stop(): void; poke(): void } {
  let pending: RecordSignal | undefined;
  let stopped = false;
  const tail = new JsonlTail(file, {
    onRecord: (record) => {
      pending = interpret(record) ?? pending;
    },
    onBadLine,
  });
  const read = async (): Promise<void> => {
    await tail.read();
    const signal = pending;
    pending = undefined;
    if (signal && !stopped) emit(signal);
  };
  const reader = settled(() => void read());
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
