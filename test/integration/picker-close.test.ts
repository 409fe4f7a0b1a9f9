// :MadoAgents closed as a person closes it, in Neovim 0.10 and 0.12 with a UI attached: every key and
// command that closes the picker leaves none of its windows on the screen, the cursor back where it
// was (or on the row's terminal), and Normal mode; opening it twice shows one picker.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIX } from './jobs-harness.js';
import { openTerminal, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import type { Screen } from './screen.js';
import { useSeenNeovim } from './seen-neovim.js';

const TITLE = /Agents · /;
const INPUT = 'New agent';

describe.each(testNeovims())('Neovim $label: closing :MadoAgents', ({ path: exe }) => {
  const neovim = useSeenNeovim(exe);

  /** A Neovim with a UI, a terminal running the fixture replier, and a file window it started in. */
  const start = async (): Promise<{ s: Session; screen: Screen; term: number; termWin: number; fileWin: number }> => {
    const { s, screen } = await neovim.start({}, 150, 40);
    await s.lua(`require('madohub').setup({})`);
    const term = await openTerminal(s, ['node', path.join(FIX, 'bin/replier')]);
    const termWin = await s.lua<number>('return vim.api.nvim_get_current_win()');
    await s.lua(`vim.cmd('wincmd j')`);
    const fileWin = await s.lua<number>('return vim.api.nvim_get_current_win()');
    expect(fileWin).not.toBe(termWin);
    await screen.waitForText('Idle', 10000);
    return { s, screen, term, termWin, fileWin };
  };

  /** The floating windows that are open. */
  const floats = (n: Session): Promise<number[]> =>
    n.lua<number[]>(
      `return vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())`,
    );

  const openPicker = async (sc: Screen): Promise<void> => {
    await sc.type(':MadoAgents<CR>');
    await sc.waitForText(TITLE);
    await sc.waitForText(/Idle +claude/, 5000);
  };

  const closed = async (n: Session, sc: Screen): Promise<void> => {
    await sc.waitForNoText(TITLE);
    await sc.waitForNoText(INPUT);
    expect(await floats(n)).toEqual([]);
    expect(await n.lua<string>('return vim.api.nvim_get_mode().mode')).toMatch(/^nt?$/);
  };

  it('q, <Esc> and :MadoAgents twice: one picker, and every window of it closes; the cursor goes back', async () => {
    const { s, screen, fileWin } = await start();
    for (const key of ['q', '<Esc>']) {
      await openPicker(screen);
      expect((await floats(s)).length).toBe(2);
      await screen.type(key);
      await closed(s, screen);
      expect(await s.lua<number>('return vim.api.nvim_get_current_win()')).toBe(fileWin);
    }
    // Twice: one picker (the second focuses the first).
    await openPicker(screen);
    await screen.type('<C-w>p');
    await screen.type(':MadoAgents<CR>');
    await screen.waitFor(() => screen.lines().filter((l) => TITLE.test(l)).length === 1);
    expect((await floats(s)).length).toBe(2);
    await screen.type('q');
    await closed(s, screen);
    // And what a closed picker left behind takes no keys: j moves in the file window as usual.
    await screen.type('ihello<Esc>');
    expect(await s.lua<string>('return vim.api.nvim_get_current_line()')).toBe('hello');
  });

  it('q with the key help open, <Esc> through help and peek, and q in the input line close every window', async () => {
    const { s, screen } = await start();
    await openPicker(screen);
    await screen.type('?');
    await screen.waitForText('MadoAgents keys');
    expect((await floats(s)).length).toBe(3);
    await screen.type('q');
    await closed(s, screen);

    // <Esc> closes the help first, then the peek pane, then the picker.
    await openPicker(screen);
    await screen.type('<Space>');
    await screen.waitForText(' Peek ');
    await screen.type('?');
    await screen.waitForText('MadoAgents keys');
    await screen.type('<Esc>');
    await screen.waitForNoText('MadoAgents keys');
    expect(screen.text()).toMatch(TITLE);
    await screen.type('<Esc>');
    await screen.waitForNoText(' Peek ');
    expect(screen.text()).toMatch(TITLE);
    await screen.type('<Esc>');
    await closed(s, screen);

    // From the input line: <Esc> back to the list, q closes.
    await openPicker(screen);
    await screen.type('n');
    await screen.waitForText('-- INSERT --');
    await screen.type('<Esc>');
    await screen.type('q');
    await closed(s, screen);
  });

  it('<CR> on a terminal row closes the picker and puts the cursor in that terminal’s window', async () => {
    const { s, screen, term, termWin } = await start();
    await openPicker(screen);
    // The cursor starts on the first agent's row: the only one, the replier.
    await screen.type('<CR>');
    await closed(s, screen);
    expect(await s.lua<number>('return vim.api.nvim_get_current_win()')).toBe(termWin);
    expect(await s.lua<number>('return vim.api.nvim_get_current_buf()')).toBe(term);
    // No E21: nothing was typed into a non-modifiable buffer.
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).not.toMatch(/E21/);
  });

  it('the selected row is visible without termguicolors (a 256-colour terminal) and with it', async () => {
    const { s, screen } = await start();
    for (const tgc of [false, true]) {
      await s.lua(`vim.o.termguicolors = ${tgc}`);
      await openPicker(screen);
      // The replier's row (named for the folder the tests run in: `claude <folder>`).
      const row = screen.lines().findIndex((l) => /○ Idle +claude /.test(l));
      expect(row).toBeGreaterThanOrEqual(0);
      const col = screen.lines()[row]!.indexOf('claude ');
      const attrs = screen.hlAt(row, col);
      const shown = tgc ? attrs?.rgb : attrs?.cterm;
      expect(shown?.reverse === true || shown?.background !== undefined).toBe(true);
      await screen.type('q');
      await closed(s, screen);
    }
  });

  it(':q in the list, or going to another window, closes the whole picker', async () => {
    const { s, screen, termWin } = await start();
    await openPicker(screen);
    await screen.type(':q<CR>');
    await closed(s, screen);
    await openPicker(screen);
    await s.lua(`vim.api.nvim_set_current_win(${termWin})`);
    await closed(s, screen);
    expect(await s.lua<number>('return vim.api.nvim_get_current_win()')).toBe(termWin);
  });
});
