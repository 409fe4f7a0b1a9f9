// A job's host tells each write of its job's file to those that watch it (issue 31): each change
// once, in order, once it is in the file; one that joins late is told the file as it is first; the
// fleet shows what is newer, a told job or a file read before it was written.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobFeeds } from '../../src/fleet/job-feeds.js';
import { withJob } from '../../src/fleet/job-listing.js';
import { listedJobs } from '../../src/jobs/listed.js';
import { blankJob } from '../../src/jobs/store.js';
import type { ListedJob } from '../../src/jobs/protocol/replies.js';
import type { JobFile } from '../../src/jobs/types.js';
import { shortOf, useJobsHarness } from './jobs-harness.js';
import { until, untilValue } from '../helpers/wait.js';

const h = useJobsHarness();
const feeds: JobFeeds[] = [];
afterEach(() => {
  for (const f of feeds.splice(0)) f.stop();
});

const quiet = { debug: () => undefined };
const fileOf = (short: string): JobFile =>
  JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'job.json'), 'utf8')) as JobFile;

describe("a job's host, watched", () => {
  it('tells each write of the job file once, in order, once it is in the file; a watcher that joins late is told the file first', async () => {
    // The looper idles and works in turn: a write of its file at each change of state.
    const short = shortOf((await h.mado(['--bg', '--agent', 'looper', 'go'])).stdout);
    const dir = path.join(h.base, 'jobs');
    await untilValue(
      () => listedJobs(dir),
      (jobs) => jobs[0]?.alive === true,
    );
    const told: { job: ListedJob; file: JobFile }[] = [];
    const feed = new JobFeeds(dir, (job) => told.push({ job, file: fileOf(short) }), quiet);
    feeds.push(feed);
    feed.follow(await listedJobs(dir));
    expect(await until(async () => told.length >= 6, 10000)).toBe(true);
    const times = told.map((t) => t.job.updatedAt);
    // Each write once, in the order written, none older than the one before.
    expect(new Set(times).size).toBe(times.length);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // Told once written: the file then is that write or a later one.
    for (const t of told) expect(t.file.updatedAt).toBeGreaterThanOrEqual(t.job.updatedAt);
    const states = told.slice(1).map((t) => t.job.tempo);
    expect(states).toContain('active');
    expect(states).toContain('idle');
    expect(told.every((t) => t.job.short === short && t.job.alive)).toBe(true);

    // One that joins late is told the file as it is, first.
    const late: ListedJob[] = [];
    const lateFeed = new JobFeeds(dir, (job) => late.push(job), quiet);
    feeds.push(lateFeed);
    const before = fileOf(short);
    lateFeed.follow(await listedJobs(dir));
    expect(await until(async () => late.length > 0, 5000)).toBe(true);
    expect(late[0]!.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
    expect(lateFeed.watched).toBe(1);
  });

  it('is stopped watching when its job no longer lives, and its ended feed is opened again to a new host of the job', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'looper', 'go'])).stdout);
    const dir = path.join(h.base, 'jobs');
    const told: ListedJob[] = [];
    const feed = new JobFeeds(dir, (job) => told.push(job), quiet);
    feeds.push(feed);
    const listed = await untilValue(
      () => listedJobs(dir),
      (jobs) => jobs[0]?.alive === true,
    );
    // A live job not watched yet: the daemon reads the folder now and then for it.
    expect(feed.unwatched(listed)).toBe(true);
    feed.follow(listed);
    expect(await until(async () => feed.watched === 1, 5000)).toBe(true);
    // Every live job watched: nothing is read while nothing changes.
    expect(feed.unwatched(listed)).toBe(false);
    expect((await h.mado(['kill', short])).code).toBe(0);
    // Its host ends its watchers as it leaves.
    expect(await until(async () => feed.watched === 0, 5000)).toBe(true);
    expect(feed.unwatched(listed)).toBe(true);
    expect((await h.mado(['respawn', short])).code).toBe(0);
    const count = told.length;
    feed.follow(
      await untilValue(
        () => listedJobs(dir),
        (jobs) => jobs[0]?.alive === true,
      ),
    );
    expect(await until(async () => feed.watched === 1 && told.length > count, 10000)).toBe(true);
    feed.follow([]);
    expect(feed.watched).toBe(0);
  });
});

describe('the fleet, told a job and reading its file', () => {
  const job = (updatedAt: number, tempo: JobFile['tempo']): ListedJob => ({
    ...blankJob('abcd1234'),
    updatedAt,
    tempo,
    alive: true,
  });
  it('keeps a told job over a file read before it was written, and takes a newer file', () => {
    const shown = [job(100, 'idle')];
    // Told the job's write (200) before its file, read before the write, comes back (100).
    const told = withJob(shown, job(200, 'active'));
    expect(withJob(told, job(100, 'idle'))[0]).toMatchObject({ updatedAt: 200, tempo: 'active' });
    // A later write read from the file (another writer's, or a host that told nothing) is taken.
    expect(withJob(told, job(300, 'idle'))[0]).toMatchObject({ updatedAt: 300, tempo: 'idle' });
  });
});
