import path from 'node:path';
import type { RecordSignal } from '../detect/records.js';
import type { FolderWatcher } from './folders.js';
import { JsonlTail } from './tail.js';

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
): () => void {
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
  const unwatch = folders.watch(path.dirname(file), (changed, event) => {
    if (event === 'ready' || changed === file) void read();
  });
  void read();
  return () => {
    stopped = true;
    unwatch();
  };
}
