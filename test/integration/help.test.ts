// `:help madohub` as a user installing by hand meets it: doc/tags is written by the build, and is
// what Neovim's own :helptags writes; the help opens at its top; Neovim's own help works too (the
// fetched Neovims find their vimdoc parser).
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helpTags } from '../../scripts/helptags.mjs';
import { ROOT, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

describe.each(testNeovims())('Neovim $label: help', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('doc/tags is what :helptags writes; :help madohub opens at the top; :help of Neovim works', async () => {
    const doc = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-doc-')), 'doc');
    cpSync(path.join(ROOT, 'doc', 'madohub.txt'), path.join(doc, 'madohub.txt'));
    s = await startNeovim(exe);
    await s.lua('vim.cmd.helptags(...)', [doc]);
    expect(readFileSync(path.join(doc, 'tags'), 'utf8')).toBe(`${helpTags(doc).join('\n')}\n`);
    expect(readFileSync(path.join(ROOT, 'doc', 'tags'), 'utf8')).toBe(`${helpTags(path.join(ROOT, 'doc')).join('\n')}\n`);

    await s.lua("vim.cmd('help madohub')");
    expect(await s.lua<string>('return vim.fn.expand("%:t")')).toBe('madohub.txt');
    expect(await s.lua<number>('return vim.fn.line(".")')).toBeLessThanOrEqual(3);
    await s.lua("vim.cmd('help madohub-jobs')");
    expect(await s.lua<string>('return vim.api.nvim_get_current_line()')).toMatch(/\*madohub-jobs\*/);
    const ok = await s.lua<boolean>("return (pcall(vim.cmd, 'help nvim_buf_get_lines'))");
    expect(ok).toBe(true);
  });
});
