// A lasting process's memory at rest (the daemon's, a host's): each request, each turn leaves it
// garbage, which V8 collects only once its heap has grown (the daemon's old generation stayed 2-3 MiB
// over what was live after a burst of dispatches: bench (v); a host's grew with its turns: bench (w)).
// Once the process has been quiet for a while after some work, one full collection gives that back;
// then nothing more until it works again (no timer while it rests). A process that never rests (a
// daemon told of 50 working jobs' changes) collects every LONGEST_SPELL_MS of work.

/** How long after its last work a process collects its garbage. */
export const REST_MS = 2000;
/** The longest spell of work without a collection. */
export const LONGEST_SPELL_MS = 30_000;

export class AtRest {
  private timer: NodeJS.Timeout | undefined;
  private lastWork = 0;
  /** When the spell of work under way began. */
  private spellStart = 0;

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
    if (this.timer) return;
    this.spellStart = this.lastWork;
    this.timer = this.wait(this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private wait(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const now = this.now();
      const quiet = now - this.lastWork;
      const worked = now - this.spellStart;
      if (quiet < this.ms && worked < LONGEST_SPELL_MS) {
        this.timer = this.wait(Math.min(this.ms - quiet, LONGEST_SPELL_MS - worked));
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
