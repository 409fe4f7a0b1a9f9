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

  it('a job read fine is never taken back to an older file (a listing read before a write may end after it); a job whose file could not be read takes it', () => {
    const known = [listed('a', 'written', 20)];
    expect(newestJobs(known, [listed('a', 'stale', 10)])[0]!.name).toBe('written');
    expect(newestJobs(known, [listed('a', 'newer', 30)])[0]!.name).toBe('newer');
    // Two listings in parallel: the later-read one ended first; the earlier one does not undo it.
    const after = newestJobs(newestJobs(known, [listed('a', 'newer', 30)]), [listed('a', 'stale', 20)]);
    expect(after[0]!.name).toBe('newer');
    // Listed while its file was being made (a broken view, stamped now): the file made before it shows.
    const broken = [{ ...listed('b', '', 50), error: 'cannot read job.json: missing' }];
    expect(newestJobs(broken, [listed('b', 'made', 40)])[0]!.name).toBe('made');
  });
});
