// The jobs in the fleet: the jobs folder watched (inotify, no polling): its job folders made and
// removed through chokidar, and each job folder's files by a watch of the folder itself (fs.watch,
// which names the file: chokidar read the folder again, a stat of each of its files, at each append
// to a working job's output log). A job file that changed is read alone, at once (issue 31: a job's
// change reaches Lua in a few ms, and a working job costs one small read a write, not a read of every
// job), and again once its change is SETTLE_MS old (a change told late). A job folder made or removed,
// a host file, a job not listed yet: the whole folder is read, at once and again once the last change
// told is 100 ms old (see throttled). Each job is settled as every reader lists it (listedJob: a dead
// host's job shows errored).
import { mkdirSync, watch as watchFolder } from 'node:fs';
import type { FSWatcher as FolderWatch } from 'node:fs';
import path from 'node:path';
import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { listedJob, listedJobs } from '../jobs/listed.js';
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
  /** Each job folder's own watch (its files' changes), while `files`. */
  private readonly folders = new Map<string, FolderWatch>();

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
      try {
        const folder = watchFolder(path.join(this.dir, short), { persistent: true }, (_event, name) =>
          this.fileChanged(short, name),
        );
        // A folder removed under its watch: closed at the next read (which its removal asks for).
        folder.on('error', () => this.later.soon());
        this.folders.set(short, folder);
      } catch (err) {
        // Removed since it was listed, or no watch left to the user: read with the folder then.
        this.log.debug(`job ${short} watch: ${String(err)}`);
      }
    }
  }

  /** Job folder `short`'s watch closed. */
  private unfollow(short: string): void {
    this.folders.get(short)?.close();
    this.folders.delete(short);
  }

  /** A file of job folder `short` changed: a known job's job file is read alone; on another that tells, the folder. */
  private fileChanged(short: string, name: string | null): void {
    // The folder itself removed (its watch names the folder then): watched anew by the read it asks for.
    if (name === short) {
      this.unfollow(short);
      return this.later.soon();
    }
    // A working job's output log grows at each frame of its screen: none of the job's.
    if (name === null || !TELLING_FILES.has(name)) return;
    if (name === 'job.json' && this.known.has(short)) this.jobChanged(short);
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
      if (this.files) this.followFolders(jobShorts(this.dir));
      const jobs = await listedJobs(this.dir);
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
    for (const folder of this.folders.values()) folder.close();
    this.folders.clear();
    await this.watcher?.close();
  }
}
