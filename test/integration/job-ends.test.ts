// How a job's end reads, in the list and in the verbs alike: an agent killed by a signal (SIGKILL, the
// OOM killer) is errored with the signal named, never done; a live job between turns is running in
// `mado agents` as in `mado rm`'s refusal; an agent that exited 0 is an ended job the picker removes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

const h = useJobsHarness({
  replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' },
  quits: { command: ['node', '-e', "process.stdout.write('bye\\r\\n'); setTimeout(() => process.exit(0), 300)"], prompt: 'type' },
});

const rowOf = async (short: string): Promise<string> => (await h.mado(['agents'])).stdout.split('\n').find((l) => l.startsWith(short)) ?? '';

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
    await until(h.jobs, (j) => j[0]?.alive === true && j[0]?.status === 'running');
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

describe.each(testNeovims())('Neovim $label: a killed job', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  it('is announced as Failed (killed by SIGKILL), not Stopped', async () => {
    const env: Record<string, string> = {};
    for (const k of ['MADOHUB_TEMPLATES', 'MADOHUB_JOBS_DIR', 'MADOHUB_RUNTIME_DIR']) env[k] = h.env[k] as string;
    s = await startNeovim(exe, env);
    await s.lua(`require('madohub').setup({}) require('madohub.node').ensure()`);
    const short = shortOf((await h.mado(['--bg', '--agent', 'replier', 'hello'])).stdout);
    expect(await s.waitFor(`(require('madohub.fleet').find('job:${short}') or {}).state == 'idle'`, 15000)).toBe(true);
    const host = JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'host.json'), 'utf8')) as { ptyPid: number };
    process.kill(host.ptyPid, 'SIGKILL');
    expect(await s.waitFor(`(require('madohub.fleet').find('job:${short}') or {}).state == 'failed'`, 15000)).toBe(true);
    expect(await s.lua<string>(`return require('madohub.fleet').find('job:${short}').detail`)).toBe('killed by SIGKILL');
    expect(await s.waitFor(`vim.fn.execute('messages'):find('Failed', 1, true) ~= nil`, 5000)).toBe(true);
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).not.toMatch(/Stopped/);
  }, 60000);
});
