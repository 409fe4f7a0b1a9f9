// A node-pty built for another Node (a version manager switched Node after `npm ci`): the Node
// process warns once, and :checkhealth names it, each with the command that fixes it.
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodePtyProblem } from '../../src/jobs/node-pty-check.js';
import { ROOT, openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

/** What Node says when a native module was built for another Node (its exact words). */
const ABI_ERROR =
  "The module '/p/node_modules/node-pty/build/Release/pty.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).";

describe('node-pty problems in words', () => {
  it('name the Node, the module versions and the command', () => {
    expect(nodePtyProblem(ABI_ERROR, 'v24.11.0', '/p')).toBe(
      'node-pty was built for another Node (module version 115; Node v24.11.0 needs 137): run `npm rebuild node-pty` in /p',
    );
    expect(nodePtyProblem("Cannot find module 'node-pty'", 'v20.1.0', '/p')).toBe(
      'node-pty is not installed: run `npm ci` in /p',
    );
  });
});

describe.each(testNeovims())('Neovim $label: a node-pty built for another Node', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('is told once when the Node process starts, and by :checkhealth, with the fix', async () => {
    // The plugin as installed, with a node-pty that fails the way a build for another Node does.
    const root = mkdtempSync(path.join(tmpdir(), 'madohub-root-'));
    for (const dir of ['lua', 'plugin', 'rplugin', 'doc'])
      cpSync(path.join(ROOT, dir), path.join(root, dir), { recursive: true });
    const pty = path.join(root, 'node_modules', 'node-pty');
    mkdirSync(pty, { recursive: true });
    writeFileSync(path.join(pty, 'package.json'), JSON.stringify({ name: 'node-pty', main: 'index.js' }));
    writeFileSync(
      path.join(pty, 'index.js'),
      `throw Object.assign(new Error(${JSON.stringify(ABI_ERROR)}), { code: 'ERR_DLOPEN_FAILED' });\n`,
    );
    s = await startNeovim(exe);
    await s.lua('vim.opt.rtp:remove(...) vim.opt.rtp:prepend(select(2, ...))', [ROOT, root]);
    await openTerminal(s, ['sh']);
    const told = `vim.fn.execute('messages'):find('background jobs cannot run: node-pty was built for another Node (module version 115;', 1, true) ~= nil`;
    expect(await s.waitFor(told, 8000)).toBe(true);
    const messages = await s.lua<string>("return vim.fn.execute('messages')");
    expect(messages).toContain(`run \`npm rebuild node-pty\` in ${root}`);
    expect(messages.split('background jobs cannot run').length).toBe(2);
    await s.lua("vim.cmd('checkhealth madohub')");
    const report = (await s.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')).join('\n');
    expect(report).toMatch(/Background jobs cannot run: node-pty was built for another Node .*npm rebuild node-pty/);
  });
});
