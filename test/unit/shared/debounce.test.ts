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
    t.soon();
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
});
