// The picker's model in a real Neovim (0.10 and 0.12), without the Node side: grouping, ordering,
// pinning, filter tokens, moving rows, the keys as a state machine (what each one asks of Node), and
// its state file read as hostile input.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

/** Lua: `E(id, kind, state, extra)` makes an entry; `build(entries, ui)` is view.build with defaults. */
const PRELUDE = `
  local view = require('madohub.picker.view')
  _G.E = function(id, kind, state, extra)
    return vim.tbl_extend('force', { id = id, kind = kind, name = id, intent = '', agent = 'claude', state = state, source = 'pty-scrape', since = 1000,
      cwd = '/p', detail = '', needs = vim.NIL, where = 'job', pinned = false, order = 0, pending = '', server = '', attach = {},
      buf = vim.NIL, short = id:match('^job:(.*)$') or '', pid = vim.NIL, peerBuf = vim.NIL, tty = '', exit = vim.NIL, interrupted = false, shows = '', turns = 0, ended = false }, extra or {})
  end
  _G.build = function(entries, ui)
    ui = vim.tbl_extend('force', { group_by = 'state', folded = {}, filter = '', seen = {}, cwd = '/p' }, ui or {})
    local names = function(a) return ({ claude = 'Claude Code', codex = 'Codex' })[a] or a end
    local built = view.build(entries, ui, names, require('madohub.config').options.words)
    local rows = {}
    for _, r in ipairs(built.rows) do rows[#rows + 1] = r.entry and r.entry.id or ('# ' .. r.label .. (r.folded and ' +' or '')) end
    return { header = built.header, rows = rows }
  end`;

