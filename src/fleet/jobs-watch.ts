// The jobs in the fleet: the jobs folder watched (inotify, no polling): its job folders made and
// removed through chokidar, and each job folder's files by a watch of the folder itself (FolderWatcher:
// fs.watch, which names the file; chokidar read the folder again, a stat of each of its files, at each
// append to a working job's output log). A job file that changed is read alone, at once (issue 31: a job's
// change reaches Lua in a few ms, and a working job costs one small read a write, not a read of every
// job), and again once its change is SETTLE_MS old (a change told late). A job folder made or removed,
// a host file, a job not listed yet: the whole folder is read, at once and again once the last change
// told is 100 ms old (see throttled). Each job is settled as every reader lists it (listedJob: a dead
// host's job shows errored).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { listedJob, listedJobs } from '../jobs/listed.js';
import { FolderWatcher } from '../records/folders.js';
import type { FolderEvent } from '../records/folders.js';
import { throttled } from '../shared/debounce.js';
import { jobShorts, readJob } from '../jobs/store.js';
import { SHORT_ID } from '../shared/fleet-id.js';
import { sameJob, withJob } from './job-listing.js';

const QUIET_MS = 100;
/** The files of a job folder whose change is a change of the job (a version 1 job file is state.json). */
const TELLING_FILES: ReadonlySet<string> = new Set(['job.json', 'host.json', 'state.json']);
/** A job file read alone is read again once its change is this old (an event told before the write ended). */
const SETTLE_MS = 60;

/** What the watch tells: the whole folder as read, or one job whose file changed. */
export interface JobsHeard {
  jobs(jobs: ListedJob[]): void;
  job(job: ListedJob): void;
}

/** What a reader of whole lists hears: each job read alone put in the last list read. */
export function wholeLists(onJobs: (jobs: ListedJob[]) => void): JobsHeard {
  let last: ListedJob[] = [];
  return {
    jobs: (jobs) => onJobs((last = jobs)),
    job: (job) => {
      if (!sameJob(last, job)) onJobs((last = withJob(last, job)));
    },
  };
}

export class JobsWatch {
  private watcher?: FSWatcher;
  private readonly later = throttled(() => void this.read(), QUIET_MS);
  private reading = false;
  private again = false;
  private stopped = false;
  /** The jobs of the last reading of the folder. */
  private known = new Set<string>();
  /** The jobs read alone, each waiting for its second read. */
  private readonly settling = new Map<string, NodeJS.Timeout>();
  /** The job folders' own watches (their files' changes), while `files`. */
  private readonly folderWatcher = new FolderWatcher();
  /** Each job folder watched: how its watch ends, and whether it was in place once. */
  private readonly folders = new Map<string, { unwatch: () => void; opened: boolean }>();

  /**
   * `files`: the job folders' files are watched too (their changes read); without, only job folders
   * made and removed are (the daemon: its jobs' hosts tell it their changes, and it starts them).
   */
  constructor(
    private readonly dir: string,
    private readonly heard: JobsHeard,
    private readonly log: { debug(m: string): void },
    private readonly files = true,
  ) {}

  /** Reads the whole folder soon (a job whose host just came up). */
  readAll(): void {
    this.later.soon();
  }

  start(): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      this.log.debug(`jobs folder ${this.dir}: ${String(err)}`);
      return;
    }
    // The job folders made and removed (chokidar: the jobs folder alone).
    this.watcher = watch(this.dir, {
      depth: 0,
      ignoreInitial: true,
      persistent: true,
      ignored: (file: string) => {
        const rel = path.relative(this.dir, file);
        return rel !== '' && !SHORT_ID.test(rel);
      },
    });
    this.watcher.on('all', (event, file) => {
      // A folder removed: its watch goes now (one made again under the same name is watched anew).
      if (event === 'unlinkDir') this.unfollow(path.basename(file));
      this.later.soon();
    });
    this.watcher.on('error', (err) => this.log.debug(`jobs watch: ${String(err)}`));
    // Read now, and once the watch is in place: what changed while chokidar first scanned the folder
    // told no event (a job dispatched then stayed as it first read: seen once in 790 tests under load).
    // Each read watches the job folders it finds before it reads them.
    this.watcher.on('ready', () => this.later.soon());
    this.later.soon();
  }

  /** Each job folder of `shorts` watched (its files), a watch of a folder no longer listed closed. */
  private followFolders(shorts: readonly string[]): void {
    const listed = new Set(shorts);
    for (const short of this.folders.keys()) if (!listed.has(short)) this.unfollow(short);
    for (const short of listed) {
      if (this.folders.has(short)) continue;
      // A folder gone since it was listed is waited for by the watch; its removal asks for a read.
      const followed = { unwatch: () => {}, opened: false };
      this.folders.set(short, followed);
      followed.unwatch = this.folderWatcher.watch(path.join(this.dir, short), (file, event) => {
        // Its watch in place: first, the read that listed the folder reads it next; again (the folder
        // removed and made anew), the folder is read.
        if (event !== 'ready') return this.fileChanged(short, path.basename(file), event);
        if (followed.opened) this.later.soon();
        followed.opened = true;
      });
    }
  }

  /** Job folder `short`'s watch closed. */
  private unfollow(short: string): void {
    this.folders.get(short)?.unwatch();
    this.folders.delete(short);
  }

  /** File `name` of job folder `short` changed: a known job's job file is read alone; another that tells: all. */
  private fileChanged(short: string, name: string, event: Exclude<FolderEvent, 'ready'>): void {
    // A working job's output log grows at each frame of its screen: none of the job's.
    if (!TELLING_FILES.has(name)) return;
    if (name === 'job.json' && event !== 'unlink' && this.known.has(short)) this.jobChanged(short);
    else this.later.soon();
  }

  /** Job `short`'s file changed (or may have): read it alone, now and once the change is SETTLE_MS old. */
  jobChanged(short: string): void {
    this.readJob(short);
    clearTimeout(this.settling.get(short));
    this.settling.set(
      short,
      setTimeout(() => {
        this.settling.delete(short);
        this.readJob(short);
      }, SETTLE_MS),
    );
  }

  private readJob(short: string): void {
    listedJob(this.dir, readJob(this.dir, short)).then(
      (job) => this.heard.job(job),
      (err: unknown) => this.log.debug(`job ${short} read: ${String(err)}`),
    );
  }

  private async read(): Promise<void> {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      // Watched before they are read: a change after the read is told.
      const shorts = jobShorts(this.dir);
      if (this.files) this.followFolders(shorts);
      const jobs = await listedJobs(this.dir, shorts);
      if (this.stopped) return;
      this.known = new Set(jobs.map((j) => j.short));
      this.heard.jobs(jobs);
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
    this.stopped = true;
    this.later.cancel();
    for (const timer of this.settling.values()) clearTimeout(timer);
    this.settling.clear();
    this.folders.clear();
    await this.folderWatcher.close();
    await this.watcher?.close();
  }
}
