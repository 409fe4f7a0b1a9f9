import { existsSync, readdirSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import path from 'node:path';

export type FolderEvent = 'add' | 'change' | 'unlink' | 'ready';
export type FolderListener = (file: string, event: FolderEvent) => void;

/** The most names of a folder kept to tell a file added from one changed (the rest read as added). */
const MAX_NAMES = 100_000;

interface Folder {
  listeners: Set<FolderListener>;
  watcher?: FSWatcher;
  /** Watches the nearest existing ancestor while the folder does not exist yet. */
  waiting?: FSWatcher;
}

/**
 * One watch per folder (fs.watch: inotify, no polling, no look into subfolders), shared by every
 * listener of that folder: each event names its file, so a file's change costs no read of the folder
 * (an agent's project folder holds hundreds of sessions, one of them written at each record). A folder
 * that does not exist yet is waited for through its nearest existing ancestor; when it appears, its
 * listeners hear `ready` and read what is already there.
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
        f.watcher?.close();
        f.waiting?.close();
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
    for (const f of all) {
      f.watcher?.close();
      f.waiting?.close();
    }
  }

  private open(dir: string, folder: Folder): void {
    const emit = (event: FolderEvent, file: string): void => {
      if (this.folders.get(dir) !== folder) return;
      for (const l of [...folder.listeners]) l(file, event);
    };
    const lost = (): void => {
      // The folder removed under its watch: wait for it again.
      folder.watcher?.close();
      folder.watcher = undefined;
      if (this.folders.get(dir) === folder) this.await(dir, folder);
    };
    let names: Set<string>;
    try {
      names = new Set(readdirSync(dir).slice(0, MAX_NAMES));
      folder.watcher = watch(dir, { persistent: true }, (event, name) => {
        if (name === null) return;
        const file = path.join(dir, name);
        if (event === 'change') return emit('change', file);
        // A name that came or went (a file made, removed or renamed over).
        if (existsSync(file)) {
          const known = names.has(name);
          if (!known && names.size < MAX_NAMES) names.add(name);
          emit(known ? 'change' : 'add', file);
          // The folder itself went (its watch names it then), even if one is made again at once.
        } else if (name === path.basename(dir) || !existsSync(dir)) lost();
        else if (names.delete(name)) emit('unlink', file);
      });
    } catch {
      // Not there (yet), or gone since.
      this.await(dir, folder);
      return;
    }
    folder.watcher.on('error', lost);
    const watcher = folder.watcher;
    // Once its listener is in (watch() adds it after opening): what is already there is read.
    setImmediate(() => {
      if (folder.watcher === watcher) emit('ready', dir);
    });
  }

  private await(dir: string, folder: Folder): void {
    let ancestor = path.dirname(dir);
    while (!existsSync(ancestor) && path.dirname(ancestor) !== ancestor) ancestor = path.dirname(ancestor);
    const recheck = (): void => {
      if (this.folders.get(dir) !== folder || folder.waiting !== w) return;
      const next = path.relative(ancestor, dir).split(path.sep)[0];
      if (next && existsSync(path.join(ancestor, next))) {
        folder.waiting = undefined;
        w?.close();
        this.open(dir, folder);
      }
    };
    let w: FSWatcher | undefined;
    try {
      w = watch(ancestor, { persistent: true }, recheck);
    } catch {
      // The ancestor went too: nothing to wait in (the folder is watched again when asked for).
      return;
    }
    folder.waiting = w;
    w.on('error', () => w?.close());
    // The folder may have appeared between the check and the watch's start.
    setImmediate(recheck);
  }
}
