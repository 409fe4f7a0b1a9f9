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
 * Runs `fn` at once on the first call to `soon`, then at most once per `ms`: calls within that
 * window gather into one run at its end. A lone change is seen at once, a burst costs two runs.
 */
export function throttled(fn: () => void, ms: number): { soon(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let again = false;
  const open = (): void => {
    timer = setTimeout(() => {
      timer = undefined;
      if (!again) return;
      again = false;
      fn();
      open();
    }, ms);
  };
  return {
    soon() {
      if (timer) {
        again = true;
        return;
      }
      fn();
      open();
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      again = false;
    },
  };
}
