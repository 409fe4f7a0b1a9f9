import { existsSync } from 'node:fs';
import path from 'node:path';
import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';

export type FolderEvent = 'add' | 'change' | 'unlink' | 'ready';
export type FolderListener = (file: string, event: FolderEvent) => void;

interface Folder {
  listeners: Set<FolderListener>;
  watcher?: FSWatcher;
  /** Watches the nearest existing ancestor while the folder does not exist yet. */
  waiting?: FSWatcher;
}

/**
 * One chokidar watcher per folder (inotify, no polling, depth 0), shared by every listener of that
 * folder. A folder that does not exist yet is waited for through its nearest existing ancestor; when
 * it appears, its listeners hear `ready` and read what is already there.
 */
export class FolderWatcher {
  private readonly folders = new Map<string, Folder>();

  /** Listens to the files of `dir`; returns the function that stops listening. */
  watch(dir: string, listener: FolderListener): () => void {
    const key = path.resolve(dir);
    let folder = this.folders.get(key);
    if (!folder) {
      folder = { listeners: new Set() };
      this.folders.set(key, folder);
      this.open(key, folder);
    }
    folder.listeners.add(listener);
    return () => {
      const f = this.folders.get(key);
      if (!f) return;
      f.listeners.delete(listener);
      if (f.listeners.size === 0) {
        this.folders.delete(key);
        void f.watcher?.close();
        void f.waiting?.close();
      }
    };
  }

  /** How many folders are watched (for tests and the benchmark). */
  get size(): number {
    return this.folders.size;
  }

  async close(): Promise<void> {
    const all = [...this.folders.values()];
    this.folders.clear();
    await Promise.all(all.flatMap((f) => [f.watcher?.close(), f.waiting?.close()]));
  }

  private open(dir: string, folder: Folder): void {
    if (!existsSync(dir)) {
      this.await(dir, folder);
      return;
    }
    const w = watch(dir, { depth: 0, ignoreInitial: true, persistent: true });
    folder.watcher = w;
    const emit = (event: FolderEvent, file: string): void => {
      if (this.folders.get(dir) !== folder) return;
      for (const l of [...folder.listeners]) l(file, event);
    };
    w.on('add', (file) => emit('add', path.resolve(file)));
    w.on('change', (file) => emit('change', path.resolve(file)));
    w.on('unlink', (file) => emit('unlink', path.resolve(file)));
    w.on('ready', () => emit('ready', dir));
    w.on('error', () => {
      // A folder removed under the watcher: wait for it again.
      void w.close();
      folder.watcher = undefined;
      if (this.folders.get(dir) === folder) this.await(dir, folder);
    });
  }

  private await(dir: string, folder: Folder): void {
    let ancestor = path.dirname(dir);
    while (!existsSync(ancestor) && path.dirname(ancestor) !== ancestor) ancestor = path.dirname(ancestor);
    const w = watch(ancestor, { depth: 0, ignoreInitial: true, persistent: true });
    folder.waiting = w;
    const recheck = (): void => {
      if (this.folders.get(dir) !== folder || folder.waiting !== w) return;
      const next = path.relative(ancestor, dir).split(path.sep)[0];
      if (next && existsSync(path.join(ancestor, next))) {
        folder.waiting = undefined;
        void w.close();
        this.open(dir, folder);
      }
    };
    w.on('addDir', recheck);
    // The folder may have appeared between the check and the watcher's start.
    w.on('ready', recheck);
  }
}
