// :MadoRoute in Neovim (0.10 and 0.12) with the real Node side: fixture agents in terminals that
// take replies (`bin/replier`: `work` makes one work 1.5 s and end its turn with a completion line).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIX } from './jobs-harness.js';
import { FAKE_CLAUDE, openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

const REPLIER = path.join(FIX, 'bin/replier');

const has = (buf: number, text: string): string =>
  `table.concat(vim.api.nvim_buf_get_lines(${buf}, 0, -1, false), '\\n'):find(${JSON.stringify(text)}, 1, true) ~= nil`;

describe.each(testNeovims())('Neovim $label: routes', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  /** A Neovim with two replier agents, named writer and reviewer; their buffers. */
  const setup = async (cwd?: string, env: { a?: Record<string, string>; b?: Record<string, string> } = {}): Promise<{ a: number; b: number }> => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-routes-'));
    s = await startNeovim(exe, { MADOHUB_JOBS_DIR: path.join(base, 'jobs'), MADOHUB_RUNTIME_DIR: path.join(base, 'run'), CLAUDE_CONFIG_DIR: path.join(base, 'claude') });
    // A template whose payload ends with `work`: the replier that gets it works, and ends a turn.
    await s.lua(`require('madohub').setup({ routes = { templates = { loop = 'Reply with: work\\nwork' } } })`);
    const open = (dir: string | undefined, vars: Record<string, string> = {}): Promise<number> =>
      s!.lua<number>(
        `vim.cmd('new')
         local opts = { cwd = select(1, ...), env = select(2, ...) }
         if vim.fn.has('nvim-0.11') == 1 then opts.term = true; vim.fn.jobstart({ 'node', '${REPLIER}' }, opts) else vim.fn.termopen({ 'node', '${REPLIER}' }, opts) end
         return vim.api.nvim_get_current_buf()`,
        [dir ?? process.cwd(), { MADOHUB_FIXTURE_UNUSED: '1', ...vars }],
      );
    const a = await open(cwd, env.a);
    const b = await open(undefined, env.b);
    expect(await s.waitFor(`#require('madohub').agents({ kind = 'terminal', state = 'idle' }) == 2`, 10000)).toBe(true);
    for (const [buf, name] of [[a, 'writer'], [b, 'reviewer']] as const) {
      await s.lua(`require('madohub.node').call('mark', { id = 'term:${buf}', name = '${name}' }, function() end)`);
    }
    expect(await s.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).name == 'reviewer' and (require('madohub.fleet').find('term:${a}') or {}).name == 'writer'`, 5000)).toBe(true);
    await s.lua(`_G.fired, _G.held = {}, {}
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoRouteFired', callback = function(ev) table.insert(_G.fired, ev.data) end })
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoRouteHeld', callback = function(ev) table.insert(_G.held, ev.data.reason) end })`);
    return { a, b };
  };
  const type = (buf: number, text: string): Promise<unknown> => s!.lua(`vim.api.nvim_chan_send(vim.bo[${buf}].channel, ...)`, [text]);

  it(':MadoRoute typed on the command line: completed and parsed by the Node side (Lua keeps no list of options), its errors said', async () => {
    const { a } = await setup();
    await s!.lua(`vim.api.nvim_set_current_buf(${a})`);
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute on=', 'cmdline')`)).toEqual(['on=done', 'on=turn', 'on=waiting']);
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute template=', 'cmdline')`)).toEqual(['template=review', 'template=continue', 'template=loop']);
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute rev', 'cmdline')`)).toEqual(['reviewer', 'review']);
    // Only what can work where the cursor is: no subcommand after an end, no end after two, no option twice.
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute writer ', 'cmdline')`)).not.toContain('list');
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute writer re', 'cmdline')`)).toEqual(['reviewer', 'review']);
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute writer reviewer re', 'cmdline')`)).toEqual(['review']);
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute reviewer on=turn on', 'cmdline')`)).toEqual(['once']);
    expect(await s!.lua<string[]>(`return vim.fn.getcompletion('MadoRoute list ', 'cmdline')`)).toEqual([]);
    // Typed as a person types it, through the command line.
    await s!.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute reviewer colour=red<CR>', true, false, true), 'mx', false)`);
    expect(await s!.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/:MadoRoute: unknown option colour= \(on=, send=, template=, hops=, once, review\)/);
    await s!.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute reviewer on=turn hops=5<CR>', true, false, true), 'mx', false)`);
    expect(await s!.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/route \w+  writer → reviewer  on=turn send=last hops=5/);
    await s!.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute nobody<CR>', true, false, true), 'mx', false)`);
    expect(await s!.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/:MadoRoute: no agent "nobody"/);
    // :MadoRoute list twice: one float with the routes, not two stacked; q closes it.
    const floats = `#vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())`;
    for (let i = 0; i < 2; i++) await s!.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute list<CR>', true, false, true), 'mx', false)`);
    expect(await s!.waitFor(`${floats} == 1`, 3000)).toBe(true);
    expect(await s!.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`)).toMatch(/writer → reviewer/);
    await s!.lua(`vim.api.nvim_feedkeys('q', 'mx', false)`);
    expect(await s!.lua<number>(`return ${floats}`)).toBe(0);
  });

  it('kill -9 of the Node process: this Neovim’s routes, the names given to its terminals and a payload held for a terminal survive it, and the payload goes once', async () => {
    const { a, b } = await setup();
    await s!.lua(`vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}')`);
    // A draft in the reviewer's input line holds the payload of the writer's turn.
    await type(b, 'dra');
    expect(await s!.waitFor(has(b, '❯ dra'), 5000)).toBe(true);
    await s!.lua('vim.wait(300)');
    await type(a, 'work\r');
    expect(await s!.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'held: draft'`, 10000)).toBe(true);
    const before = await s!.lua<number>(`return require('madohub.node').pid()`);
    process.kill(before, 'SIGKILL');
    expect(await s!.waitFor(`require('madohub.node').pid() ~= nil and require('madohub.node').pid() ~= ${before}`, 15000)).toBe(true);
    // The names given to the terminals are back (their winbars say them), and so is the route, kept by this Neovim; the payload waits again.
    expect(await s!.waitFor(`(require('madohub.fleet').find('term:${a}') or {}).name == 'writer' and require('madohub.fleet').find('term:${a}').named == true`, 8000)).toBe(true);
    expect(await s!.waitFor(`require('madohub.ui.label').render(${b}):find('reviewer · Claude Code', 1, true) ~= nil`, 8000)).toBe(true);
    expect(await s!.waitFor(`#require('madohub').routes() == 1`, 8000)).toBe(true);
    expect(await s!.lua(`return require('madohub').routes()[1].source`)).toBe(`term:${a}`);
    expect(await s!.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'held: draft'`, 8000)).toBe(true);
    expect(await s!.lua<boolean>(`return ${has(b, 'You said: [mado route')}`)).toBe(false);
    // The draft goes: the payload is delivered, once.
    await type(b, '\x7f\x7f\x7f');
    expect(await s!.waitFor(has(b, 'You said: [mado route writer → reviewer · hop 1/3]'), 10000)).toBe(true);
    await s!.lua('vim.wait(1500)');
    const text = await s!.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${b}, 0, -1, false), '\\n')`);
    expect(text.split('You said: [mado route').length - 1).toBe(1);
    // And the route fires again after the restart.
    await type(a, 'work\r');
    expect(await s!.waitFor(`#vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false)) == 2`, 15000)).toBe(true);
  }, 90000);

  it('a finished turn goes to the target with its provenance; shows in the winbar; a busy target gets it when its turn ends; a draft holds it', async () => {
    const { a, b } = await setup();
    await s!.lua(`vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}')`);
    expect(await s!.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/route \w+  writer → reviewer  on=done send=last hops=3/);
    const routes = await s!.lua<{ source: string; target: string }[]>(`return require('madohub').routes()`);
    expect(routes).toMatchObject([{ source: `term:${a}`, target: `term:${b}`, on: 'done', send: 'last', hops: 3 }]);
    expect(await s!.lua<string>(`return require('madohub.ui.label').render(${a})`)).toContain('→ reviewer');

    // A's turn ends: B gets exactly the provenance line and the answer the screen shows.
    await type(a, 'work\r');
    expect(await s!.waitFor(has(b, 'You said: [mado route writer → reviewer · hop 1/3]'), 10000)).toBe(true);
    expect(await s!.lua<boolean>(`return ${has(b, '[mado route writer → reviewer · hop 1/3]\nTurn 1 is done.')}`)).toBe(true);
    const fired = await s!.lua<{ source: string; target: string; hop: number; bytes: number }[]>('return _G.fired');
    expect(fired).toMatchObject([{ source: `term:${a}`, target: `term:${b}`, hop: 1 }]);
    expect(fired[0]!.bytes).toBe(Buffer.byteLength('[mado route writer → reviewer · hop 1/3]\nTurn 1 is done.'));

    // B is busy when A's next turn ends: queued, then sent when B's turn ends.
    await s!.lua('vim.wait(2100)');
    await type(a, 'work\r');
    await s!.lua('vim.wait(300)');
    await type(b, 'work\r');
    expect(await s!.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'queued'`, 6000)).toBe(true);
    const before = await s!.lua<number>(`return #vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false))`);
    expect(before).toBe(1);
    expect(
      await s!.waitFor(`#vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false)) == 2`, 10000),
    ).toBe(true);
    expect(await s!.lua<string[]>('return _G.held')).toContain('queued');

    // A draft stands in B's input line when A's turn ends: held (shown in B's row), sent once it is erased.
    await s!.lua('vim.wait(2100)');
    await type(b, 'dra');
    expect(await s!.waitFor(has(b, '❯ dra'), 5000)).toBe(true);
    await type(a, 'work\r');
    expect(await s!.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending == 'held: draft'`, 8000)).toBe(true);
    expect(await s!.waitFor(`vim.fn.execute('messages'):find(': held: draft for reviewer (sent when it may)', 1, true) ~= nil`, 3000)).toBe(true);
    await type(b, '\x7f\x7f\x7f');
    expect(
      await s!.waitFor(`#vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false)) == 3`, 10000),
    ).toBe(true);
  }, 60000);

  it('two routes to one idle target are two prompts, each turn of three carrying that turn’s answer, once, after the turn ended', async () => {
    // The writer's turns take 2.1 s (one route fires at most every 2 s); the reviewer, as the real
    // agents do while they submit, takes what comes within 400 ms of an Enter as one prompt.
    const { a, b } = await setup(undefined, { a: { MADOHUB_FIXTURE_WORK_MS: '2100' }, b: { MADOHUB_FIXTURE_SUBMIT_MS: '400' } });
    await s!.lua(`vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}') vim.cmd('MadoRoute term:${b} send=screen')`);
    expect(await s!.lua<unknown[]>(`return require('madohub').routes()`)).toHaveLength(2);
    const count = (text: string): string =>
      `#vim.tbl_filter(function(l) return l:find(${JSON.stringify(text)}, 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false))`;
    for (let turn = 1; turn <= 3; turn++) {
      await type(a, 'work\r');
      // Nothing before the turn ended.
      expect(await s!.waitFor(`(require('madohub.fleet').find('term:${a}') or {}).state == 'working'`, 5000)).toBe(true);
      expect(await s!.lua<number>(`return ${count('You said: [mado route')}`)).toBe(2 * (turn - 1));
      expect(await s!.waitFor(`${count('You said: [mado route')} == ${2 * turn}`, 15000)).toBe(true);
      // The plain route's text is this turn's answer, and came once.
      const text = await s!.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${b}, 0, -1, false), '\\n')`);
      expect(text.split(`You said: [mado route writer → reviewer · hop 1/3]\nTurn ${turn} is done.\n`).length - 1).toBe(1);
      for (let earlier = 1; earlier < turn; earlier++) expect(text.split(`hop 1/3]\nTurn ${earlier} is done.`).length - 1).toBe(1);
    }
  }, 90000);

  it('a payload held for a menu goes in once it is answered, though the input line loses an Enter that comes too soon: each of three turns once', async () => {
    const { a } = await setup();
    // The target: an approver that asks again 1.5 s after each answer, whose input line loses an Enter within 400 ms of one.
    const b = await s!.lua<number>(
      `vim.cmd('new')
       local opts = { env = { MADOHUB_FIXTURE_ENTER_LOST_MS = '400', MADOHUB_FIXTURE_ASK_AGAIN_MS = '1500' } }
       if vim.fn.has('nvim-0.11') == 1 then opts.term = true; vim.fn.jobstart({ 'node', '${path.join(FIX, 'bin/approver')}' }, opts) else vim.fn.termopen({ 'node', '${path.join(FIX, 'bin/approver')}' }, opts) end
       return vim.api.nvim_get_current_buf()`,
    );
    expect(await s!.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).state == 'waiting'`, 8000)).toBe(true);
    await s!.lua(`vim.api.nvim_set_current_buf(${a}) vim.cmd('MadoRoute term:${b}')`);
    const has = (text: string): string => `#vim.tbl_filter(function(l) return l:find(${JSON.stringify(text)}, 1, true) end, vim.api.nvim_buf_get_lines(${b}, 0, -1, false))`;
    for (let turn = 1; turn <= 3; turn++) {
      expect(await s!.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).state == 'waiting'`, 8000)).toBe(true);
      await type(a, 'work\r');
      // Held while the menu shows (a route's text is no answer to it).
      expect(await s!.waitFor(`(require('madohub.fleet').find('term:${b}') or {}).pending ~= ''`, 15000)).toBe(true);
      await type(b, '1');
      expect(await s!.waitFor(`${has(`Turn ${turn} is done.`)} >= 1 and ${has('got: [mado route')} == ${turn}`, 10000), await s!.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${b}, 0, -1, false), '\\n')`)).toBe(true);
    }
  }, 90000);

  it('A → B → A stops at the chain; review edits the payload; a wiped target removes its route; send=diff into a buffer', async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'madohub-routes-repo-'));
    const git = (...args: string[]): string => execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(path.join(repo, 'parser.ts'), 'export const x = 1;\n');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    writeFileSync(path.join(repo, 'parser.ts'), 'export const x = 2;\n');
    const { a, b } = await setup(repo);

    // A → B and B → A: the second closes a cycle, refused unless hops= is given.
    const ab = await s!.lua<string>(`return require('madohub').route(${a}, ${b}, { template = 'loop' })`);
    const refused = await s!.lua<string>(`local ok, err = pcall(require('madohub').route, ${b}, ${a}, { template = 'loop' }) return err`);
    expect(refused).toMatch(/^madohub\.route: this route closes a cycle \(writer leads back to reviewer\); give hops=N to allow it$/);
    await s!.lua(`require('madohub').route(${b}, ${a}, { template = 'loop', hops = 5 })`);
    await type(a, 'work\r');
    // B gets A's payload, works, ends its turn: its route back to A is dropped (A is in the chain).
    expect(await s!.waitFor(`vim.fn.execute('messages'):find('is in this chain already', 1, true) ~= nil`, 15000)).toBe(true);
    expect(await s!.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/not sent: term:\d+ is in this chain already \(term:\d+ → term:\d+ → term:\d+\)/);
    const aSaid = await s!.lua<number>(`return #vim.tbl_filter(function(l) return l:find('You said: [mado route', 1, true) end, vim.api.nvim_buf_get_lines(${a}, 0, -1, false))`);
    expect(aSaid).toBe(0);
    await s!.lua(`require('madohub').unroute(...)`, [ab]);
    await s!.lua(`vim.cmd('MadoRoute clear')`);
    expect(await s!.waitFor(`#require('madohub').routes() == 0`, 3000)).toBe(true);

    // review: the payload opens in a buffer; what it holds when written is what goes.
    await s!.lua(`require('madohub').route(${a}, ${b}, { review = true })`);
    await s!.lua('vim.wait(2100)');
    await type(a, 'work\r');
    expect(await s!.waitFor(`vim.api.nvim_buf_get_name(0):find('mado://route/', 1, true) ~= nil`, 10000)).toBe(true);
    await s!.lua(`vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'Edited by the user.' }) vim.cmd('write')`);
    expect(await s!.waitFor(has(b, 'Edited by the user.'), 8000)).toBe(true);
    await s!.lua(`vim.cmd('MadoRoute clear')`);

    // send=diff into a normal buffer: A's working tree's diff, appended.
    const notes = await s!.lua<number>(`vim.cmd('new') return vim.api.nvim_get_current_buf()`);
    await s!.lua(`require('madohub').route(${a}, ${notes}, { send = 'diff' })`);
    await s!.lua('vim.wait(2100)');
    await type(a, 'work\r');
    expect(await s!.waitFor(has(notes, '-export const x = 1;'), 10000)).toBe(true);
    expect(await s!.lua<string>(`return vim.api.nvim_buf_get_lines(${notes}, 0, 1, false)[1]`)).toBe('[mado route writer → ' + (await s!.lua<string>(`for _, r in ipairs(require('madohub.routes').get()) do if r.target == 'buf:${notes}' then return require('madohub.routes').target_name(r) end end`)) + ' · hop 1/3]');

    // A wiped target: its route goes, with one message.
    await s!.lua(`vim.cmd('MadoRoute clear')`);
    await s!.lua(`require('madohub').route(${a}, ${b})`);
    await s!.lua(`vim.api.nvim_buf_delete(${b}, { force = true })`);
    expect(await s!.waitFor(`#require('madohub').routes() == 0`, 5000)).toBe(true);
    expect(await s!.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/route \w+ removed: its target term:\d+ is gone/);
  }, 90000);
});

