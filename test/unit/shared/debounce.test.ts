// The jobs folder read on a change: at once, and once more after the window.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { throttled } from '../../../src/shared/debounce.js';

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
