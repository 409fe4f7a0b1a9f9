// A lasting process's memory at rest (the daemon's, a host's): each request, each turn leaves it
// garbage, which V8 collects only once its heap has grown (the daemon's old generation stayed 2-3 MiB
// over what was live after a burst of dispatches: bench (v); a host's grew with its turns: bench (w)).
// Once the process has been quiet for a while after some work, one full collection gives that back;
// then nothing more until it works again (no timer while it rests).

/** How long after its last work a process collects its garbage. */
export const REST_MS = 2000;

export class AtRest {
  private timer: NodeJS.Timeout | undefined;
  private lastWork = 0;

  /**
   * `collect`: the full collection (Node's `gc`, there when the process runs with --expose-gc:
   * LASTING_NODE_FLAGS); `now`: the clock.
   */
  constructor(
    private readonly collect: (() => void) | undefined = globalThis.gc,
    private readonly ms = REST_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** It worked (a request, output): the collection waits for the next quiet spell. Cheap: one timer a spell. */
  worked(): void {
    if (!this.collect) return;
    this.lastWork = this.now();
    this.timer ??= this.wait(this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private wait(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const quiet = this.now() - this.lastWork;
      if (quiet < this.ms) {
        this.timer = this.wait(this.ms - quiet);
        return;
      }
      this.timer = undefined;
      this.collect?.();
    }, ms);
    // It keeps no process alive that would leave.
    timer.unref();
    return timer;
  }
}
