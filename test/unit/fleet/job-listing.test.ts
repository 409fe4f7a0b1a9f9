import { describe, expect, it } from 'vitest';
import { JobListing, newestJobs } from '../../../src/fleet/job-listing.js';
import type { ListedJob } from '../../../src/jobs/protocol/replies.js';
import { blankJob } from '../../../src/jobs/store.js';

describe('the jobs as the hub shows them', () => {
  const listed = (short: string, name: string, updatedAt: number): ListedJob => ({
    ...blankJob(short, updatedAt),
    name,
    updatedAt,
    alive: true,
  });

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

  it('a job’s row keeps the time its state began across rewrites of its file; a new state and a job gone are told', () => {
    const told: string[] = [];
    const jobs = new JobListing({
      stateChanged: (id, from, to, ended) => told.push(`${id} ${from}>${to}${ended ? ' ended' : ''}`),
      gone: (id) => told.push(`${id} gone`),
    });
    const job = (updatedAt: number, tempo: 'active' | 'idle'): ListedJob => ({
      ...listed('0123abcd', 'x', updatedAt),
      status: 'running',
      tempo,
    });
    jobs.list([job(10, 'active')]);
    expect(jobs.rows(() => undefined).map((e) => [e.state, e.since])).toEqual([['working', 10]]);
    // Renamed: the file is rewritten, the state is the same, and began at 10 still.
    jobs.wrote({ ...job(20, 'active'), name: 'renamed' });
    expect(jobs.rows(() => 7).map((e) => [e.name, e.since, e.buf])).toEqual([['renamed', 10, 7]]);
    expect(told).toEqual([]);
    jobs.list([job(30, 'idle')]);
    expect(jobs.rows(() => undefined).map((e) => [e.state, e.since])).toEqual([['idle', 30]]);
    jobs.list([]);
    expect(jobs.rows(() => undefined)).toEqual([]);
    expect(told).toEqual(['job:0123abcd working>idle', 'job:0123abcd gone']);
  });

  it('a turn ended is told once per turn its file counts, its Working seen or not', () => {
    const told: string[] = [];
    const jobs = new JobListing({
      stateChanged: (_id, from, to, ended) => told.push(`${from}>${to}${ended ? ' ended' : ''}`),
      gone: () => undefined,
    });
    const job = (updatedAt: number, status: 'running' | 'done', turnsEnded: number): ListedJob => ({
      ...listed('0123abcd', 'x', updatedAt),
      status,
      tempo: status === 'running' ? 'active' : 'idle',
      turnsEnded,
    });
    const since: number[] = [];
    for (const [at, status, turns] of [
      [10, 'running', 0],
      [20, 'done', 1],
      [30, 'done', 2],
      [40, 'done', 2],
      [50, 'running', 2],
      [60, 'done', 3],
    ] as const) {
      jobs.list([job(at, status, turns)]);
      since.push(jobs.rows(() => undefined)[0]!.since);
    }
    // A new turn's end begins its time anew; a rewrite of the file in the same turn does not.
    expect(since).toEqual([10, 20, 30, 30, 50, 60]);
    // The second turn's Working was never read (done, then done a turn later): its end is told still.
    expect(told).toEqual([
      'working>stopped ended',
      'stopped>stopped ended',
      'stopped>working',
      'working>stopped ended',
    ]);
  });
});
