// Notices a change of a file or folder of the user's while nothing else happens (a rule file, hosts.json):
// inotify on it, or on its parent until it is made, no timer while idle. A burst of changes calls
// `changed` once, `delayMs` after the first.
import { existsSync, statSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Watches `target` (a folder: what changes in it; a file: its own changes); `changed` runs once after a
 * burst. Returns how to stop.
 */
export function watchPath(target: string, delayMs: number, changed: () => void): () => void {
  let watcher: FSWatcher | undefined;
  let watched = '';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const soon = (): void => {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      changed();
      arm();
    }, delayMs);
    timer.unref();
  };
  const arm = (): void => {
    if (stopped) return;
    // A folder is watched itself once it is there; a file, through its folder (an editor that saves
    // by rename replaces the file, and a watch on the old one would hear nothing more).
    const folder = existsSync(target) && !isFile(target) ? target : path.dirname(target);
    const at = existsSync(folder) ? folder : path.dirname(folder);
    if (watcher && watched === at) return;
    watcher?.close();
    watcher = undefined;
    watched = '';
    if (!existsSync(at)) return;
    try {
      const w = watch(at, { persistent: false }, (_event, name) => {
        if (at === target || name === path.basename(at === folder ? target : folder)) soon();
      });
      w.on('error', () => {
        w.close();
        if (watcher === w) {
          watcher = undefined;
          watched = '';
        }
      });
      watcher = w;
      watched = at;
    } catch {
      watcher = undefined;
    }
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher?.close();
  };
}

function isFile(p: string): boolean {
  try {
    return !statSync(p).isDirectory();
  } catch {
    return false;
  }
}
