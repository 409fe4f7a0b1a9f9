// The jobs in the fleet: the jobs folder watched (inotify through chokidar, two levels: the job
// folders and their files; no polling). A job file that changed is read alone, at once (issue 31: a
// job's change reaches Lua in a few ms, and a working job costs one small read a write, not a read of
// every job), and again once its change is SETTLE_MS old (chokidar tells no second change of a file
// within 50 ms). A job folder made or removed, a host file, a job not listed yet: the whole folder
// is read, at once and again once the last change told is 100 ms old (see throttled). Each job is
// settled as every reader lists it (listedJob: a dead host's job shows errored).
import { mkdirSync } from 'node:fs';
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
/** A job file read alone is read again once its change is this old (a change chokidar dropped). */
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
  /** The jobs of the last reading of the folder. */
  private known = new Set<string>();
  /** The jobs read alone, each waiting for its second read. */
  private readonly settling = new Map<string, NodeJS.Timeout>();

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
    // Only the job folders and the files that tell a change are watched: a working job's output.log
    // grows at each frame of its screen, and each of its appends cost a look (issue 31).
    const told = (file: string): boolean => {
      const parts = path.relative(this.dir, file).split(path.sep);
      if (parts.length === 1) return parts[0] === '' || SHORT_ID.test(parts[0]!);
      return this.files && parts.length === 2 && SHORT_ID.test(parts[0]!) && TELLING_FILES.has(parts[1]!);
    };
    this.watcher = watch(this.dir, {
      depth: this.files ? 1 : 0,
      ignoreInitial: true,
      persistent: true,
      ignored: (file: string) => !told(file),
    });
    this.watcher.on('all', (event, file) => {
      // Only job folders and the files that tell (see told) come here: a known job's file is read alone.
      const name = path.basename(file);
      const short = path.basename(path.dirname(file));
      if ((event === 'change' || event === 'add') && name === 'job.json' && this.known.has(short))
        this.jobChanged(short);
      else this.later.soon();
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
    // Without its files, a job folder is known by the folder's own watch and the read when ready.
    if (!watcher || !this.files) return;
    const watched = new Set(watcher.getWatched()[path.resolve(this.dir)] ?? []);
    for (const short of jobShorts(this.dir)) if (!watched.has(short)) watcher.add(path.join(this.dir, short));
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
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      const jobs = await listedJobs(this.dir);
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
    this.later.cancel();
    for (const timer of this.settling.values()) clearTimeout(timer);
    this.settling.clear();
    await this.watcher?.close();
  }
}