describe.each(testNeovims())('Neovim $label: a route over turns whose records land after the screen', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it("each of three turns hands over that turn's recorded answer, once, after the turn ended (not the turn before's); none recorded: said, nothing sent", async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-route-records-'));
    const out = path.join(base, 'handed.md');
    s = await startNeovim(exe, {
      HOME: base, CLAUDE_CONFIG_DIR: path.join(base, 'claude'), MADOHUB_JOBS_DIR: path.join(base, 'jobs'), MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      // Claude Code on a loaded machine: the screen shows the end 800 ms before the transcript has the answer.
      MADOHUB_FIXTURE_RECORD_DELAY_MS: '800',
      // Work long enough to be seen under load (a turn of 100 ms could pass between two screens read).
      MADOHUB_FIXTURE_WORK_MS: '700',
    });
    const buf = await openTerminal(s, ['node', FAKE_CLAUDE]);
    const state = `(require('madohub').state(${buf}) or {})`;
    expect(await s.waitFor(`${state}.state == 'idle' and ${state}.source == 'session-file'`, 10000)).toBe(true);
    const key = (k: string): Promise<unknown> => s!.lua(`vim.api.nvim_chan_send(vim.bo[${buf}].channel, ...)`, [k]);
    // A turn before the route: its answer is in the transcript, and is no answer of the turns after.
    await key('t');
    expect(await s.waitFor(`${state}.state == 'completed'`, 10000)).toBe(true);
    await s.lua(`vim.api.nvim_set_current_buf(${buf}) vim.cmd('MadoRoute file:${out}')`);
    const handed = (): string => (existsSync(out) ? readFileSync(out, 'utf8') : '');
    for (let turn = 2; turn <= 4; turn++) {
      await s.lua('vim.wait(2100)'); // a route fires at most every 2 s
      await key('t');
      expect(await s.waitFor(`${state}.state == 'stopped' or ${state}.state == 'completed'`, 10000)).toBe(true);
      expect(await s.waitFor(`vim.fn.filereadable('${out}') == 1 and #vim.fn.readfile('${out}') >= ${2 * (turn - 1)}`, 10000)).toBe(true);
      const text = handed();
      expect(text.split(`Recorded answer of turn ${turn}.`).length - 1).toBe(1);
    }
    // A turn whose answer is never recorded: said by the ends' names, nothing sent (not the screen's words, nor the turn before's).
    await s.lua('vim.wait(2100)');
    await key('X');
    // Its name is the agent's and its folder's (this checkout's: `claude main`, `claude ci` …).
    const name = await s.lua<string>(`return require('madohub').agents({ id = 'term:${buf}' })[1].name`);
    expect(await s.waitFor(`vim.fn.execute('messages'):find(${JSON.stringify(`(${name} → `)}, 1, true) ~= nil and vim.fn.execute('messages'):find('): no answer recorded for this turn', 1, true) ~= nil`, 12000), await s.lua<string>(`return vim.fn.execute('messages')`)).toBe(true);
    // Each turn's answer once, in order; none from the turn before the route, nor the screen's words.
    expect(handed().replace(/^\[mado route .* · hop 1\/3\]$/gm, '[head]')).toBe([2, 3, 4].map((n) => `[head]\nRecorded answer of turn ${n}.\n`).join(''));
  }, 90000);
});
