// A job's screen is read as a terminal's (issue 32): output that has just appeared, an Idle drawn for
// a moment in the middle of a turn, is no end of the turn: its file, as its watchers are told it,
// goes from work to the turn's end, never idle between; the job counts the turn's end once.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobFeeds } from '../../src/fleet/job-feeds.js';
import { listedJobs } from '../../src/jobs/listed.js';
import type { ListedJob } from '../../src/jobs/protocol/replies.js';
import { FIX, shortOf, useJobsHarness } from './jobs-harness.js';
import { untilValue } from '../helpers/wait.js';
import { FLASHING_TURN } from './neovim.js';

const h = useJobsHarness({
  // Up for a while (1.5 s idle), then a turn whose screen reads Idle for 300 ms between two of its
  // working screens, then its end (its completion line), and it stays so.
  flasher: {
    command: ['node', path.join(FIX, 'agent.cjs'), ...Array<string>(5).fill('claude-idle'), ...FLASHING_TURN],
    prompt: 'type',
  },
});
const feeds: JobFeeds[] = [];
afterEach(() => {
  for (const f of feeds.splice(0)) f.stop();
});

describe('a job whose screen reads Idle for a moment in the middle of a turn', () => {
  it('is told working until its end shows, never idle between; one turn ended', async () => {
    shortOf((await h.mado(['--bg', '--agent', 'flasher', 'ship it'])).stdout);
    const dir = path.join(h.base, 'jobs');
    await untilValue(
      () => listedJobs(dir),
      (jobs) => jobs[0]?.alive === true,
    );
    const told: ListedJob[] = [];
    const feed = new JobFeeds(dir, (job) => told.push(job), { debug: () => undefined });
    feeds.push(feed);
    feed.follow(await listedJobs(dir));
    const ended = await untilValue(
      async () => told.at(-1),
      (j) => j?.status === 'done' && /Baked for/.test(String(j.detail)),
      15000,
    );
    expect(ended).toMatchObject({ status: 'done', turnsEnded: 1 });
    // From its first work (not its start, told `starting`) to its end.
    const seen = told.map((j) => `${j.tempo}:${j.detail}`).join(' | ');
    const turn = told.slice(
      told.findIndex((j) => j.tempo === 'active' && j.detail !== 'starting'),
      -1,
    );
    expect(turn.length, seen).toBeGreaterThan(0);
    expect(
      turn.map((j) => j.tempo),
      seen,
    ).not.toContain('idle');
  });
});
