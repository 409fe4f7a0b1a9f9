// The daemon's memory at rest: each request leaves it garbage, which V8 collects only when its heap
// has grown (the old generation's pages stayed 2-3 MiB over what was live, more after a burst of
// dispatches: bench (v)). Once it has been asked nothing for a while after a burst, one full
// collection gives that back; then nothing more until it is asked again (no timer while it rests).

/** How long after its last request the daemon collects its garbage. */
export const REST_MS = 2000;

export class AtRest {
  private timer: NodeJS.Timeout | undefined;

  /** `collect`: the full collection (Node's `gc`, there when the daemon runs with --expose-gc). */
  constructor(
    private readonly collect: (() => void) | undefined = globalThis.gc,
    private readonly ms = REST_MS,
  ) {}

  /** A request came: the collection waits for the next quiet spell. */
  asked(): void {
    const collect = this.collect;
    if (!collect) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      collect();
    }, this.ms);
    // It keeps no daemon alive that would leave.
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