describe.each(testNeovims())('Neovim $label: the picker model', ({ path: exe }) => {
  let s: Session;
  let state = '';
  beforeAll(async () => {
    state = mkdtempSync(path.join(tmpdir(), 'madohub-picker-'));
    s = await startNeovim(exe, { XDG_STATE_HOME: state });
    await s.lua(PRELUDE);
  });
  afterAll(async () => {
    await s.close();
  });

  it('groups by state in order (Pinned, Needs input, Working, Done, Idle, Ended) with the header counts', async () => {
    const out = await s.lua<{ header: string; rows: string[] }>(`return build({
      E('a', 'job', 'idle'), E('b', 'terminal', 'working'), E('c', 'session', 'waiting'), E('d', 'job', 'stopped'),
      E('e', 'job', 'failed'), E('f', 'editor', 'exited'), E('g', 'job', 'completed', { pinned = true }), E('h', 'job', 'waiting'),
    })`);
    expect(out.rows).toEqual([
      '# Pinned',
      'g',
      '# Needs input',
      'c',
      'h',
      '# Working',
      'b',
      '# Done',
      'd',
      '# Idle',
      'a',
      '# Ended (failed, exited)',
      'e',
      'f',
    ]);
    expect(out.header).toBe('2 need input · 1 working · 2 done · 1 idle · 2 ended');
  });

  it('orders within a group: menus before questions, unseen first, the user’s order, then the newest', async () => {
    const needs = await s.lua<string[]>(`return build({
      E('q', 'job', 'waiting', { since = 5000, needs = { question = 'What next?', options = {} } }),
      E('m', 'job', 'waiting', { since = 1000, needs = { question = 'Proceed?', options = { 'Yes', 'No' } } }),
    }).rows`);
    expect(needs).toEqual(['# Needs input', 'm', 'q']);
    const done = await s.lua<
      string[]
    >(`return build({ E('old', 'job', 'stopped', { since = 1 }), E('seen', 'job', 'stopped', { since = 9 }), E('new', 'job', 'stopped', { since = 5 }) },
      { seen = { seen = 9 } }).rows`);
    expect(done).toEqual(['# Done', 'new', 'old', 'seen']);
    const idle = await s.lua<string[]>(
      `return build({ E('x', 'job', 'idle', { since = 9 }), E('y', 'job', 'idle', { order = 2 }), E('z', 'job', 'idle', { order = 1 }) }).rows`,
    );
    expect(idle).toEqual(['# Idle', 'z', 'y', 'x']);
  });

  it('groups by folder, this one first; folds a group', async () => {
    const out = await s.lua<
      string[]
    >(`return build({ E('a', 'job', 'idle', { cwd = '/z' }), E('b', 'job', 'working', { cwd = '/p' }), E('c', 'job', 'idle', { cwd = '/a' }) },
      { group_by = 'dir', folded = { ['dir:/a'] = true } }).rows`);
    expect(out).toEqual(['# /p', 'b', '# /a +', '# /z', 'a']);
  });

  it('filters by words and a:, s:, k: tokens', async () => {
    const q = (filter: string): Promise<string[]> =>
      s.lua<string[]>(
        `return vim.tbl_filter(function(r) return r:sub(1, 1) ~= '#' end, build({
        E('job:1', 'job', 'waiting', { agent = 'codex', name = 'parser fix', intent = 'make the tokenizer linear', needs = { question = 'Run npm test?', options = {} } }),
        E('term:2', 'terminal', 'working', { name = 'docs', cwd = '/home/dev/site' }),
        E('claude:3', 'session', 'idle', { name = 'api' }),
      }, { filter = ... }).rows)`,
        [filter],
      );
    expect(await q('a:codex')).toEqual(['job:1']);
    expect(await q('a:claude')).toEqual(['term:2', 'claude:3']);
    expect(await q('s:wait')).toEqual(['job:1']);
    expect(await q('s:Working')).toEqual(['term:2']);
    expect(await q('k:session')).toEqual(['claude:3']);
    expect(await q('npm')).toEqual(['job:1']);
    expect(await q('tokenizer')).toEqual(['job:1']);
    expect(await q('SITE')).toEqual(['term:2']);
    expect(await q('a:claude docs')).toEqual(['term:2']);
    expect(await q('nothing-like-it')).toEqual([]);
    expect(await q('%[(')).toEqual([]);
  });

  it('moving a row renumbers its group and answers only the orders that changed', async () => {
    const moved = await s.lua<Record<string, number>>(`
      local view = require('madohub.picker.view')
      local ui = { group_by = 'state', folded = {}, filter = '', seen = {}, cwd = '/p' }
      local built = view.build({ E('a', 'job', 'idle', { since = 3 }), E('b', 'job', 'idle', { since = 2 }), E('c', 'job', 'idle', { since = 1 }) }, ui, function(a) return a end, {})
      return { down = view.moved(built.rows, 'a', 1), top = view.moved(built.rows, 'a', -1), last = view.moved(built.rows, 'c', 1) }`);
    expect(moved).toEqual({ down: { a: 2, b: 1, c: 3 }, top: [], last: [] });
  });

  it('keys: x stops, x again within 3 s kills, d removes an ended job only; Esc closes help, then peek, then the filter, then the picker', async () => {
    const calls = await s.lua<string[]>(`
      local node = require('madohub.node')
      local calls = {}
      local call, running = node.call, node.running
      node.call = function(method, args, done)
        -- An operation is called by name (run: its name, its arguments).
        local id = args.id or (args.args and args.args.id) or ''
        calls[#calls + 1] = (args.name and (method .. ':' .. args.name) or method) .. ' ' .. id
        done({ short = id })
      end
      node.running = function() return true end
      local fleet = require('madohub.fleet')
      fleet.apply({ E('job:aaaaaaaa', 'job', 'working'), E('job:bbbbbbbb', 'job', 'exited', { ended = true }), E('job:cccccccc', 'job', 'idle') }, {})
      local picker = require('madohub.picker')
      picker.open()
      local p = picker.current
      local actions = require('madohub.picker.actions')
      local function at(id)
        for i, r in ipairs(p.rows) do if r.entry and r.entry.id == id then vim.api.nvim_win_set_cursor(p.list_win, { i, 0 }) end end
      end
      at('job:aaaaaaaa'); actions.run(p, 'stop', 'x'); actions.run(p, 'stop', 'x')
      at('job:cccccccc'); actions.run(p, 'stop', 'x')
      at('job:aaaaaaaa'); actions.run(p, 'stop', 'x')
      at('job:aaaaaaaa'); actions.run(p, 'remove', 'd')
      at('job:bbbbbbbb'); actions.run(p, 'remove', 'd')
      local seen = {}
      actions.run(p, 'help', '?'); actions.run(p, 'peek', ' ')
      p.ui.filter = 'a:claude'
      actions.run(p, 'back', '<Esc>'); seen[#seen + 1] = 'help ' .. tostring(p.help_win ~= nil)
      actions.run(p, 'back', '<Esc>'); seen[#seen + 1] = 'peek ' .. tostring(p.peek_win ~= nil)
      actions.run(p, 'back', '<Esc>'); seen[#seen + 1] = 'filter ' .. p.ui.filter
      actions.run(p, 'back', '<Esc>'); seen[#seen + 1] = 'open ' .. tostring(picker.current ~= nil)
      vim.list_extend(calls, seen)
      node.call, node.running = call, running
      return calls`);
    expect(calls).toEqual([
      'run:stop aaaaaaaa',
      'run:kill aaaaaaaa',
      'run:stop cccccccc',
      // Another row in between: the next x on the first job stops again.
      'run:stop aaaaaaaa',
      'run:rm bbbbbbbb',
      // The peek pane reads the job's screen from its host.
      'run:screen aaaaaaaa',
      'help false',
      'peek false',
      'filter ',
      'open false',
    ]);
  });

  it('its state file: a folder, a huge file or nonsense reads as the defaults; a good one is kept per folder', async () => {
    const dir = path.join(state, 'madohub');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'fleet-ui.json');
    const load = (): Promise<Record<string, unknown>> => s.lua(`return require('madohub.picker.store').load()`);
    writeFileSync(file, '{"group_by": "dir", "folded": {"done": true, "x": 1}, "filters": {"/p": "a:codex", "/q": 7}}');
    expect(await load()).toEqual({ group_by: 'dir', folded: { done: true }, filters: { '/p': 'a:codex' } });
    writeFileSync(file, 'not json at all {');
    expect(await load()).toEqual({ group_by: 'state', folded: [], filters: [] });
    writeFileSync(file, JSON.stringify({ group_by: 'x'.repeat(300 * 1024) }));
    expect(await load()).toEqual({ group_by: 'state', folded: [], filters: [] });
    await s.lua(
      `require('madohub.picker.store').save({ group_by = 'dir', folded = {}, filters = { ['/w'] = 's:wait', ['/e'] = '' } })`,
    );
    expect(await load()).toEqual({ group_by: 'dir', folded: [], filters: { '/w': 's:wait' } });
  });

  it('its state file is never written through a link: one planted at a temporary name or in its place', async () => {
    const dir = path.join(state, 'madohub');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'fleet-ui.json');
    const victim = path.join(state, 'victim.txt');
    writeFileSync(victim, 'precious');
    rmSync(file, { force: true });
    // The old fixed temporary name, linked to another file: that file stays as it was, the state file is a file.
    symlinkSync(victim, `${file}.tmp`);
    await s.lua(`require('madohub.picker.store').save({ group_by = 'dir', folded = {}, filters = {} })`);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ group_by: 'dir' });
    // A link in the state file's place is not read, and a save replaces the link, not its target.
    rmSync(file);
    writeFileSync(path.join(state, 'other.json'), '{"group_by": "dir"}');
    symlinkSync(path.join(state, 'other.json'), file);
    expect(await s.lua(`return require('madohub.picker.store').load().group_by`)).toBe('state');
    await s.lua(`require('madohub.picker.store').save({ group_by = 'state', folded = {}, filters = {} })`);
    expect(readFileSync(path.join(state, 'other.json'), 'utf8')).toBe('{"group_by": "dir"}');
    expect(lstatSync(file).isFile()).toBe(true);
    // No temporary file is left behind.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') && f !== 'fleet-ui.json.tmp')).toEqual([]);
  });

  it('MADOHUB_AGENTS_SELECT selects its row once', async () => {
    const selected = await s.lua<string[]>(`
      local node = require('madohub.node')
      node.running = function() return true end
      local fleet, picker = require('madohub.fleet'), require('madohub.picker')
      fleet.apply({ E('job:aaaaaaaa', 'job', 'working'), E('job:bbbbbbbb', 'job', 'idle'), E('job:cccccccc', 'job', 'idle') }, {})
      local out = {}
      vim.env.MADOHUB_AGENTS_SELECT = 'job:cccccccc'
      picker.open()
      out[1] = picker.entry(picker.current).id
      picker.close()
      picker.open()
      out[2] = picker.entry(picker.current).id
      picker.close()
      out[3] = tostring(vim.env.MADOHUB_AGENTS_SELECT)
      return out`);
    expect(selected).toEqual(['job:cccccccc', 'job:aaaaaaaa', 'nil']);
  });

  it('open_on_start opens it when Neovim starts without files, not with one', async () => {
    const run = (files: string[]): string =>
      execFileSync(
        exe,
        [
          '--headless',
          '--clean',
          '-n',
          '-i',
          'NONE',
          '--cmd',
          `set rtp^=${ROOT}`,
          '--cmd',
          "lua require('madohub').setup({ picker = { open_on_start = true } })",
          '-c',
          "lua vim.defer_fn(function() io.stdout:write(tostring(require('madohub.picker').current ~= nil)) vim.cmd('qa!') end, 300)",
          ...files,
        ],
        {
          encoding: 'utf8',
          env: {
            ...process.env,
            XDG_STATE_HOME: state,
            MADOHUB_JOBS_DIR: path.join(state, 'jobs'),
            MADOHUB_RUNTIME_DIR: path.join(state, 'run'),
          },
          timeout: 20000,
        },
      );
    expect(run([])).toBe('true');
    expect(run([path.join(state, 'notes.txt')])).toBe('false');
  });

  it('every action the keys can name is one the picker runs, and the other way round', async () => {
    const [named, run] = await s.lua<[string[], string[]]>(`
      local a, b = vim.tbl_keys(require('madohub.picker.keys').actions), vim.tbl_keys(require('madohub.picker.actions').names)
      table.sort(a) table.sort(b) return { a, b }`);
    expect(run).toEqual(named);
  });

  it("a Failed turn's word says why, as the Node side tells it: Interrupted for an interrupt, Error otherwise (the state stays failed)", async () => {
    const words = await s.lua<string[]>(`local label = require('madohub.ui.label')
      return { label.word({ state = 'failed', interrupted = true }), label.word({ state = 'failed', interrupted = false }),
        label.word({ state = 'failed', detail = 'interrupted' }), label.word({ state = 'working', interrupted = false }) }`);
    // The detail's words decide nothing: Lua reads no display text.
    expect(words).toEqual(['Interrupted', 'Error', 'Error', 'Working']);
    const rows = await s.lua<string[]>(`
      local format = require('madohub.picker.format')
      local rows = { { group = 'ended', entry = E('term:1', 'terminal', 'failed', { detail = 'interrupted', interrupted = true }) } }
      return vim.tbl_map(function(l) return l.text end, format.lines(rows, 120, 2000, { seen = {} }, function(a) return a end))`);
    expect(rows[0]).toMatch(/✗ Interrupted .* interrupted <1m$/);
  });

  it('setup() refuses a key mapped to no action, naming it', async () => {
    const err =
      await s.lua<string>(`local ok, e = pcall(require('madohub.config').merge, { picker = { keys = { ['<C-x>'] = 'explode' } } })
      require('madohub.config').merge({})
      return e`);
    expect(err).toMatch(/picker\.keys\["<C-x>"\] is no action \(explode\)/);
  });
});
