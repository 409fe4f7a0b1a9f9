// The jobs in the fleet: the jobs folder watched (inotify through chokidar, two levels: the job
// folders and their files; no polling), read at once on a change and again once the last change
// told is 100 ms old (chokidar tells no second change of a file within 50 ms: see throttled), each
// job settled as every reader lists it (listedJob: a dead host's job shows errored).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { listedJobs } from '../jobs/listed.js';
import { throttled } from '../shared/debounce.js';
import { jobShorts } from '../jobs/store.js';
import { SHORT_ID } from '../shared/fleet-id.js';

const QUIET_MS = 100;

export class JobsWatch {
  private watcher?: FSWatcher;
  private readonly later = throttled(() => void this.read(), QUIET_MS);
  private reading = false;
  private again = false;

  constructor(
    private readonly dir: string,
    private readonly onJobs: (jobs: ListedJob[]) => void,
    private readonly log: { debug(m: string): void },
  ) {}

  start(): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      this.log.debug(`jobs folder ${this.dir}: ${String(err)}`);
      return;
    }
    this.watcher = watch(this.dir, { depth: 1, ignoreInitial: true, persistent: true });
    this.watcher.on('all', (_event, file) => {
      // Job files and host files tell a change; logs and locks do not.
      const name = file.split('/').pop() ?? '';
      if (/(?:job|state|host)\.json$/.test(name) || SHORT_ID.test(name)) this.later.soon();
    });
    this.watcher.on('error', (err) => this.log.debug(`jobs watch: ${String(err)}`));
    // Read now, and once the watch is in place: what changed while chokidar first scanned the folder
    // told no event (a job dispatched then stayed as it first read: seen once in 790 tests under load).
    this.watcher.on('ready', () => {
      this.watchMissed();
      this.later.soon();
    });
    this.later.soon();
  }

  /**
   * chokidar reads a folder, then watches it: a job folder made in between is in no read and tells no
   * event, and its files would never be watched (a job dispatched as the Node process came up stayed
   * as first read). Once ready, each such folder is watched; from then on the folder's own watch
   * tells every new one.
   */
  private watchMissed(): void {
    const watcher = this.watcher;
    if (!watcher) return;
    const watched = new Set(watcher.getWatched()[path.resolve(this.dir)] ?? []);
    for (const short of jobShorts(this.dir)) if (!watched.has(short)) watcher.add(path.join(this.dir, short));
  }

  private async read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      this.onJobs(await listedJobs(this.dir));
    } catch (err) {
      this.log.debug(`jobs read: ${String(err)}`);
    } finally {
      this.reading = false;
      if (this.again) {
        this.again = false;
        this.later.soon();
      }
    }
  }

  async stop(): Promise<void> {
    this.later.cancel();
    await this.watcher?.close();
  }
}
