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
    expect(readFileSync(path.join(ROOT, 'doc', 'tags'), 'utf8')).toBe(
      `${helpTags(path.join(ROOT, 'doc')).join('\n')}\n`,
    );

    await s.lua("vim.cmd('help madohub')");
    expect(await s.lua<string>('return vim.fn.expand("%:t")')).toBe('madohub.txt');
    expect(await s.lua<number>('return vim.fn.line(".")')).toBeLessThanOrEqual(3);
    await s.lua("vim.cmd('help madohub-jobs')");
    expect(await s.lua<string>('return vim.api.nvim_get_current_line()')).toMatch(/\*madohub-jobs\*/);
    const ok = await s.lua<boolean>("return (pcall(vim.cmd, 'help nvim_buf_get_lines'))");
    expect(ok).toBe(true);
  });

  it("the doc's defaults of setup() are config.lua's, and its key table is keys.lua's actions with config.lua's keys", async () => {
    s = await startNeovim(exe);
    const doc = readFileSync(path.join(ROOT, 'doc', 'madohub.txt'), 'utf8').split('\n');
    // The `Defaults: >lua` block, read as Lua (its `keys = { ... }` is the table below).
    const from = doc.indexOf('Defaults: >lua') + 1;
    const block = doc
      .slice(from, doc.indexOf('<', from))
      .join('\n')
      .replace("require('madohub').setup(", 'return ')
      .replace(/\)\s*$/, '')
      .replaceAll('keys = { ... },', '');
    const same = await s.lua<[boolean, string]>(
      `local doc = assert(loadstring(...))()
       local defaults = vim.deepcopy(require('madohub.config').defaults)
       defaults.picker.keys = nil
       defaults.review.keys = nil
       return { vim.deep_equal(doc, defaults), vim.inspect(doc) .. '\\n~=\\n' .. vim.inspect(defaults) }`,
      [block],
    );
    expect(same[0], same[1]).toBe(true);

    // The key tables: each row's keys and action(s); `a/b` pairs its keys with the actions in order.
    for (const { tag, endsAt, config, module } of [
      // The table ends where the input line is described (a marker not found would read the rest of the doc).
      { tag: '*madohub-picker-keys*', endsAt: 'The input line: ', config: 'picker', module: 'madohub.picker.keys' },
      { tag: '*madohub-review-keys*', endsAt: 'mado review ~', config: 'review', module: 'madohub.review' },
    ]) {
      const at = doc.findIndex((l) => l.trim() === tag);
      const end = doc.findIndex((l, i) => i > at && l.startsWith(endsAt));
      expect(at).toBeGreaterThan(0);
      expect(end).toBeGreaterThan(at);
      const table: Record<string, string[]> = {};
      for (const line of doc.slice(at, end)) {
        const m = /^ {4}(\S(?:.*?\S)?) {2,}([a-z_]+(?:\/[a-z_]+)?)(?: {2,}|$)/.exec(line);
        if (!m) continue;
        const keys = m[1] === '1 … 9' ? ['1', '2', '3', '4', '5', '6', '7', '8', '9'] : m[1]!.split(' ');
        const actions = m[2]!.split('/');
        for (const [i, k] of keys.entries()) (table[actions.length > 1 ? actions[i]! : actions[0]!] ??= []).push(k);
      }
      const lua = await s.lua<{ keys: Record<string, string>; order: string[] }>(
        `return { keys = require('madohub.config').defaults.${config}.keys, order = require('${module}').order }`,
      );
      const byAction: Record<string, string[]> = {};
      for (const [key, action] of Object.entries(lua.keys)) (byAction[action] ??= []).push(key);
      expect(Object.keys(table).sort(), tag).toEqual([...lua.order].sort());
      for (const action of lua.order) expect(table[action]?.sort(), action).toEqual(byAction[action]?.sort());
    }
  });
});
