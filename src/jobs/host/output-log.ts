// A job's output, as its agent wrote it: `output.log` (0600, rotated at 8 MiB to output.log.1). A
// failed write is told once and never stops the job. Nothing of it is kept in memory: an attaching
// client is drawn the host's terminal model.
import { renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { appendPrivate } from '../../shared/files.js';

export const LOG_MAX_BYTES = 8 * 1024 * 1024;

export const outputLog = (jobDir: string): string => path.join(jobDir, 'output.log');

export class OutputLog {
  private size = 0;
  private failing = false;

  /** `onFailure` hears the first failure of a run of failed writes (and not the rest of it). */
  constructor(
    private readonly file: string,
    private readonly onFailure: (why: string) => void,
  ) {
    this.size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  }

  append(data: string): void {
    try {
      if (this.size > LOG_MAX_BYTES) {
        renameSync(this.file, `${this.file}.1`);
        this.size = 0;
      }
      appendPrivate(this.file, data);
      this.size += Buffer.byteLength(data);
      this.failing = false;
    } catch (err) {
      if (!this.failing)
        this.onFailure(`cannot write output.log: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      this.failing = true;
    }
  }
}
