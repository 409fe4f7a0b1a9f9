/** Runs `fn` once, `ms` after the last call to `soon` (calls in between gather into that one run). */
export function debounced(fn: () => void, ms: number): { soon(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const cancel = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return {
    soon() {
      cancel();
      timer = setTimeout(() => {
        timer = undefined;
        fn();
      }, ms);
    },
    cancel,
  };
}

/**
 * Runs `fn` at once on a call to `soon`, and once more `ms` later (whatever came in between: the
 * file watcher drops a second change of one file within 50 ms, so a change may come with no event).
 * A lone change is seen at once; any burst ends with a run after its last event.
 */
export function throttled(fn: () => void, ms: number): { soon(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    soon() {
      if (timer) return;
      fn();
      timer = setTimeout(() => {
        timer = undefined;
        fn();
      }, ms);
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
