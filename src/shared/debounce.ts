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
 * Runs `fn` at once on a call to `soon`, and again once every call is `ms` old: the file watcher
 * drops a second change of one file within 50 ms of the first, so a change may come with no call.
 * A call in the window of a run makes two runs: one as the window ends, one a window later (a
 * run only 7 ms after the last call, and no later one, missed a job's last write).
 */
export function throttled(fn: () => void, ms: number): { soon(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let calledMeanwhile = false;
  const windowEnds = (): void => {
    timer = undefined;
    fn();
    if (!calledMeanwhile) return;
    calledMeanwhile = false;
    timer = setTimeout(windowEnds, ms);
  };
  return {
    soon() {
      if (timer) {
        calledMeanwhile = true;
        return;
      }
      fn();
      timer = setTimeout(windowEnds, ms);
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      calledMeanwhile = false;
    },
  };
}

/**
 * Lets a costly look run at most once every `ms` (or as long as `ms()` says at each ask): `due()` is true
 * when it may run now (and counts that run); asked sooner, it is false and `later` is called once, when
 * `ms` has passed since the last run (asks in between gather into that one call). The timer never keeps the
 * process alive.
 */
export function paced(later: () => void, ms: number | (() => number)): { due(): boolean; cancel(): void } {
  let lastRun = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  return {
    due() {
      const since = Date.now() - lastRun;
      const gap = typeof ms === 'number' ? ms : ms();
      if (since >= gap) {
        lastRun = Date.now();
        return true;
      }
      if (!timer) {
        timer = setTimeout(() => {
          timer = undefined;
          later();
        }, gap - since);
        timer.unref();
      }
      return false;
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * Hands `deliver` the newest value put, at most once every `ms` (or as long as `ms()` says): a value
 * put when due is handed at once; values put sooner are kept (the newest only, the others dropped)
 * and handed as the wait ends.
 */
export function newestPaced<T>(
  deliver: (value: T) => void,
  ms: number | (() => number),
): { put(value: T): void; cancel(): void } {
  let kept: { value: T } | undefined;
  const handKept = (): void => {
    if (!kept || !pace.due()) return;
    const { value } = kept;
    kept = undefined;
    deliver(value);
  };
  const pace = paced(handKept, ms);
  return {
    put(value) {
      kept = { value };
      handKept();
    },
    cancel() {
      kept = undefined;
      pace.cancel();
    },
  };
}
