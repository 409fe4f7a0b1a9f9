// When a job's host reads its screen: output that keeps coming at most every DETECT_MS, the first
// output after a quiet spell at once (a key's answer just after a spinner's frame waited up to 100 ms,
// the tail of a job's change in the bench).
import { describe, expect, it } from 'vitest';
import { DETECT_MS, QUIET_MS, readingDue } from '../../../../src/jobs/host/reading-pace.js';

describe("a job's screen reading", () => {
  it('reads output after a quiet spell once it has been quiet QUIET_MS, even just after a reading', () => {
    // A spinner's frame was read at 1000; a key's answer comes 40 ms later, after 40 ms without output.
    expect(readingDue({ now: 1040, changedAt: 1040, detectedAt: 1008, afterQuiet: true })).toBe(1040 + QUIET_MS);
  });

  it('reads output that keeps coming at most every DETECT_MS, and at most DETECT_MS after its first change', () => {
    expect(readingDue({ now: 1020, changedAt: 1020, detectedAt: 1008, afterQuiet: false })).toBe(1008 + DETECT_MS);
    // Long past the last reading: once quiet.
    expect(readingDue({ now: 5000, changedAt: 5000, detectedAt: 1008, afterQuiet: false })).toBe(5000 + QUIET_MS);
    // A flood: never later than DETECT_MS after its first change.
    expect(readingDue({ now: 1195, changedAt: 1100, detectedAt: 1090, afterQuiet: false })).toBe(1100 + DETECT_MS);
    expect(readingDue({ now: 1195, changedAt: 1100, detectedAt: 1090, afterQuiet: true })).toBe(1100 + DETECT_MS);
  });
});
