// A state shown is one the agent is in: Claude Code's session file goes idle about 110 ms before its
// transcript's turn end is read, and that Idle never reaches the winbar, the picker or the events,
// nor does the screen's `✻ … for Ns` drawn with that Idle (a Stopped flash before Completed ✓)
// (Neovim 0.10 and 0.12, the fixture named like Claude Code writing its records in that order).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOLD_MS } from '../../src/state/tracker.js';
import { FAKE_CLAUDE, FLASHING_TURN, openAgent, openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

describe.each(testNeovims())('Neovim $label: no transient state', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('20 Claude Code turns go Working → Completed with no Idle or Stopped between, in state events and fleet entries', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-flash-'));
    s = await startNeovim(exe, { CLAUDE_CONFIG_DIR: path.join(base, 'claude'), HOME: base });
    await s.lua(`require('madohub').setup({})
      _G.states, _G.rows = {}, {}
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoStateChanged', callback = function(ev) table.insert(_G.states, ev.data.state .. ':' .. tostring(ev.data.source)) end })
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoFleetChanged', callback = function()
        for _, e in ipairs(require('madohub').agents({ kind = 'terminal' })) do
          if _G.rows[#_G.rows] ~= e.state then table.insert(_G.rows, e.state) end
        end
      end })`);
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).source == 'session-file'`, 8000)).toBe(true);
    for (let i = 1; i <= 20; i++) {
      // Every other turn draws its end on the screen before the record (F), as Claude Code 2.1 does.
      await s.lua(
        `_G.states, _G.rows = {}, {} vim.api.nvim_chan_send(vim.bo[${buf}].channel, '${i % 2 === 0 ? 'F' : 'T'}')`,
      );
      const ok = await s.waitFor(`(require('madohub').state(${buf}) or {}).state == 'completed'`, 5000);
      expect(ok, JSON.stringify(await s.lua('return { require("madohub").state(...), _G.states }', [buf]))).toBe(true);
      // Long enough for a held Idle to have shown, had it been one.
      await s.lua(`vim.wait(${HOLD_MS + 300})`);
      const seen = await s.lua<{ states: string[]; rows: string[] }>('return { states = _G.states, rows = _G.rows }');
      const between = (xs: string[]): string[] => {
        const ys = xs.map((x) => x.split(':')[0]!);
        return ys.slice(ys.indexOf('working'), ys.lastIndexOf('completed'));
      };
      for (const flash of ['idle', 'stopped']) {
        expect(between(seen.states), `turn ${i}: ${seen.states.join(' ')}`).not.toContain(flash);
        expect(between(seen.rows), `turn ${i}: ${seen.rows.join(' ')}`).not.toContain(flash);
      }
      expect(seen.states.map((x) => x.split(':')[0])).toContain('working');
    }
  }, 150000);

  it('a screen that reads Idle for a moment in the middle of a turn (output just appeared) shows no Idle: Working, then the end', async () => {
    s = await startNeovim(exe);
    await s.lua(`_G.states = {}
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoStateChanged', callback = function(ev) table.insert(_G.states, ev.data.state) end })`);
    // Its turn: working, 300 ms of a screen that reads Idle, working again, its completion line.
    const buf = await openAgent(s, ['claude-idle', ...FLASHING_TURN]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).state == 'stopped'`, 8000)).toBe(true);
    const states = await s.lua<string[]>('return _G.states');
    expect(states.slice(states.indexOf('working')), states.join(' ')).toEqual(['working', 'stopped']);
    const winbar = await s.lua<string>(
      `return vim.api.nvim_eval_statusline(vim.wo[vim.fn.win_findbuf(${buf})[1]].winbar, { winid = vim.fn.win_findbuf(${buf})[1], use_winbar = true }).str`,
    );
    expect(winbar).toMatch(/Stopped/);
  });
});
