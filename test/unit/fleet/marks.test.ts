import { describe, expect, it } from 'vitest';
import { cleanName, keptMarks } from '../../../src/fleet/marks.js';
import { newestJobs } from '../../../src/fleet/job-listing.js';
import type { ListedJob } from '../../../src/jobs/protocol/replies.js';
import { blankJob } from '../../../src/jobs/store.js';

describe('the marks a user gives an entry', () => {
  it('a name: no control characters, trimmed, bounded', () => {
    expect(cleanName('  fix\x1b[31m it\n ')).toBe('fix [31m it');
    expect(cleanName('x'.repeat(500))).toHaveLength(120);
  });

  it('a terminal’s marks back from Lua: checked field by field, none from a hostile value', () => {
    expect(keptMarks({ id: 'term:12', name: ' main ', pinned: true, order: 2 })).toEqual({ id: 'term:12', marks: { name: 'main', pinned: true, order: 2 } });
    expect(keptMarks({ id: 'term:12', name: '   ', pinned: 'yes', order: Infinity })).toBeUndefined();
    for (const v of [null, 'term:1', [], { id: 'job:abc', name: 'x' }, { id: 'term:1e9999', name: 'x' }]) expect(keptMarks(v)).toBeUndefined();
  });
});

describe('the jobs as the hub shows them', () => {
  const listed = (short: string, name: string, updatedAt: number): ListedJob => ({ ...blankJob(short, updatedAt), name, updatedAt, alive: true });

  it('a job the hub wrote stays as written while a listing is older; a listing that caught up ends that', () => {
    const wrote = new Map([['a', 20]]);
    const known = [listed('a', 'written', 20)];
    expect(newestJobs(known, [listed('a', 'stale', 10)], wrote)[0]!.name).toBe('written');
    expect(newestJobs(known, [listed('a', 'caught up', 20)], wrote)[0]!.name).toBe('caught up');
    expect(wrote.size).toBe(0);
    // Without a write of the hub's own, every listing is the truth, older or not.
    expect(newestJobs(known, [listed('a', 'older', 5)], wrote)[0]!.name).toBe('older');
  });
});
