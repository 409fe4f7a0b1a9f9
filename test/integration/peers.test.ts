// Another Neovim that never answers (stopped with Ctrl-Z) never freezes this one: <CR> on its row,
// typed in the picker (Neovim 0.10 and 0.12, a UI attached), gives the editor back at once and says,
// within a second, that it does not answer, in the message area and on its row.
import { afterEach, describe, expect, it } from 'vitest';
import { useJobsHarness } from './jobs-harness.js';
import { openAgent, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';

describe.each(testNeovims())('Neovim $label: a peer that does not answer', ({ path: exe }) => {
  const h = useJobsHarness();
  let s: Session | undefined;
  let other: Session | undefined;
  let screen: Screen | undefined;
  afterEach(async () => {
    if (other?.proc.pid) process.kill(other.proc.pid, 'SIGCONT');
    await screen?.detach();
    await other?.close();
    await s?.close();
    s = other = screen = undefined;
  });

  it('<CR> on its row: the editor goes on, and it says the peer does not answer', async () => {
    const env = h.neovimEnv();
    other = await startNeovim(exe, env);
    await other.lua(`require('madohub').setup({}) vim.fn.serverstart()`);
    await openAgent(other, ['codex-working']);
    expect(await other.waitFor(`#require('madohub').agents({ kind = 'terminal' }) == 1`, 8000)).toBe(true);
    s = await startNeovim(exe, env);
    screen = await Screen.attach(s.nvim, 150, 40);
    await s.lua(`require('madohub').setup({})`);
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(/Codex +nvim \d+/, 10000);
    // Stopped, as by Ctrl-Z: its socket still takes connections, and nothing answers.
    process.kill(other.proc.pid!, 'SIGSTOP');
    await screen.type('<CR>');
    const started = Date.now();
    await screen.waitForText(/nvim \d+: it does not answer \(within 1 s\)/, 5000);
    expect(Date.now() - started).toBeLessThan(2500);
    // This Neovim answered meanwhile, and goes on.
    expect(await s.lua<number>('return 1 + 1')).toBe(2);
    await screen.waitForText(/nvim \d+ does not answer/, 5000);
  }, 60000);
});
