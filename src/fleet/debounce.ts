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
