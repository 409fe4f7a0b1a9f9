// How a host writes its job's file: each change through updateJob, and a failure to write told once
// per kind of file, in host.log and as the job's `problem` (written with the next change of the job
// file that succeeds: the disk may be full for that too; tried again every second until it is).
import { updateJob } from '../store.js';
import type { JobFile } from '../types.js';

export type JobChange = Partial<JobFile> | ((job: JobFile) => Partial<JobFile>);

const RETRY_MS = 1000;

export class JobWriter {
  private readonly told = new Set<string>();
  /** A problem told in host.log, not yet written to the job file. */
  private untold: string | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** The job's file as last written. */
  last: JobFile | undefined;
  /** Hears each write of the job's file, once it is written. */
  written: ((job: JobFile) => void) | undefined;

  constructor(
    private readonly jobsDir: string,
    private readonly short: string,
    private readonly say: (message: string) => void,
  ) {}

  /** Writes a change of the job file (a function: from the file as it is then); never throws. */
  write(change: JobChange): Promise<void> {
    const problem = this.untold;
    const withProblem = (job: JobFile): Partial<JobFile> => ({
      ...(typeof change === 'function' ? change(job) : change),
      ...(problem === undefined ? {} : { problem }),
    });
    return updateJob(this.jobsDir, this.short, withProblem).then(
      (job) => {
        this.last = job;
        this.written?.(job);
        this.told.delete('job.json');
        if (this.untold === problem) this.untold = undefined;
      },
      (err: unknown) => {
        this.tell('job.json', `cannot write job.json: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        this.retryProblem();
      },
    );
  }

  /** Tells, once per kind of file, that it could not be written. */
  tell(kind: string, why: string): void {
    if (this.told.has(kind)) return;
    this.told.add(kind);
    this.say(why);
    // A job file that could not be written is told in host.log only: once written, it has healed.
    if (kind === 'job.json') return;
    this.untold ??= why;
    void this.write({});
  }

  /** Tries again, every second, to write a problem that could not be written (a disk that fills up frees up). */
  private retryProblem(): void {
    if (this.untold === undefined || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.write({});
    }, RETRY_MS);
  }
}
