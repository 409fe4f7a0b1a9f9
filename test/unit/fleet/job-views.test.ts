// Which terminals show a job: views of its entry, also once they have ended.
import { describe, expect, it } from 'vitest';
import { JobViews } from '../../../src/fleet/job-views.js';

describe('the terminals that show a job', () => {
  it('a terminal that shows a job is its view; once detached it is none, unless it has exited', () => {
    const v = new JobViews();
    expect(v.show(3, 'abcd0123')).toBe(true);
    expect(v.show(3, 'abcd0123')).toBe(false);
    expect(v.bufOf('abcd0123')).toBe(3);
    expect(v.viewOf(3, false)).toBe('abcd0123');
    expect(v.show(3, undefined)).toBe(true);
    expect(v.bufOf('abcd0123')).toBeUndefined();
    expect(v.viewOf(3, false)).toBeUndefined();
    // `mado attach` ended with the job: its exit is the job's, not an agent's.
    expect(v.viewOf(3, true)).toBe('abcd0123');
    expect(v.viewOf(4, true)).toBeUndefined();
  });

  it('a job shown in a second terminal is shown there; each is its view while it shows it', () => {
    const v = new JobViews();
    v.show(1, 'aaaa0000');
    v.show(2, 'aaaa0000');
    expect(v.bufOf('aaaa0000')).toBe(2);
    expect(v.show(1, 'aaaa0000')).toBe(true);
    expect(v.viewOf(1, false)).toBe('aaaa0000');
  });

  it('forgetting a terminal says whether it showed a job, and forgets what it showed', () => {
    const v = new JobViews();
    v.show(5, 'bbbb1111');
    expect(v.forget(5)).toBe(true);
    expect(v.bufOf('bbbb1111')).toBeUndefined();
    expect(v.viewOf(5, true)).toBeUndefined();
    expect(v.forget(5)).toBe(false);
  });
});
