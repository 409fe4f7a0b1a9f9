// :MadoAgents in Neovim (0.10 and 0.12), with the real Node side, the real daemon and real keys:
// two fixture agents in splits (one waiting on a numbered approval), two shell jobs, a Claude Code
// session of a live process outside, and a second Neovim with a terminal of its own.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIX, shortOf, useJobsHarness } from './jobs-harness.js';
import { openAgent, openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { elapse } from '../helpers/wait.js';

/** The picker's rows as `group id` (entries) and `# group` (headers). */
const ROWS = `local p = require('madohub.picker').current
  if not p then return {} end
  local out = {}
  for _, r in ipairs(p.rows) do out[#out + 1] = r.entry and (r.group .. ' ' .. r.entry.id) or ('# ' .. r.group) end
  return out`;
/**
 * Puts the cursor of the list on the row of entry `...`, as a move does (CursorMoved: the picker keeps
 * that entry selected when its rows are drawn again); true when it is shown.
 */
const SELECT = `local p = require('madohub.picker').current
  for i, r in ipairs(p.rows) do
    if r.entry and r.entry.id == ... then
      vim.api.nvim_set_current_win(p.list_win)
      vim.api.nvim_win_set_cursor(p.list_win, { i, 0 })
      vim.api.nvim_exec_autocmds('CursorMoved', { buffer = p.list_buf })
      return true
    end
  end
  return false`;
const HAS_ROW = (group: string, id: string): string =>
  `(function() local p = require('madohub.picker').current if not p then return false end
     for _, r in ipairs(p.rows) do if r.entry and r.entry.id == '${id}' and r.group == '${group}' then return true end end
     return false end)()`;
const TERM_HAS = (buf: number, text: string): string =>
  `table.concat(vim.api.nvim_buf_get_lines(${buf}, 0, -1, false), '\\n'):find(${JSON.stringify(text)}, 1, true) ~= nil`;

describe.each(testNeovims())('Neovim $label: :MadoAgents', ({ path: exe }) => {
  const h = useJobsHarness({
    replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' },
  });
  let s: Session | undefined;
  let other: Session | undefined;
  let outside: ChildProcess | undefined;
  afterEach(async () => {
    await other?.close();
    await s?.close();
    outside?.kill('SIGKILL');
    s = other = outside = undefined;
  });

  const envOf = (): Record<string, string> => {
    const out = h.neovimEnv();
    // The shell jobs are login shells: a home of their own, not the developer's profile.
    out.HOME = path.join(h.base, 'home');
    mkdirSync(out.HOME, { recursive: true });
    // `claude` is the fixture (a background session is attached with `claude attach`).
    out.PATH = `${path.join(FIX, 'bin')}:${process.env.PATH ?? ''}`;
    return out;
  };
  const start = async (): Promise<Session> => {
    const n = await startNeovim(exe, envOf());
    await n.lua(`require('madohub').setup({ picker = { default_agent = 'shell' } })`);
    return n;
  };
  const keys = async (n: Session, k: string): Promise<void> => {
    await n.nvim.input(k);
    await n.lua('return 1');
  };

  it('lists every kind in its group, filters, peeks, answers, replies, renames and pins, dispatches, stops and kills, attaches, and shows another Neovim’s terminal', async () => {
    // Another Neovim with a terminal of its own.
    other = await start();
    const theirs = await openAgent(other, ['codex-working']);
    expect(await other.waitFor(`#require('madohub').agents({ kind = 'terminal' }) == 1`, 8000)).toBe(true);
    const theirNode = await other.lua<number>("return require('madohub.node').pid()");
    // Their terminal leaves its window: <CR> on its row must bring it back.
    await other.lua(`vim.cmd('enew')`);

    s = await start();
    await s.lua(`_G.fleet_changed = 0
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoFleetChanged', callback = function() _G.fleet_changed = _G.fleet_changed + 1 end })`);
    // Two fixture agents in splits: one waits on a numbered approval, one takes replies.
    const approver = await openTerminal(s, ['node', path.join(FIX, 'bin/approver')]);
    const replier = await openTerminal(s, ['node', path.join(FIX, 'bin/replier')]);
    // Two shell jobs.
    const home = { HOME: path.join(h.base, 'home') };
    const one = shortOf(
      (await h.mado(['--bg', '--agent', 'shell', '-n', 'shell one', 'echo one'], undefined, home)).stdout,
    );
    const two = shortOf(
      (await h.mado(['--bg', '--agent', 'shell', '-n', 'shell two', 'echo two'], undefined, home)).stdout,
    );
    // A Claude Code session of a live process outside this Neovim.
    const sessions = path.join(h.env.CLAUDE_CONFIG_DIR as string, 'sessions');
    mkdirSync(sessions, { recursive: true });
    outside = spawn('sleep', ['120'], { stdio: 'ignore' });
    const sessionId = '7c1f0c3e-1b2c-4d5e-8f90-123456789abc';
    const now = Date.now();
    writeFileSync(
      path.join(sessions, `${outside.pid}.json`),
      JSON.stringify({
        pid: outside.pid,
        sessionId,
        cwd: '/home/dev/api',
        startedAt: now,
        version: '2.1.197',
        kind: 'interactive',
        status: 'busy',
        updatedAt: now,
        statusUpdatedAt: now,
      }),
    );

    // And a background session of Claude Code (claude --bg): <CR> attaches it with `claude attach`.
    const bgSessionId = '8d2f0c3e-1b2c-4d5e-8f90-123456789abc';
    writeFileSync(
      path.join(sessions, `${process.pid}.json`),
      JSON.stringify({
        pid: process.pid,
        sessionId: bgSessionId,
        cwd: '/home/dev/web',
        kind: 'bg',
        jobId: '387c1190',
        name: 'fix-readme',
        status: 'idle',
        updatedAt: now,
      }),
    );

    await s.lua(`vim.cmd('MadoAgents')`);
    expect(await s.lua<boolean>(`return require('madohub.picker').current ~= nil`)).toBe(true);
    expect(await s.waitFor(HAS_ROW('needs', `term:${approver}`), 10000)).toBe(true);
    expect(await s.waitFor(HAS_ROW('idle', `term:${replier}`), 10000)).toBe(true);
    expect(await s.waitFor(`${HAS_ROW('idle', `job:${one}`)} and ${HAS_ROW('idle', `job:${two}`)}`, 15000)).toBe(true);
    expect(await s.waitFor(HAS_ROW('working', `claude:${sessionId}`), 10000)).toBe(true);
    expect(await s.waitFor(HAS_ROW('working', `nvim:${theirNode}:${theirs}`), 10000)).toBe(true);
    expect(await s.waitFor(HAS_ROW('idle', `claude:${bgSessionId}`), 10000)).toBe(true);
    expect(
      await s.lua<string[]>(
        `return vim.tbl_filter(function(l) return l:sub(1, 1) == '#' end, (function() ${ROWS} end)())`,
      ),
    ).toEqual(['# needs', '# working', '# idle']);
    const title = await s.lua<string>(
      `return require('madohub.picker').current and vim.api.nvim_win_get_config(require('madohub.picker').current.list_win).title[1][1]`,
    );
    expect(title).toMatch(/1 needs input · 2 working · 4 idle/);
    expect(await s.waitFor(HAS_ROW('idle', `claude:${bgSessionId}`), 10000)).toBe(true);
    expect(await s.lua<number>('return _G.fleet_changed')).toBeGreaterThan(0);

    // Filter: a:codex leaves the other Neovim's Codex only; Esc clears it.
    await keys(s, '/a:codex<CR>');
    expect(
      await s.waitFor(
        `#vim.tbl_filter(function(l) return l:sub(1, 1) ~= '#' end, (function() ${ROWS} end)()) == 1`,
        3000,
      ),
    ).toBe(true);
    expect(await s.lua<string[]>(ROWS)).toEqual(['# working', `working nvim:${theirNode}:${theirs}`]);
    await keys(s, '<Esc>');
    expect(await s.waitFor(HAS_ROW('needs', `term:${approver}`), 3000)).toBe(true);

    // Peek shows a job's rendered screen (no escape bytes), the question first on a waiting row.
    await s.lua(SELECT, [`job:${one}`]);
    await keys(s, '<Space>');
    const peekText = `(function() local p = require('madohub.picker').current return p.peek_buf and table.concat(vim.api.nvim_buf_get_lines(p.peek_buf, 0, -1, false), '\\n') or '' end)()`;
    expect(
      await s.waitFor(`${peekText}:find('shell one', 1, true) ~= nil and ${peekText}:find('[$#] *\\n?$') ~= nil`, 8000),
    ).toBe(true);
    expect(await s.lua<string>(`return ${peekText}`)).not.toMatch(/\x1b/);
    await s.lua(SELECT, [`term:${approver}`]);
    expect(
      await s.waitFor(
        `${peekText}:find('Asks: Do you want to proceed? — rm -rf build\\n  1. Yes', 1, true) ~= nil`,
        3000,
      ),
    ).toBe(true);
    await keys(s, '<Esc>');
    expect(await s.lua<boolean>(`return require('madohub.picker').current.peek_win == nil`)).toBe(true);

    // `2` answers the approval with its second choice (arrow keys from the highlighted one, Enter).
    await s.lua(SELECT, [`term:${approver}`]);
    await keys(s, '2');
    expect(await s.waitFor(TERM_HAS(approver, 'chose 2'), 8000)).toBe(true);

    // A reply is held while a draft stands in the agent's input line, and sent once it is gone.
    await s.lua(`vim.api.nvim_chan_send(vim.bo[${replier}].channel, 'dra')`);
    expect(await s.waitFor(TERM_HAS(replier, '❯ dra'), 5000)).toBe(true);
    // The Node side reads the screen with the draft (the watcher coalesces its changes).
    await elapse(200);
    await s.lua(SELECT, [`term:${replier}`]);
    await keys(s, 'rhello there<CR>');
    expect(
      await s.waitFor(`(require('madohub.fleet').find('term:${replier}') or {}).pending == 'held-draft'`, 5000),
    ).toBe(true);
    // Its row says why in words: Node sends the code, the picker makes the words.
    expect(
      await s.waitFor(
        `table.concat(vim.api.nvim_buf_get_lines(require('madohub.picker').current.list_buf, 0, -1, false), '\\n'):find('[held: draft]', 1, true) ~= nil`,
        5000,
      ),
    ).toBe(true);
    expect(await s.lua<boolean>(`return ${TERM_HAS(replier, 'You said: hello there')}`)).toBe(false);
    await s.lua(`vim.api.nvim_chan_send(vim.bo[${replier}].channel, '\\127\\127\\127')`);
    expect(await s.waitFor(TERM_HAS(replier, 'You said: hello there'), 8000)).toBe(true);
    expect(await s.waitFor(`(require('madohub.fleet').find('term:${replier}') or {}).pending == ''`, 5000)).toBe(true);

    // Rename and pin a job: kept in its file, so they outlive this Neovim.
    await s.lua(SELECT, [`job:${two}`]);
    await keys(s, 'R');
    await s.lua(
      `vim.api.nvim_buf_set_lines(require('madohub.picker').current.input_buf, 0, -1, false, { 'the second shell' })`,
    );
    await keys(s, '<CR>');
    expect(
      await s.waitFor(`(require('madohub.fleet').find('job:${two}') or {}).name == 'the second shell'`, 8000),
    ).toBe(true);
    await s.lua(SELECT, [`job:${two}`]);
    await keys(s, 'p');
    expect(await s.waitFor(HAS_ROW('pinned', `job:${two}`), 8000)).toBe(true);

    // The input line starts a job (the default agent: shell).
    await keys(s, 'n');
    await s.lua(
      `vim.api.nvim_buf_set_lines(require('madohub.picker').current.input_buf, 0, -1, false, { 'echo started from the picker' })`,
    );
    await keys(s, '<CR>');
    expect(await s.waitFor(`#require('madohub').agents({ kind = 'job' }) == 3`, 15000)).toBe(true);
    expect(await s.waitFor(`vim.fn.execute('messages'):find('started job %x+') ~= nil`, 5000)).toBe(true);

    // `x` then `x` within 3 s kills a job.
    await s.lua(SELECT, [`job:${one}`]);
    await keys(s, 'x');
    await keys(s, 'x');
    const statusOf = async (short: string): Promise<string> =>
      (
        JSON.parse(readFileSync(path.join(h.env.MADOHUB_JOBS_DIR as string, short, 'job.json'), 'utf8')) as {
          status: string;
        }
      ).status;
    expect(await s.waitFor(`(require('madohub.fleet').find('job:${one}') or {}).state == 'exited'`, 10000)).toBe(true);
    expect(await statusOf(one)).toBe('killed');
    // The kill's answer comes back after the fleet may already show the job ended: wait for it.
    expect(await s.waitFor(`vim.fn.execute('messages'):find('killed shell one', 1, true) ~= nil`, 5000)).toBe(true);
    // An ended job's peek shows the last of its output (its host is gone).
    await s.lua(SELECT, [`job:${one}`]);
    await keys(s, '<Space>');
    expect(
      await s.waitFor(
        `${peekText}:find('Exited', 1, true) ~= nil and ${peekText}:find('echo one', 1, true) ~= nil`,
        8000,
      ),
    ).toBe(true);
    await keys(s, '<Esc>');

    // <CR> on the other Neovim's row makes it show its terminal.
    await s.lua(SELECT, [`nvim:${theirNode}:${theirs}`]);
    await keys(s, '<CR>');
    expect(await other.waitFor(`vim.api.nvim_get_current_buf() == ${theirs}`, 5000)).toBe(true);

    // <CR> on a job attaches it in a split.
    await s.lua(`vim.cmd('MadoAgents')`);
    expect(await s.waitFor(`(function(...) ${SELECT} end)('job:${two}')`, 5000)).toBe(true);
    await keys(s, '<CR>');
    expect(await s.waitFor(`vim.b.madohub_job == '${two}'`, 8000)).toBe(true);
    expect(await s.lua<boolean>(`return require('madohub.picker').current == nil`)).toBe(true);

    // <CR> on the background session runs `claude attach <its id>` in a split (here the fixture claude).
    // (The job's attach split is a terminal too: wait for a new one.)
    const attachBuf = await s.lua<number>(`return vim.api.nvim_get_current_buf()`);
    await s.lua(`vim.cmd('MadoAgents')`);
    expect(await s.waitFor(`(function(...) ${SELECT} end)('claude:${bgSessionId}')`, 5000)).toBe(true);
    await keys(s, '<CR>');
    expect(
      await s.waitFor(`vim.bo.buftype == 'terminal' and vim.api.nvim_get_current_buf() ~= ${attachBuf}`, 5000),
    ).toBe(true);
    const argv = await s.lua<string[]>(`return vim.api.nvim_get_chan_info(vim.bo.channel).argv`);
    expect([path.basename(argv[0]!), ...argv.slice(1)]).toEqual(['claude', 'attach', '387c1190']);

    // <M-CR> in the input line starts a job and attaches it at once.
    await s.lua(`vim.cmd('MadoAgents')`);
    await keys(s, 'n');
    await s.lua(
      `vim.api.nvim_buf_set_lines(require('madohub.picker').current.input_buf, 0, -1, false, { 'echo attached at once' })`,
    );
    await keys(s, '<M-CR>');
    expect(
      await s.waitFor(`#require('madohub').agents({ kind = 'job' }) == 4 and vim.b.madohub_job ~= nil`, 15000),
    ).toBe(true);
    const attachedJob = await s.lua<string>('return vim.b.madohub_job');
    expect(await s.lua<string>(`return require('madohub.fleet').find('job:${attachedJob}').intent`)).toBe(
      'echo attached at once',
    );

    // Another Neovim started afresh: the job's name and pin are still there.
    await s.close();
    s = await start();
    await s.lua(`vim.cmd('MadoAgents')`);
    expect(await s.waitFor(HAS_ROW('pinned', `job:${two}`), 10000)).toBe(true);
    expect(await s.lua<string>(`return require('madohub.fleet').find('job:${two}').name`)).toBe('the second shell');
  }, 120000);

  it('r and R on a header open a line that goes nowhere (the words typed after them run no key); 1-9 act on nothing; an interrupted agent is Idle, not Ended', async () => {
    s = await start();
    const interrupted = await openAgent(s, ['codex-real-interrupted']);
    expect(await s.waitFor(`(require('madohub').state(${interrupted}) or {}).interrupted == true`, 8000)).toBe(true);
    await s.nvim.feedKeys(':MadoAgents\r', 'mx', false);
    expect(await s.waitFor(HAS_ROW('idle', `term:${interrupted}`), 5000), JSON.stringify(await s.lua(ROWS))).toBe(true);
    expect(await s.lua(ROWS)).not.toContain(`ended term:${interrupted}`);
    // The cursor on the group's header, as k from the row puts it.
    await s.lua(`local p = require('madohub.picker').current
      for i, r in ipairs(p.rows) do if r.label then vim.api.nvim_set_current_win(p.list_win) vim.api.nvim_win_set_cursor(p.list_win, { i, 0 }) break end end`);
    const listWin = await s.lua<number>(`return require('madohub.picker').current.list_win`);
    // A reply typed at once after r, as a person does: it reaches nothing, and no key of the list runs.
    await s.nvim.feedKeys('rnice work, ignore it\r', 'mx', false);
    expect(
      await s.waitFor(`vim.fn.execute('messages'):find('no agent on this row: nothing sent', 1, true) ~= nil`, 3000),
      await s.lua<string>(`return vim.fn.execute('messages')`),
    ).toBe(true);
    expect(await s.lua('return vim.api.nvim_get_current_win()')).toBe(listWin);
    expect(await s.lua(`return #require('madohub').agents({ kind = 'job' })`)).toBe(0);
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).not.toMatch(/started job|renamed/);
    await s.nvim.feedKeys('Rnew name\r', 'mx', false);
    expect(
      await s.waitFor(
        `#vim.split(vim.fn.execute('messages'), 'no agent on this row: nothing sent', { plain = true }) == 3`,
        3000,
      ),
    ).toBe(true);
    expect(await s.lua(`return require('madohub').agents({ id = 'term:${interrupted}' })[1].name`)).not.toBe(
      'new name',
    );
    await s.nvim.feedKeys('2', 'mx', false);
    expect(await s.waitFor(`vim.fn.execute('messages'):find('no agent on this row', 1, true) ~= nil`, 3000)).toBe(true);
    expect(await s.lua('return vim.api.nvim_get_current_win()')).toBe(listWin);
  });
});
