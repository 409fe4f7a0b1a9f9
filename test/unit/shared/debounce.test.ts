// The timing helpers: the jobs folder read on a change (at once, and once more after the window),
// and a costly look paced to once a period.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newestPaced, paced, throttled } from '../../../src/shared/debounce.js';

describe('the jobs folder read on a change', () => {
  afterEach(() => vi.useRealTimers());
  it('reads at once, and once more after the window (a change the watcher dropped is seen)', () => {
    vi.useFakeTimers();
    let runs = 0;
    const t = throttled(() => runs++, 100);
    t.soon();
    expect(runs).toBe(1);
    vi.advanceTimersByTime(100);
    expect(runs).toBe(2);
    vi.advanceTimersByTime(1000);
    expect(runs).toBe(2);
    t.soon();
    expect(runs).toBe(3);
    t.cancel();
    vi.advanceTimersByTime(1000);
    expect(runs).toBe(3);
  });

  it('a call in the window is followed by a run a whole window after it (the change dropped after it is seen)', () => {
    vi.useFakeTimers();
    let runs = 0;
    const t = throttled(() => runs++, 100);
    t.soon();
    vi.advanceTimersByTime(93);
    // A change told 93 ms in; the watcher drops the next one, 30 ms later.
    t.soon();
    t.soon();
    expect(runs).toBe(1);
    vi.advanceTimersByTime(7);
    expect(runs).toBe(2);
    // At 123 ms the dropped change; a run at 200 ms (107 ms after the call) reads it.
    vi.advanceTimersByTime(100);
    expect(runs).toBe(3);
    // Then quiet: no more runs.
    vi.advanceTimersByTime(1000);
    expect(runs).toBe(3);
  });
});

describe('a look paced to once a period', () => {
  afterEach(() => vi.useRealTimers());
  it('runs at once, then asks sooner gather into one later call, a period after the run', () => {
    vi.useFakeTimers();
    let later = 0;
    const p = paced(() => later++, 1000);
    expect(p.due()).toBe(true);
    vi.advanceTimersByTime(300);
    expect(p.due()).toBe(false);
    vi.advanceTimersByTime(100);
    expect(p.due()).toBe(false);
    vi.advanceTimersByTime(599);
    expect(later).toBe(0);
    vi.advanceTimersByTime(1);
    expect(later).toBe(1);
    // The later call may run the look now.
    expect(p.due()).toBe(true);
    vi.advanceTimersByTime(5000);
    expect(later).toBe(1);
  });

  it('cancel drops the later call', () => {
    vi.useFakeTimers();
    let later = 0;
    const p = paced(() => later++, 1000);
    p.due();
    p.due();
    p.cancel();
    vi.advanceTimersByTime(5000);
    expect(later).toBe(0);
  });
});

describe('the newest value, handed on at most once a period', () => {
  afterEach(() => vi.useRealTimers());
  it('hands the first at once, then only the newest of those put sooner, a period after', () => {
    vi.useFakeTimers();
    const handed: number[] = [];
    const n = newestPaced((v: number) => handed.push(v), 500);
    n.put(1);
    expect(handed).toEqual([1]);
    for (let v = 2; v <= 5; v++) {
      vi.advanceTimersByTime(100);
      n.put(v);
    }
    expect(handed).toEqual([1]);
    vi.advanceTimersByTime(100);
    expect(handed).toEqual([1, 5]);
    // Nothing new: nothing more.
    vi.advanceTimersByTime(2000);
    expect(handed).toEqual([1, 5]);
    // Due again: at once.
    n.put(6);
    expect(handed).toEqual([1, 5, 6]);
    n.put(7);
    n.cancel();
    vi.advanceTimersByTime(2000);
    expect(handed).toEqual([1, 5, 6]);
  });
});
