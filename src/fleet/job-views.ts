// Which of this Neovim's terminals show a job (`mado attach`): such a terminal is a view of the
// job's entry, never an agent of its own, also once it has ended. Jobs by their fleet ids.

export class JobViews {
  /** The terminal each job is shown in now. */
  private readonly shownIn = new Map<string, number>();
  /** Each terminal that has shown a job, and the last job it showed. */
  private readonly showed = new Map<number, string>();

  /** The terminal that shows job `id` now. */
  bufOf(id: string): number | undefined {
    return this.shownIn.get(id);
  }

  /** Terminal `buf` shows `job` now (undefined: none); true when what it shows changed. */
  show(buf: number, job: string | undefined): boolean {
    if (job) this.showed.set(buf, job);
    const was = this.jobIn(buf);
    if (was === job) return false;
    if (was) this.shownIn.delete(was);
    if (job) this.shownIn.set(job, buf);
    return true;
  }

  /** The job terminal `buf` is a view of: the one it shows, or, once it has exited, the last it showed. */
  viewOf(buf: number, exited: boolean): string | undefined {
    return this.jobIn(buf) ?? (exited ? this.showed.get(buf) : undefined);
  }

  /** Terminal `buf` is gone; true when it showed a job then. */
  forget(buf: number): boolean {
    this.showed.delete(buf);
    const was = this.jobIn(buf);
    if (was) this.shownIn.delete(was);
    return was !== undefined;
  }

  private jobIn(buf: number): string | undefined {
    for (const [id, b] of this.shownIn) if (b === buf) return id;
    return undefined;
  }
}
