// A job viewed in a split (:MadoAttach, <CR> in the picker) as a person uses it, in Neovim 0.10 and
// 0.12 with a UI attached: the winbar says how to detach while attached; Ctrl-] closes the view, the
// job goes on, and nothing reads as an exit (no Exited winbar, no terminal row beside the job's).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIX, shortOf, useJobsHarness } from './jobs-harness.js';
import { testNeovims } from './neovim.js';
import { useSeenNeovim } from './seen-neovim.js';

describe.each(testNeovims())('Neovim $label: a job’s view', ({ path: exe }) => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });
  const neovim = useSeenNeovim(exe);

  it('mado --bg says how to detach; the view’s winbar says it while attached; Ctrl-] closes the view and the job runs on', async () => {
    const bg = await h.mado(['--bg', '--agent', 'replier', '-n', 'the writer', 'first words']);
    expect(bg.stdout).toMatch(/mado attach [0-9a-f]{8} +open in this terminal \(Ctrl-\] detaches, the job goes on\)/);
    const short = shortOf(bg.stdout);
    const { s, screen } = await neovim.start(h.neovimEnv(), 150, 40);
    await s.lua(`require('madohub').setup({})`);
    await screen.type(`:MadoAttach ${short}<CR>`);
    await screen.waitForText(`job ${short} · Ctrl-] detaches`, 10000);
    await screen.waitForText('You said: first words', 10000);
    const view = await s.lua<number>('return vim.api.nvim_get_current_buf()');
    const wins = await s.lua<number>('return #vim.api.nvim_list_wins()');

    // Detach as a person does: into Terminal mode, Ctrl-].
    await screen.type('i');
    await screen.waitForText('-- TERMINAL --');
    await screen.type('<C-]>');
    await screen.waitForText(`detached from job ${short}; it keeps running`, 8000);
    await screen.waitForNoText(`job ${short} · Ctrl-] detaches`);
    expect(screen.text()).not.toMatch(/Exited/);
    expect(await s.lua<number>('return #vim.api.nvim_list_wins()')).toBe(wins - 1);
    expect(await s.lua<boolean>(`return vim.api.nvim_buf_is_valid(${view})`)).toBe(false);

    // The picker has the job's row and no terminal row for the view; the job still runs.
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText('the writer', 8000);
    expect(screen.text()).not.toMatch(/Exited|■/);
    expect(
      await s.lua<string[]>(`return vim.tbl_map(function(e) return e.id end, require('madohub').agents())`),
    ).toEqual([`job:${short}`]);
    const jobs = await h.jobs();
    expect(jobs.find((j) => j.short === short)).toMatchObject({ alive: true });
  }, 60000);

  it('Ctrl-] leaves Terminal mode before the view closes: what is typed next reaches no agent beside it', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'the writer', 'first words'])).stdout);
    const { s, screen } = await neovim.start(h.neovimEnv(), 150, 40);
    await s.lua(`require('madohub').setup({})`);
    // A terminal agent above, in Terminal mode, the job's view opened below it.
    const neighbour = await s.lua<number>(
      `vim.cmd('terminal node ${path.join(FIX, 'bin/replier')}') return vim.api.nvim_get_current_buf()`,
    );
    await screen.type(`:MadoAttach ${short}<CR>`);
    await screen.waitForText('You said: first words', 10000);
    await screen.type('i');
    await screen.waitForText('-- TERMINAL --');
    await screen.type('<C-]>');
    await screen.waitForText(`detached from job ${short}; it keeps running`, 8000);
    expect(await s.lua<string>('return vim.api.nvim_get_mode().mode')).toMatch(/^n/);
    // Typed after the detach: Normal mode's keys in the neighbour's window (zz scrolls), then a
    // command; in Terminal mode they would have gone to its agent.
    await screen.type("zz:echo 'typed in Normal mode'<CR>");
    await screen.waitForText('typed in Normal mode', 5000);
    expect(await s.lua<number>('return vim.api.nvim_get_current_buf()')).toBe(neighbour);
    expect(
      await s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${neighbour}, 0, -1, false), '\\n')`),
    ).not.toMatch(/zz|typed in/);
  }, 60000);
});
