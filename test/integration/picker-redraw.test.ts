// :MadoAgents open over a busy fleet, in both Neovims: four terminals whose agents spin (a change of
// the fleet every 20 ms each) are drawn at most once a frame however many changes come, not once a
// change, and the last change is always drawn (typed through the real command, checked on the screen).
import { describe, expect, it } from 'vitest';
import { AGENT, openTerminal, testNeovims } from './neovim.js';
import { useSeenNeovim } from './seen-neovim.js';

describe.each(testNeovims())('Neovim $label: :MadoAgents over a busy fleet', ({ path: exe }) => {
  const neovim = useSeenNeovim(exe);

  it('draws its list once a frame while the agents change every 20 ms; the last change is drawn', async () => {
    const { s, screen: sc } = await neovim.start();
    const spinners: number[] = [];
    for (let i = 0; i < 4; i++) {
      await s.lua(`vim.cmd('tabnew')`);
      spinners.push(
        await openTerminal(s, ['env', 'MADOHUB_FIXTURE_TICK_MS=20', 'node', AGENT, 'claude-working', 'claude-idle']),
      );
    }
    expect(await s.waitFor(`#require('madohub').agents({ state = 'working' }) == 4`, 10000)).toBe(true);
    await sc.type(':MadoAgents<CR>');
    await sc.waitForText(/Agents · /);
    // The times of the list's draws while the fleet changes 150 times.
    const counted = await s.lua<{ changes: number; draws: number[] }>(`
      local fleet, picker = require('madohub.fleet'), require('madohub.picker')
      local n = { changes = 0, draws = {} }
      local stop = fleet.subscribe(function() n.changes = n.changes + 1 end)
      local render = picker.render
      picker.render = function(p) n.draws[#n.draws + 1] = vim.uv.hrtime() / 1e6 return render(p) end
      -- Until the fleet has changed 150 times (two seconds of four spinners on a quiet machine).
      vim.wait(20000, function() return n.changes >= 150 and #n.draws >= 3 end, 1)
      picker.render = render
      stop()
      return n`);
    // Drawn again and again, but never twice within a frame (25 ms) however often the fleet changed:
    // the changes of a frame are one draw, not one each.
    expect(counted.draws.length).toBeGreaterThanOrEqual(3);
    expect(counted.changes).toBeGreaterThan(counted.draws.length);
    const gaps = counted.draws.slice(1).map((t, i) => t - counted.draws[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(20);
    // Each spinner ends its turn: every row says Idle (the last change of each is drawn).
    for (const buf of spinners) await s.lua(`vim.fn.chansend(vim.bo[${buf}].channel, 'n')`);
    await sc.waitForText(/Agents · /);
    await s.waitFor(`#require('madohub').agents({ state = 'idle' }) == 4`, 10000);
    expect(await s.lua<number>(`return #require('madohub').agents({ state = 'idle' })`)).toBe(4);
    await sc.waitForNoText(/Working/);
    expect(sc.text().match(/Idle +claude/g)?.length).toBe(4);
  });
});
