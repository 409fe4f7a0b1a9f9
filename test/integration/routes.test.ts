// :MadoRoute in Neovim (0.10 and 0.12) with the real Node side: fixture agents in terminals that
// take replies (`bin/replier`: `work` makes one work 1.5 s and end its turn with a completion line).
// Routes over many turns: turn-loops.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { said, testNeovims } from './neovim.js';
import { has, useRoutesNeovim } from './routes-harness.js';
import { elapse } from '../helpers/wait.js';

describe.each(testNeovims())('Neovim $label: routes', ({ path: exe }) => {
  const r = useRoutesNeovim(exe);
  const { setup, type } = r;

  it(':MadoRoute typed on the command line: completed and parsed by the Node side (Lua keeps no list of options), its errors said', async () => {
    const { a } = await setup();
    await r.s.lua(`vim.api.nvim_set_current_buf(${a})`);
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute on=', 'cmdline')`)).toEqual([
      'on=done',
      'on=turn',
      'on=waiting',
    ]);
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute template=', 'cmdline')`)).toEqual([
      'template=review',
      'template=continue',
      'template=loop',
    ]);
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute rev', 'cmdline')`)).toEqual([
      'reviewer',
      'review',
    ]);
    // Only what can work where the cursor is: no subcommand after an end, no end after two, no option twice.
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute writer ', 'cmdline')`)).not.toContain(
      'list',
    );
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute writer re', 'cmdline')`)).toEqual([
      'reviewer',
      'review',
    ]);
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute writer reviewer re', 'cmdline')`)).toEqual([
      'review',
    ]);
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute reviewer on=turn on', 'cmdline')`)).toEqual([
      'once',
    ]);
    expect(await r.s.lua<string[]>(`return vim.fn.getcompletion('MadoRoute list ', 'cmdline')`)).toEqual([]);
    // Typed as a person types it, through the command line.
    await r.s.lua(
      `vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute reviewer colour=red<CR>', true, false, true), 'mx', false)`,
    );
    // Said when the Node side answers: the editor does not wait for it.
    expect(await r.s.waitFor(said(':MadoRoute: unknown option colour='))).toBe(true);
    expect(await r.s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /:MadoRoute: unknown option colour= \(on=, send=, template=, hops=, once, review\)/,
    );
    await r.s.lua(
      `vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute reviewer on=turn hops=5<CR>', true, false, true), 'mx', false)`,
    );
    expect(await r.s.waitFor(said('writer → reviewer'))).toBe(true);
    expect(await r.s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /route \w+ {2}writer → reviewer {2}on=turn send=last hops=5/,
    );
    await r.s.lua(
      `vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute nobody<CR>', true, false, true), 'mx', false)`,
    );
    expect(await r.s.waitFor(said(':MadoRoute: no agent "nobody"'))).toBe(true);
    // :MadoRoute list twice: one float with the routes, not two stacked; q closes it.
    const floats = `#vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())`;
    const floatWin = `(vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())[1] or 0)`;
    const typeList = () =>
      r.s.lua(
        `vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute list<CR>', true, false, true), 'mx', false)`,
      );
    await typeList();
    expect(await r.s.waitFor(`${floats} == 1`, 3000)).toBe(true);
    const first = await r.s.lua<number>(`return ${floatWin}`);
    // The second answer comes when the Node side sends it: wait for its float, not just for one float.
    await typeList();
    expect(await r.s.waitFor(`${floatWin} ~= ${first} and ${floats} == 1`, 3000)).toBe(true);
    expect(await r.s.lua<number>(`return ${floats}`)).toBe(1);
    expect(await r.s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`)).toMatch(
      /writer → reviewer/,
    );
    await r.s.lua(`vim.api.nvim_feedkeys('q', 'mx', false)`);
    expect(await r.s.lua<number>(`return ${floats}`)).toBe(0);
  });

  it('kill -9 of the Node process: this Neovim’s routes, the names given to its terminals and a payload held for a terminal survive it, and the payload goes once', async () => {
    const { a, b } = await setup();
    await r.s.lua(`vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}')`);
    expect(await r.s.waitFor(`#require('madohub').routes() == 1`)).toBe(true);
    // A draft in the reviewer's input line holds the payload of the writer's turn.
    await type(b, 'dra');
    expect(await r.s.waitFor(has(b, '❯ dra'), 5000)).toBe(true);
    await elapse(300);
    await type(a, 'work\r');
    expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'held-draft'`, 10000)).toBe(
      true,
    );
    const before = await r.s.lua<number>(`return require('madohub.node').pid()`);
    process.kill(before, 'SIGKILL');
    expect(
      await r.s.waitFor(`require('madohub.node').pid() ~= nil and require('madohub.node').pid() ~= ${before}`, 15000),
    ).toBe(true);
    // The names given to the terminals are back (their winbars say them), and so is the route, kept by this Neovim; the payload waits again.
    expect(
      await r.s.waitFor(
        `(require('madohub.fleet').find('term:${a}') or {}).name == 'writer' and require('madohub.fleet').find('term:${a}').named == true`,
        8000,
      ),
    ).toBe(true);
    expect(
      await r.s.waitFor(
        `require('madohub.ui.label').render(${b}):find('reviewer · Claude Code', 1, true) ~= nil`,
        8000,
      ),
    ).toBe(true);
    expect(await r.s.waitFor(`#require('madohub').routes() == 1`, 8000)).toBe(true);
    expect(await r.s.lua(`return require('madohub').routes()[1].source`)).toBe(`term:${a}`);
    expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'held-draft'`, 8000)).toBe(
      true,
    );
    expect(await r.s.lua<boolean>(`return ${has(b, 'You said: [mado route')}`)).toBe(false);
    // The draft goes: the payload is delivered, once.
    await type(b, '\x7f\x7f\x7f');
    expect(await r.s.waitFor(has(b, 'You said: [mado route writer → reviewer · hop 1/3]'), 10000)).toBe(true);
    // Long enough for a second delivery (none may come).
    await elapse(1500);
    const text = await r.s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${b}, 0, -1, false), '\\n')`);
    expect(text.split('You said: [mado route').length - 1).toBe(1);
    // And the route fires again after the restart.
    await type(a, 'work\r');
    expect(
      await r.s.waitFor(
        `#vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false)) == 2`,
        15000,
      ),
    ).toBe(true);
  }, 90000);

  it('a finished turn goes to the target with its provenance; shows in the winbar; a busy target gets it when its turn ends; a draft holds it', async () => {
    const { a, b } = await setup();
    await r.s.lua(`vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}')`);
    expect(await r.s.waitFor(`#require('madohub').routes() == 1`)).toBe(true);
    // Its answer is said when it comes (the routes' list may reach Lua first).
    expect(await r.s.waitFor(said('writer → reviewer'))).toBe(true);
    expect(await r.s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /route \w+ {2}writer → reviewer {2}on=done send=last hops=3/,
    );
    const routes = await r.s.lua<{ source: string; target: string }[]>(`return require('madohub').routes()`);
    expect(routes).toMatchObject([{ source: `term:${a}`, target: `term:${b}`, on: 'done', send: 'last', hops: 3 }]);
    expect(await r.s.lua<string>(`return require('madohub.ui.label').render(${a})`)).toContain('→ reviewer');

    // A's turn ends: B gets exactly the provenance line and the answer the screen shows.
    await type(a, 'work\r');
    expect(await r.s.waitFor(has(b, 'You said: [mado route writer → reviewer · hop 1/3]'), 10000)).toBe(true);
    expect(
      await r.s.lua<boolean>(`return ${has(b, '[mado route writer → reviewer · hop 1/3]\nTurn 1 is done.')}`),
    ).toBe(true);
    const fired = await r.s.lua<{ source: string; target: string; hop: number; bytes: number }[]>('return _G.fired');
    expect(fired).toMatchObject([{ source: `term:${a}`, target: `term:${b}`, hop: 1 }]);
    expect(fired[0]!.bytes).toBe(Buffer.byteLength('[mado route writer → reviewer · hop 1/3]\nTurn 1 is done.'));

    // B is busy when A's next turn ends: queued, then sent when B's turn ends.
    await elapse(2100); // past the route's 2 s between firings
    await type(a, 'work\r');
    await elapse(300);
    await type(b, 'work\r');
    expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'queued'`, 6000)).toBe(
      true,
    );
    const before = await r.s.lua<number>(
      `return #vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false))`,
    );
    expect(before).toBe(1);
    expect(
      await r.s.waitFor(
        `#vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false)) == 2`,
        10000,
      ),
    ).toBe(true);
    expect(await r.s.lua<string[]>('return _G.held')).toContain('queued');

    // A draft stands in B's input line when A's turn ends: held (shown in B's row), sent once it is erased.
    await elapse(2100); // past the route's 2 s between firings
    await type(b, 'dra');
    expect(await r.s.waitFor(has(b, '❯ dra'), 5000)).toBe(true);
    await type(a, 'work\r');
    expect(await r.s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'held-draft'`, 8000)).toBe(
      true,
    );
    expect(
      await r.s.waitFor(
        `vim.fn.execute('messages'):find(': held: draft for reviewer (sent when it may)', 1, true) ~= nil`,
        3000,
      ),
    ).toBe(true);
    await type(b, '\x7f\x7f\x7f');
    expect(
      await r.s.waitFor(
        `#vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false)) == 3`,
        10000,
      ),
    ).toBe(true);
  }, 60000);

  it('A → B → A stops at the chain; review edits the payload; a wiped target removes its route; send=diff into a buffer', async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'madohub-routes-repo-'));
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], {
        encoding: 'utf8',
      });
    git('init', '-q');
    writeFileSync(path.join(repo, 'parser.ts'), 'export const x = 1;\n');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    writeFileSync(path.join(repo, 'parser.ts'), 'export const x = 2;\n');
    const { a, b } = await setup(repo);

    // A → B and B → A: the second closes a cycle, refused unless hops= is given.
    const ab = await r.s.lua<string>(`return require('madohub').route(${a}, ${b}, { template = 'loop' })`);
    const refused = await r.s.lua<string>(
      `local ok, err = pcall(require('madohub').route, ${b}, ${a}, { template = 'loop' }) return err`,
    );
    expect(refused).toMatch(
      /^madohub\.route: this route closes a cycle \(writer leads back to reviewer\); give hops=N to allow it$/,
    );
    await r.s.lua(`require('madohub').route(${b}, ${a}, { template = 'loop', hops = 5 })`);
    await type(a, 'work\r');
    // B gets A's payload, works, ends its turn: its route back to A is dropped (A is in the chain).
    expect(
      await r.s.waitFor(`vim.fn.execute('messages'):find('is in this chain already', 1, true) ~= nil`, 15000),
    ).toBe(true);
    expect(await r.s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /not sent: term:\d+ is in this chain already \(term:\d+ → term:\d+ → term:\d+\)/,
    );
    const aSaid = await r.s.lua<number>(
      `return #vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${a}, 0, -1, false))`,
    );
    expect(aSaid).toBe(0);
    await r.s.lua(`require('madohub').unroute(...)`, [ab]);
    await r.s.lua(`vim.cmd('MadoRoute clear')`);
    expect(await r.s.waitFor(`#require('madohub').routes() == 0`, 3000)).toBe(true);

    // review: the payload opens in a buffer; what it holds when written is what goes.
    await r.s.lua(`require('madohub').route(${a}, ${b}, { review = true })`);
    await elapse(2100); // past the route's 2 s between firings
    await type(a, 'work\r');
    expect(await r.s.waitFor(`vim.api.nvim_buf_get_name(0):find('mado://route/', 1, true) ~= nil`, 10000)).toBe(true);
    await r.s.lua(`vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'Edited by the user.' }) vim.cmd('write')`);
    expect(await r.s.waitFor(has(b, 'Edited by the user.'), 8000)).toBe(true);
    await r.s.lua(`vim.cmd('MadoRoute clear')`);
    expect(await r.s.waitFor(`#require('madohub').routes() == 0`, 3000)).toBe(true);

    // send=diff into a normal buffer: the change of A's turn, appended — that turn's own (x = 2 → 3),
    // not the folder's difference from its commit (x = 1, the user's edit before the turn).
    const notes = await r.s.lua<number>(`vim.cmd('new') return vim.api.nvim_get_current_buf()`);
    await r.s.lua(`require('madohub').route(${a}, ${notes}, { send = 'diff' })`);
    await elapse(2100); // past the route's 2 s between firings
    await type(a, 'edit write parser.ts export const x = 3;\\n\r');
    expect(await r.s.waitFor(has(notes, '+export const x = 3;'), 10000)).toBe(true);
    const sent = await r.s.lua<string>(
      `return table.concat(vim.api.nvim_buf_get_lines(${notes}, 0, -1, false), '\\n')`,
    );
    expect(sent).toContain('-export const x = 2;');
    expect(sent).not.toContain('export const x = 1;');
    expect(await r.s.lua<string>(`return vim.api.nvim_buf_get_lines(${notes}, 0, 1, false)[1]`)).toBe(
      '[mado route writer → ' +
        (await r.s.lua<string>(
          `for _, r in ipairs(require('madohub.routes').get()) do if r.target == 'buf:${notes}' then return require('madohub.routes').target_name(r) end end`,
        )) +
        ' · hop 1/3]',
    );

    // A wiped target: its route goes, with one message.
    await r.s.lua(`vim.cmd('MadoRoute clear')`);
    expect(await r.s.waitFor(`#require('madohub').routes() == 0`, 3000)).toBe(true);
    await r.s.lua(`require('madohub').route(${a}, ${b})`);
    await r.s.lua(`vim.api.nvim_buf_delete(${b}, { force = true })`);
    expect(await r.s.waitFor(`#require('madohub').routes() == 0`, 5000)).toBe(true);
    expect(await r.s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /route \w+ removed: its target term:\d+ is gone/,
    );
  }, 90000);
});
