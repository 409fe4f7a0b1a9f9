// `npm run demo`'s script: its splits and its hint wait for the UI, and fit its width.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

describe.each(testNeovims())('Neovim $label: the demo', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it.each([
    [80, 'one above the other', 'col'],
    [200, 'side by side', 'row'],
  ])('on a UI of %i columns that attaches later: the hint is shown, the agents %s', async (cols, _, layout) => {
    s = await startNeovim(exe);
    await s.lua('vim.cmd.luafile(...)', [path.join(ROOT, 'scripts/demo.lua')]);
    expect(await s.lua<number>('return #vim.api.nvim_list_wins()')).toBe(1);
    await s.nvim.uiAttach(cols, 40, { ext_linegrid: true });
    expect(await s.waitFor('#vim.api.nvim_list_wins() == 2', 5000)).toBe(true);
    expect(await s.lua<string>('return vim.fn.winlayout()[1]')).toBe(layout);
    expect(await s.lua<string>("return vim.fn.execute('messages')")).toContain(':qa! quits.');
  });
});
