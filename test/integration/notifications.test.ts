// A desktop notification an agent asks its terminal for (OSC 9, 777, 99) reaches the Node side through
// |TermRequest| in real Neovims (0.10 and 0.12) and tells its state beside the screen: Claude Code's
// permission notification, by each channel, makes a terminal whose screen still works Waiting. (Under
// tmux, Claude Code wraps kitty's OSC 99 in tmux's passthrough, which Neovim does not hand over.)
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTerminal, ROOT, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

const NOTIFIER = path.join(ROOT, 'test/fixtures/notifier.cjs');

describe.each(testNeovims())('Neovim $label: notifications an agent asks its terminal for', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it.each(['iterm2', 'ghostty', 'kitty'])(
    'by %s: Waiting, from the notification, said in :MadoExplain',
    async (channel) => {
      s = await startNeovim(exe);
      await s.lua(`require('madohub').setup({})`);
      const term = await openTerminal(s, ['node', NOTIFIER, 'claude-working', channel]);
      expect(await s.waitFor(`(require('madohub').state(${term}) or {}).state == 'waiting'`, 8000)).toBe(true);
      expect(await s.lua(`return require('madohub').state(${term})`)).toMatchObject({
        agent: 'claude',
        state: 'waiting',
        source: 'notification',
        detail: 'needs your permission',
      });
      const explained = await s.lua<string[]>(
        `vim.cmd('MadoExplain') return vim.api.nvim_buf_get_lines(0, 0, -1, false)`,
      );
      expect(explained.find((l) => l.startsWith('notifications:'))).toMatch(
        /^notifications: waiting \(\d+ s ago\): needs your permission$/,
      );
    },
    30000,
  );
});
