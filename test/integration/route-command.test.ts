// :MadoRoute never blocks the editor on the daemon (Neovim 0.10 and 0.12): a route between jobs is
// the daemon's to keep, and a daemon that is starting, or frozen, answers late or never. The keys typed
// meanwhile run; the answer is said when it comes.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonSocket } from '../../src/jobs/paths.js';
import { blankJob, createJob } from '../../src/jobs/store.js';
import { until } from '../helpers/wait.js';
import { said, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

const typed = (keys: string): string =>
  `vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(${JSON.stringify(keys)}, true, false, true), 'mx', false)`;

describe.each(testNeovims())('Neovim $label: :MadoRoute and a daemon that does not answer', ({ path: exe }) => {
  let s: Session | undefined;
  let server: Server | undefined;
  const peers: Socket[] = [];
  afterEach(async () => {
    await s?.close();
    for (const p of peers) p.destroy();
    server?.close();
  });

  it('the editor goes on at once; the keys typed next run; the answer is said when it comes', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-route-command-'));
    const jobs = path.join(base, 'jobs');
    const run = path.join(base, 'run');
    mkdirSync(run, { mode: 0o700 });
    createJob(path.join(jobs, '0123abcd'), { ...blankJob('0123abcd'), status: 'done', name: 'alpha' });
    createJob(path.join(jobs, '4567cdef'), { ...blankJob('4567cdef'), status: 'done', name: 'beta' });
    // A daemon that takes connections and never says a word (frozen).
    server = createServer((c) => {
      peers.push(c);
      c.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server!.listen(daemonSocket(run), resolve));
    s = await startNeovim(exe, { MADOHUB_JOBS_DIR: jobs, MADOHUB_RUNTIME_DIR: run });
    await s.lua(`require('madohub').boot() require('madohub.node').ensure()`);
    expect(
      await s.waitFor(`#require('madohub').agents({ kind = 'job' }) == 2`, 10000),
      JSON.stringify(await s.lua('return require("madohub").agents()')),
    ).toBe(true);
    await s.lua(typed(':MadoRoute job:0123abcd job:4567cdef<CR>'));
    // The daemon is asked (after a look whether it listens) while the editor goes on.
    expect(await until(() => peers.length >= 2, 5000), await s.lua<string>(`return vim.fn.execute('messages')`)).toBe(
      true,
    );
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).not.toMatch(/route|MadoRoute/);
    await s.lua(typed(':let g:typed_meanwhile = 1<CR>'));
    expect(await s.lua<number>('return vim.g.typed_meanwhile')).toBe(1);
    // Its answer, when it comes: the daemon did not answer, said as an error.
    expect(await s.waitFor(said(':MadoRoute: '), 15000)).toBe(true);
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/:MadoRoute: .*daemon/);
  }, 40000);
});
