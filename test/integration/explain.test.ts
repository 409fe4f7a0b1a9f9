// :MadoExplain typed as a person types it, in Neovim 0.10 and 0.12 with a UI attached: in a terminal's
// window it opens a split that says why the terminal has its state (the rule that decided, its line,
// the agent and how it was told, the rules passed over); `q` closes it and the cursor is back in the
// terminal's window. Elsewhere it says it works in a terminal. :checkhealth names the deciding rule.
import { describe, expect, it } from 'vitest';
import { openAgent, testNeovims } from './neovim.js';
import { useSeenNeovim } from './seen-neovim.js';

describe.each(testNeovims())('Neovim $label: :MadoExplain', ({ path: exe }) => {
  const neovim = useSeenNeovim(exe);

  it('explains the terminal in the current window, and q closes it', async () => {
    const { s, screen } = await neovim.start({}, 150, 48);
    await s.lua(`require('madohub').setup({})`);
    const term = await openAgent(s, ['claude-approval']);
    const termWin = await s.lua<number>('return vim.api.nvim_get_current_win()');
    expect(await s.waitFor(`(require('madohub').state(${term}) or {}).state == 'waiting'`, 10000)).toBe(true);
    await screen.waitForText('Waiting', 5000);

    await screen.feed(':MadoExplain<CR>');
    await screen.waitForText('decided: ', 5000);
    const buf = await s.lua<{ name: string; lines: string[]; win: number }>(
      `local b = vim.api.nvim_get_current_buf()
       return { name = vim.api.nvim_buf_get_name(b), lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), win = vim.api.nvim_get_current_win() }`,
    );
    expect(buf.name).toBe(`mado://explain/${term}`);
    expect(buf.win).not.toBe(termWin);
    expect(buf.lines[0]).toBe(`buffer ${term}: claude, waiting, from pty-scrape`);
    expect(buf.lines).toContain('the screen:');
    expect(buf.lines.find((l) => l.startsWith('  agent:'))).toMatch(/^ {2}agent: +claude, by /);
    expect(buf.lines.find((l) => l.startsWith('  decided:'))).toMatch(
      /^ {2}decided: (?:rule|shape) (?:claude|shared|shape)\/\S+, row \d+: /,
    );
    // On the screen too, as the user reads it.
    expect(screen.text()).toMatch(/decided: (?:rule|shape) \S+, row \d+/);

    await screen.feed('q');
    await screen.waitForNoText('decided: ', 5000);
    expect(await s.lua<number>('return vim.api.nvim_get_current_win()')).toBe(termWin);
    expect(
      await s.lua<number>(
        `return #vim.tbl_filter(function(b) return vim.api.nvim_buf_get_name(b):find('mado://explain/', 1, true) ~= nil end, vim.api.nvim_list_bufs())`,
      ),
    ).toBe(0);

    // :checkhealth gives each watched terminal's reading in a line.
    const health = await s.lua<string>(
      `vim.cmd('checkhealth madohub') return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`,
    );
    expect(health).toMatch(
      new RegExp(`buffer ${term}: claude waiting from pty-scrape; the screen: claude waiting by \\S+ \\(row \\d+\\)`),
    );
  }, 40000);

  it('outside a terminal, says where it works', async () => {
    const { s, screen } = await neovim.start({}, 120, 30);
    await s.lua(`require('madohub').setup({})`);
    await screen.feed(':MadoExplain<CR>');
    await screen.waitForText(':MadoExplain works in a terminal buffer', 5000);
    expect(await s.lua<number>('return #vim.api.nvim_list_wins()')).toBe(1);
  }, 20000);
});
