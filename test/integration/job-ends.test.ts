// How a job's end reads, in the list and in the verbs alike: an agent killed by a signal (SIGKILL, the
// OOM killer) is errored with the signal named, never done; a live job between turns is running in
// `mado agents` as in `mado rm`'s refusal; an agent that exited 0 is an ended job the picker removes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { elapse } from '../helpers/wait.js';

const AGENT = path.join(FIX, 'agent.cjs');
const h = useJobsHarness({
  replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' },
  // Comes up idle, works 0.8 s later (as an agent loading before its first prompt), ends its turn.
  slowstart: {
    command: [
      'sh',
      '-c',
      `exec node ${AGENT} claude-real-idle claude-real-working claude-real-stopped --every 800`,
      'sh',
    ],
    prompt: 'arg',
  },
  // A resumed session: its old turn's completion line on the screen, nothing new.
  // (sh takes the resume arguments as $1 $2, and the fixture is drawn without them.)
  resumed: {
    command: ['sh', '-c', `exec node ${AGENT} claude-real-stopped`, 'sh'],
    prompt: 'arg',
    resume: ['--resume', '{id}'],
  },
  quits: {
    command: ['node', '-e', "process.stdout.write('bye\\r\\n'); setTimeout(() => process.exit(0), 300)"],
    prompt: 'type',
  },
});

const rowOf = async (short: string): Promise<string> =>
  (await h.mado(['agents'])).stdout.split('\n').find((l) => l.startsWith(short)) ?? '';

describe('the end of a job, in the list and the verbs', () => {
  it('an agent killed by SIGKILL is errored, killed by SIGKILL; never done', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'replier', 'hello'])).stdout);
    await until(h.jobs, (j) => j[0]?.alive === true);
    const host = JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'host.json'), 'utf8')) as { ptyPid: number };
    process.kill(host.ptyPid, 'SIGKILL');
    const ended = await until(h.jobs, (j) => j[0]?.alive === false);
    expect(ended[0]).toMatchObject({ status: 'errored', detail: 'killed by SIGKILL' });
    expect(await rowOf(short)).toMatch(new RegExp(`^${short}\\s+errored\\s+failed\\s+`));
  });

  it('a live job whose turn ended is running in mado agents, as mado rm says; once its agent exits 0 it is done and exited', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'replier', 'hello'])).stdout);
    await until(h.jobs, (j) => j[0]?.alive === true && j[0]?.tempo === 'idle');
    expect(await rowOf(short)).toMatch(new RegExp(`^${short}\\s+running\\s+(idle|stopped)\\s+`));
    const rm = await h.mado(['rm', short]);
    expect(rm.code).toBe(1);
    expect(rm.stderr).toMatch(new RegExp(`job ${short} is running`));

    const quits = shortOf((await h.mado(['--bg', '--agent', 'quits', 'x'])).stdout);
    await until(h.jobs, (j) => j.find((x) => x.short === quits)?.alive === false);
    expect(await rowOf(quits)).toMatch(new RegExp(`^${quits}\\s+done\\s+exited\\s+`));
    expect((await h.mado(['rm', quits])).code).toBe(0);
  });
});

/** The job file's (status, tempo) as it changes, read every 25 ms for `ms`. */
async function watchJob(short: string, ms: number): Promise<string[]> {
  const seen: string[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const j = JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'job.json'), 'utf8')) as {
        status: string;
        tempo: string;
      };
      const now = `${j.status}/${j.tempo}`;
      if (seen[seen.length - 1] !== now) seen.push(now);
    } catch {
      // Being written.
    }
    // Sampled every 25 ms, as a reader of the file would.
    await elapse(25);
  }
  return seen;
}

describe('no state a job is not in', () => {
  it('a job started with a task shows no Idle while its agent comes up', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'slowstart', 'fix the parser'])).stdout);
    const seen = await watchJob(short, 3000);
    expect(seen[0]).toBe('running/active');
    expect(seen).not.toContain('running/idle');
    expect(seen[seen.length - 1]).toBe('done/idle');
  });

  it('a resumed session’s old completion line is no finish of the job', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'resumed', '--resume', 'abc-123'])).stdout);
    const seen = await watchJob(short, 1500);
    expect(seen.filter((s) => s.startsWith('done'))).toEqual([]);
    expect(seen[seen.length - 1]).toBe('running/idle');
  });
});

describe.each(testNeovims())('Neovim $label: a killed job', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  it('is announced as Failed (killed by SIGKILL), not Stopped', async () => {
    s = await startNeovim(exe, h.neovimEnv());
    await s.lua(`require('madohub').setup({}) require('madohub.node').ensure()`);
    const short = shortOf((await h.mado(['--bg', '--agent', 'replier', 'hello'])).stdout);
    expect(await s.waitFor(`(require('madohub.fleet').find('job:${short}') or {}).state == 'idle'`, 15000)).toBe(true);
    const host = JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'host.json'), 'utf8')) as { ptyPid: number };
    process.kill(host.ptyPid, 'SIGKILL');
    expect(await s.waitFor(`(require('madohub.fleet').find('job:${short}') or {}).state == 'failed'`, 15000)).toBe(
      true,
    );
    expect(await s.lua<string>(`return require('madohub.fleet').find('job:${short}').detail`)).toBe(
      'killed by SIGKILL',
    );
    expect(await s.waitFor(`vim.fn.execute('messages'):find('Failed', 1, true) ~= nil`, 5000)).toBe(true);
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).not.toMatch(/Stopped/);
  }, 60000);
});
