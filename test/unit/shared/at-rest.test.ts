import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AtRest, LONGEST_SPELL_MS, REST_MS } from '../../../src/shared/at-rest.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the daemon at rest', () => {
  it('collects its garbage once a burst of requests is over, not during it, and nothing more while it rests', () => {
    let collections = 0;
    const rest = new AtRest(() => collections++, REST_MS, Date.now);
    for (let i = 0; i < 10; i++) {
      rest.worked();
      vi.advanceTimersByTime(REST_MS / 4);
    }
    expect(collections).toBe(0);
    vi.advanceTimersByTime(REST_MS);
    expect(collections).toBe(1);
    // Resting: no timer, no collection.
    expect(vi.getTimerCount()).toBe(0);
    // However often it works in a spell, one timer.
    for (let i = 0; i < 1000; i++) rest.worked();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(REST_MS);
    expect(collections).toBe(2);
    vi.advanceTimersByTime(10 * REST_MS);
    expect(collections).toBe(2);
    rest.worked();
    rest.stop();
    vi.advanceTimersByTime(2 * REST_MS);
    expect(collections).toBe(2);
  });

  it('a process that never rests collects every LONGEST_SPELL_MS of work', () => {
    let collections = 0;
    const rest = new AtRest(() => collections++, REST_MS, Date.now);
    for (let t = 0; t < 3.5 * LONGEST_SPELL_MS; t += 100) {
      rest.worked();
      vi.advanceTimersByTime(100);
    }
    expect(collections).toBe(3);
    rest.stop();
  });

  it('does nothing where Node gives no collection (a daemon started without --expose-gc)', () => {
    const rest = new AtRest(undefined);
    rest.worked();
    expect(vi.getTimerCount()).toBe(0);
  });
});
