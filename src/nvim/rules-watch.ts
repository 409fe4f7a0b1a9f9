// Notices a change of the user's rule files while nothing is drawn (a prompt that waits does not
// redraw): inotify on their folder (or on its parent until the folder is made), no timer while idle.
// A change asks the rules to be read again (`reread`), which pays its own way (see UserRulesSource).
import { existsSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import path from 'node:path';
import { RECHECK_MS } from '../agents/user-rules.js';

/** Watches `dir`; `reread` runs once after a burst of changes. Returns how to stop. */
export function watchRules(dir: string, reread: () => void): () => void {
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const soon = (): void => {
    if (timer || stopped) return;
    // After the source's own recheck interval, so that the change is read, not skipped as too recent.
    timer = setTimeout(() => {
      timer = undefined;
      reread();
      arm();
    }, RECHECK_MS + 20);
    timer.unref();
  };
  const arm = (): void => {
    if (stopped) return;
    const target = existsSync(dir) ? dir : path.dirname(dir);
    if (watcher && (watcher as FSWatcher & { target?: string }).target === target) return;
    watcher?.close();
    watcher = undefined;
    if (!existsSync(target)) return;
    try {
      const w = watch(target, { persistent: false }, (_event, name) => {
        if (target === dir || name === path.basename(dir)) soon();
      }) as FSWatcher & { target?: string };
      w.target = target;
      w.on('error', () => {
        w.close();
        if (watcher === w) watcher = undefined;
      });
      watcher = w;
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
