// Routes over many turns, as a person relies on them: each delivery carries that turn's answer, once,
// after the turn ended (20 turns in Neovim 0.12, 3 in 0.10: see loopTurns). The recorded answer and the
// picker's reply over many turns: answer-loops.test.ts.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIX } from './jobs-harness.js';
import { testNeovims } from './neovim.js';
import { loopTurns, useRoutesNeovim } from './routes-harness.js';

describe.each(testNeovims())('Neovim $label: a route, turn after turn', ({ label, path: exe }) => {
  const r = useRoutesNeovim(exe);
  const { setup, type } = r;
  const turns = loopTurns(label);

  it(`two routes to one idle target are two prompts, each of ${turns} turns carrying that turn’s answer, once, after the turn ended`, async () => {
    // The writer's turns take 2.1 s (one route fires at most every 2 s); the reviewer, as the real
    // agents do while they submit, takes what comes within 400 ms of an Enter as one prompt.
    const { a, b } = await setup(undefined, {
      a: { MADOHUB_FIXTURE_WORK_MS: '2100' },
      b: { MADOHUB_FIXTURE_SUBMIT_MS: '400' },
    });
    await r.s.lua(
      `vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}') vim.cmd('MadoRoute term:${b} send=screen')`,
    );
    expect(await r.s.waitFor(`#require('madohub').routes() == 2`)).toBe(true);
    const count = (text: string): string =>
      `#vim.tbl_filter(function(l) return l:find(${JSON.stringify(text)}, 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false))`;
    for (let turn = 1; turn <= turns; turn++) {
      await type(a, 'work\r');
      // Nothing before the turn ended.
      expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${a}') or {}).state == 'working'`, 5000)).toBe(
        true,
      );
      expect(await r.s.lua<number>(`return ${count('You said: [mado route')}`)).toBe(2 * (turn - 1));
      expect(await r.s.waitFor(`${count('You said: [mado route')} == ${2 * turn}`, 15000)).toBe(true);
      // The plain route's text is this turn's answer, and came once.
      const text = await r.s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${b}, 0, -1, false), '\\n')`);
      expect(text.split(`You said: [mado route writer → reviewer · hop 1/3]\nTurn ${turn} is done.\n`).length - 1).toBe(
        1,
      );
      for (let earlier = 1; earlier < turn; earlier++)
        expect(text.split(`hop 1/3]\nTurn ${earlier} is done.`).length - 1).toBe(1);
    }
  }, 150000);

  it(`a payload held for a menu goes in once it is answered, though the input line loses an Enter that comes too soon: each of ${turns} turns once`, async () => {
    const { a } = await setup();
    // The target: an approver that asks again 3 s after each answer, whose input line loses an Enter
    // within 400 ms of one. (The payload goes, its Enter is lost and given again 1 s later, within
    // those 3 s: at 1.5 s a loaded machine let the next menu come first, and the payload waited for it.)
    const b = await r.s.lua<number>(
      `vim.cmd('new')
       local opts = { env = { MADOHUB_FIXTURE_ENTER_LOST_MS = '400', MADOHUB_FIXTURE_ASK_AGAIN_MS = '3000' } }
       if vim.fn.has('nvim-0.11') == 1 then opts.term = true; vim.fn.jobstart({ 'node', '${path.join(FIX, 'bin/approver')}' }, opts) else vim.fn.termopen({ 'node', '${path.join(FIX, 'bin/approver')}' }, opts) end
       return vim.api.nvim_get_current_buf()`,
    );
    expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).state == 'waiting'`, 8000)).toBe(true);
    await r.s.lua(`vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}')`);
    expect(await r.s.waitFor(`#require('madohub').routes() == 1`)).toBe(true);
    const lines = (text: string): string =>
      `#vim.tbl_filter(function(l) return l:find(${JSON.stringify(text)}, 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false))`;
    for (let turn = 1; turn <= turns; turn++) {
      expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).state == 'waiting'`, 8000)).toBe(
        true,
      );
      await type(a, 'work\r');
      // Held while the menu shows (a route's text is no answer to it).
      expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending ~= ''`, 15000)).toBe(true);
      await type(b, '1');
      expect(
        await r.s.waitFor(`${lines(`Turn ${turn} is done.`)} >= 1 and ${lines('got: [mado route')} == ${turn}`, 10000),
        await r.s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${b}, 0, -1, false), '\\n')`),
      ).toBe(true);
    }
  }, 240000);
});
