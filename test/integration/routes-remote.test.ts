// A route to a remote host's job, kept by this machine's daemon: a job here ends a turn and its
// answer goes through the link to a job there, with no Neovim open on either side.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { ROOT } from './neovim.js';

const replier = { replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } };

describe('a route to a remote host’s job', () => {
  const remote = useJobsHarness(replier);
  const local = useJobsHarness(replier);

  it('is kept by the daemon here and delivers through the link, Neovim closed on both sides', async () => {
    const config = path.join(local.base, 'config');
    mkdirSync(path.join(config, 'madohub'), { recursive: true });
    const shell = ['env', ...['MADOHUB_TEMPLATES', 'MADOHUB_JOBS_DIR', 'MADOHUB_RUNTIME_DIR'].map((k) => `${k}=${remote.env[k]}`), 'sh'];
    writeFileSync(path.join(config, 'madohub', 'hosts.json'), JSON.stringify({ box: { command: shell, mado: `${process.execPath} ${path.join(ROOT, 'dist/mado.js')}` } }));
    const here = (args: string[]) => local.mado(args, undefined, { XDG_CONFIG_HOME: config, MADOHUB_FIXTURE_WORK_MS: '300', MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_WORK_MS' });
    const reviewer = shortOf((await remote.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    const writer = shortOf((await here(['--bg', '--agent', 'replier', '-n', 'writer'])).stdout);
    await until(local.jobs, (j) => j[0]?.tempo === 'idle');
    // A remote host's job is named HOST:NAME; as a source it is refused.
    const added = await here(['route', 'add', 'writer', 'box:reviewer']);
    expect(added.stdout).toMatch(new RegExp(`^route [0-9a-f]+ {2}job:${writer} → box:reviewer `));
    expect((await here(['route', 'add', 'box:reviewer', 'writer'])).stderr).toMatch(/a remote host's job is no source of a route here/);
    expect((await here(['route', 'ls', '--json'])).stdout).toContain(`"target":"job:box:${reviewer}"`);
    // The writer works a turn; its answer reaches the reviewer there.
    expect((await here(['send', 'writer', 'work'])).code).toBe(0);
    const logs = await until(() => remote.mado(['logs', reviewer]).then((r) => r.stdout), (t) => t.includes('[mado route writer → box:reviewer'), 20000);
    expect(logs).toContain('[mado route writer → box:reviewer');
    expect(logs).toContain('Turn 1 is done.');
  }, 60000);
});
