// A user's rule file in a real Neovim (0.10 and 0.12): it decides a terminal's state, a change to it
// shows without the terminal drawing anything (a waiting prompt does not redraw), :checkhealth lists
// the file with what it refused, and a file with errors is said once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAgent, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

describe.each(testNeovims())('Neovim $label: rules of your own', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('decide, are read again when changed, and show in :checkhealth and :MadoExplain', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'madohub-rules-config-'));
    const dir = path.join(config, 'madohub', 'rules');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'claude.json');
    // Claude Code's idle screen, its footer taken for a new version's question; and a bad pattern.
    writeFileSync(
      file,
      JSON.stringify({ waiting: [{ text: '? for shortcuts', name: 'new-question' }, { pattern: '(a+)+' }] }),
    );
    s = await startNeovim(exe, { XDG_CONFIG_HOME: config });
    await s.lua(`
      _G.said = {}
      local notify = vim.notify
      vim.notify = function(msg, ...) table.insert(_G.said, msg) return notify(msg, ...) end
      require('madohub').setup({})`);
    const term = await openAgent(s, ['claude-idle']);
    expect(await s.waitFor(`(require('madohub').state(${term}) or {}).state == 'waiting'`, 10000)).toBe(true);
    expect(await s.waitFor(`#_G.said > 0`, 5000)).toBe(true);
    const said = await s.lua<string[]>('return _G.said');
    expect(said.filter((m) => m.includes('refused'))).toEqual([
      'madohub: claude.json: 1 refused (:checkhealth madohub)',
    ]);

    const explained = await s.lua<string[]>(`
      vim.api.nvim_set_current_buf(${term})
      vim.cmd('MadoExplain')
      return vim.api.nvim_buf_get_lines(0, 0, -1, false)`);
    expect(explained).toContain(`           (your rule, from ${file})`);
    expect(explained.find((l) => l.startsWith('  decided:'))).toMatch(
      /^ {2}decided: rule user\/claude\/new-question, row \d+: \? for shortcuts$/,
    );
    await s.lua(`vim.cmd('close')`);

    const health = await s.lua<string>(
      `vim.cmd('checkhealth madohub') local t = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n') vim.cmd('bwipe') return t`,
    );
    expect(health).toContain(`${file}: 1 rules; refused:`);
    expect(health).toContain('"waiting"[2]: pattern /(a+)+/');

    // The file changes while the screen stays as it is: the terminal is read again.
    writeFileSync(file, JSON.stringify({ idle: ['? for shortcuts'] }));
    expect(await s.waitFor(`(require('madohub').state(${term}) or {}).state == 'idle'`, 8000)).toBe(true);
    rmSync(file);
    writeFileSync(path.join(dir, 'claude.json'), JSON.stringify({ failed: ['? for shortcuts'] }));
    expect(await s.waitFor(`(require('madohub').state(${term}) or {}).state == 'failed'`, 8000)).toBe(true);
  }, 40000);

  it('a change of a rule file keeps the time in state of a terminal whose state it leaves as it was', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'madohub-rules-config-'));
    const dir = path.join(config, 'madohub', 'rules');
    mkdirSync(dir, { recursive: true });
    s = await startNeovim(exe, { XDG_CONFIG_HOME: config });
    await s.lua(`require('madohub').setup({})`);
    const claude = await openAgent(s, ['claude-idle']);
    const codex = await openAgent(s, ['codex-idle']);
    expect(
      await s.waitFor(
        `(require('madohub').state(${claude}) or {}).state == 'idle' and (require('madohub').state(${codex}) or {}).agent == 'codex'`,
        10000,
      ),
    ).toBe(true);
    const before = await s.lua<{ since: number; winbar: string }>(
      `return { since = require('madohub').state(${claude}).since }`,
    );
    // A rule of Codex's changes the Codex terminal's state: every terminal is read again.
    writeFileSync(path.join(dir, 'codex.json'), JSON.stringify({ waiting: ['create an AGENTS.md file'] }));
    expect(await s.waitFor(`(require('madohub').state(${codex}) or {}).state == 'waiting'`, 8000)).toBe(true);
    const after = await s.lua<{ state: string; since: number }>(`return require('madohub').state(${claude})`);
    expect(after).toMatchObject({ state: 'idle', since: before.since });
  }, 40000);

  it('a rules folder made after Neovim started is read', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'madohub-rules-config-'));
    mkdirSync(path.join(config, 'madohub'), { recursive: true });
    s = await startNeovim(exe, { XDG_CONFIG_HOME: config });
    await s.lua(`require('madohub').setup({})`);
    const term = await openAgent(s, ['claude-idle']);
    expect(await s.waitFor(`(require('madohub').state(${term}) or {}).state == 'idle'`, 10000)).toBe(true);
    const dir = path.join(config, 'madohub', 'rules');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'claude.json'), JSON.stringify({ waiting: ['? for shortcuts'] }));
    expect(await s.waitFor(`(require('madohub').state(${term}) or {}).state == 'waiting'`, 8000)).toBe(true);
  }, 40000);
});
