// Attention outside Neovim (|madohub-notify|), in real Neovims (0.10 and 0.12) with the real Node
// side: a recording notify-send on PATH (test/fixtures/notify-bin) and fixture agents named like
// Claude Code in terminals.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, openTerminal, ROOT, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { blankJob, createJob } from '../../src/jobs/store.js';
import { newSessionId } from '../../src/jobs/ids.js';
import { elapse, holds, untilValue } from '../helpers/wait.js';

const NOTIFY_BIN = path.join(ROOT, 'test/fixtures/notify-bin');

interface Run {
  argv: string[];
  ppid: number;
}

/** A folder of the test's own: HOME, the notifier's log, the click file. */
function place(): { home: string; log: string; click: string; env: Record<string, string> } {
  const home = mkdtempSync(path.join(tmpdir(), 'madohub-attention-'));
  const log = path.join(home, 'notify.jsonl');
  const click = path.join(home, 'click');
  return {
    home,
    log,
    click,
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: '',
      PATH: `${NOTIFY_BIN}:${process.env.PATH ?? ''}`,
      MADOHUB_FAKE_NOTIFY_LOG: log,
      MADOHUB_FAKE_NOTIFY_CLICK: click,
      MADOHUB_JOBS_DIR: path.join(home, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(home, 'run'),
    },
  };
}

const runs = (log: string): Run[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Run)
    : [];
const titleOf = (r: Run): string => r.argv[r.argv.indexOf('--') + 1] ?? '';
const bodyOf = (r: Run): string => r.argv[r.argv.indexOf('--') + 2] ?? '';

describe.each(testNeovims())('Neovim $label: an agent that needs you reaches you outside Neovim', ({ path: exe }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  const start = async (env: Record<string, string>, notify = '{}'): Promise<Session> => {
    s = await startNeovim(exe, env);
    await s.lua(`require('madohub').setup({ notify = ${notify} })`);
    return s;
  };
  const send = (s: Session, buf: number, keys: string): Promise<void> =>
    s.lua('vim.fn.chansend(vim.bo[...].channel, select(2, ...))', [buf, keys]);
  const state = (s: Session, buf: number, st: string): Promise<boolean> =>
    s.waitFor(`(require('madohub').state(${buf}) or {}).state == '${st}'`, 8000);
  const messages = (s: Session): Promise<string> => s.lua<string>(`return vim.fn.execute('messages')`);
  /**
   * Waits until the notifier has run `n` times, or a while (a busy machine's turns and notices come
   * late: 0 in 6 s once, with two test runs on two cores); its runs.
   */
  const ran = (log: string, n: number, ms = 15000): Promise<Run[]> =>
    untilValue(
      () => runs(log),
      (r) => r.length >= n,
      ms,
    );

  it('a hidden terminal that starts waiting is told once with its question; in sight it is not, unless Neovim lost the focus', async () => {
    const p = place();
    const s = await start(p.env);
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await state(s, buf, 'idle')).toBe(true);
    // Out of sight: another tab page.
    await s.lua(`vim.cmd('tabnew')`);
    await send(s, buf, 'n');
    expect(await state(s, buf, 'working')).toBe(true);
    await send(s, buf, 'n');
    expect(await state(s, buf, 'waiting')).toBe(true);
    const told = await ran(p.log, 1);
    expect(told).toHaveLength(1);
    expect(titleOf(told[0]!)).toMatch(/^claude [^:]+: Claude Code Waiting$/);
    expect(bodyOf(told[0]!)).toMatch(/permission prompt|proceed/);
    // The command it asks to run; no buffer number nor editor command on a desktop (a click goes there).
    expect(bodyOf(told[0]!)).toBe('Do you want to proceed? — rm -rf build');
    expect(told[0]!.argv).toEqual(expect.arrayContaining(['-u', 'critical', '-A', 'jump=Go there']));
    expect((await messages(s)).match(/Claude Code is Waiting in buffer \d+/g)).toHaveLength(1);

    // In sight (its tab page) while Neovim has the focus: nothing, outside or in.
    await s.lua(`vim.cmd('tabprevious') vim.api.nvim_exec_autocmds('FocusGained', {}) vim.cmd('messages clear')`);
    await elapse(2500); // past the burst of the first notice
    await send(s, buf, 'n');
    expect(await state(s, buf, 'working')).toBe(true);
    await send(s, buf, 'n');
    expect(await state(s, buf, 'stopped').then((ok) => ok || state(s, buf, 'completed'))).toBe(true);
    expect(await holds(() => runs(p.log).length === 1, 600)).toBe(true);
    expect(await messages(s)).not.toMatch(/Claude Code is/);
    // A turn that ended in front of the user is seen: nothing counts it, the title says nothing.
    expect(await s.lua('return require("madohub").summary()')).toMatchObject({ done: 0, total: 0, text: '' });

    // In sight, but Neovim lost the focus (the user is in the browser): told.
    await s.lua(`vim.api.nvim_exec_autocmds('FocusLost', {})`);
    await elapse(100);
    await send(s, buf, 't');
    const again = await ran(p.log, 2);
    expect(again).toHaveLength(2);
    expect(titleOf(again[1]!)).toMatch(/Claude Code (Completed|Stopped)$/);
    // What the statusline and the event count: the turn not looked at while Neovim was away.
    expect(await s.lua('return require("madohub").summary()')).toMatchObject({ waiting: 0, done: 1, text: '1 done' });
  });

  it('a burst is told as its first notice, then one summary that replaces it; "Go there" goes to the agent', async () => {
    const p = place();
    const s = await start(p.env);
    const bufs: number[] = [];
    for (let i = 0; i < 3; i++) bufs.push(await openTerminal(s, [FAKE_CLAUDE]));
    for (const b of bufs) expect(await state(s, b, 'idle')).toBe(true);
    await s.lua(`vim.cmd('tabnew')`);
    await s.lua(`
      _G.attention = {}
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoAttention', callback = function(ev) table.insert(_G.attention, ev.data) end })`);
    for (const b of bufs) await send(s, b, 't');
    const told = await ran(p.log, 2);
    expect(told).toHaveLength(2);
    const first = told[0]!;
    const summary = told[1]!;
    expect(titleOf(summary)).toBe('3 agents need you');
    // notify-send printed the first one's id (-p): the summary replaces it (-r).
    expect(summary.argv.slice(summary.argv.indexOf('-r'), summary.argv.indexOf('-r') + 2)).toEqual(['-r', '101']);
    expect(first.argv).not.toContain('-r');
    expect(await messages(s)).toMatch(/3 agents need you: .* — :MadoJump/);
    const counted = await s.lua<{ done: number; text: string }[]>('return _G.attention');
    expect(counted.at(-1)).toMatchObject({ done: 3, text: '3 done' });
    // The statusline of a window that shows no terminal says it, and so does the lualine component
    // (lualine's own component class stood in for: lualine is not installed here).
    expect(await s.lua(`return vim.api.nvim_eval_statusline("%{%v:lua.require'madohub'.statusline()%}", {}).str`)).toBe(
      '3 done',
    );
    const lualine = await s.lua<string>(`
      package.preload['lualine.component'] = function()
        local C = {}
        function C:extend() local o = setmetatable({}, { __index = self }) return o end
        return C
      end
      local c = require('lualine.components.madohub')
      return c:update_status()`);
    expect(lualine).toBe('3 done');
    // With \`spending = true\`: what the three turns spent today (each recorded its usage).
    const spending = await untilValue(
      () =>
        s.lua<string>(`local c = setmetatable({ options = { spending = true } }, { __index = require('lualine.components.madohub') })
          return c:update_status()`),
      (text) => text !== '3 done',
      3000,
    );
    expect(spending).toBe('3 done · <$0.01 today');

    // The summary's "Go there" clicked: the agent it names last (the last to finish: the three race)
    // is shown, in the first tab page.
    const lastName = bodyOf(summary).split('\n').at(-1)!.split(':')[0]!;
    const lastBuf = await s.lua<number>(
      `for _, e in ipairs(require('madohub').agents()) do if e.name == ... then return e.buf end end`,
      [lastName],
    );
    expect(bufs).toContain(lastBuf);
    writeFileSync(p.click, '');
    expect(await s.waitFor(`vim.api.nvim_get_current_buf() == ${lastBuf}`, 4000)).toBe(true);
    expect(await s.lua('return vim.fn.tabpagenr()')).toBe(1);
  });

  it(':MadoMute in the agent’s window silences it, m in the picker too, :MadoMute! tells it again', async () => {
    const p = place();
    const s = await start(p.env);
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await state(s, buf, 'idle')).toBe(true);
    await s.nvim.feedKeys(':MadoMute\r', 'mx', false);
    expect(await s.waitFor(`vim.fn.execute('messages'):find(': muted', 1, true) ~= nil`, 3000)).toBe(true);
    await s.lua(`vim.cmd('tabnew')`);
    await send(s, buf, 't');
    expect(await state(s, buf, 'stopped').then((ok) => ok || state(s, buf, 'completed'))).toBe(true);
    expect(await holds(() => runs(p.log).length === 0, 800)).toBe(true);
    expect(await messages(s)).not.toMatch(/Claude Code is/);

    // The picker shows it muted; m unmutes it.
    await s.nvim.feedKeys(':MadoAgents\r', 'mx', false);
    const list = `(function() local p = require('madohub.picker').current
      return p and vim.api.nvim_get_current_win() == p.list_win and table.concat(vim.api.nvim_buf_get_lines(p.list_buf, 0, -1, false), '\\n') or '' end)()`;
    expect(await s.waitFor(`${list} ~= ''`, 3000)).toBe(true);
    const rowText = (): Promise<string> => s.lua<string>(`return ${list}`);
    expect(await s.waitFor(`${list}:find('[muted]', 1, true) ~= nil`, 3000), await rowText()).toBe(true);
    await s.nvim.feedKeys('m', 'mx', false);
    expect(await s.waitFor(`${list}:find('[muted]', 1, true) == nil`, 3000), await rowText()).toBe(true);
    expect(await rowText()).toMatch(/claude/);
    await s.nvim.feedKeys('q', 'mx', false);
    await send(s, buf, 't');
    expect((await ran(p.log, 1)).length).toBe(1);

    // :MadoMute with a name and a state: only that state is silent.
    const name = await s.lua<string>(`return require('madohub').agents({ id = 'term:${buf}' })[1].name`);
    await elapse(2500); // past the burst of the first notice
    await s.nvim.feedKeys(`:MadoMute! ${name}\r`, 'mx', false);
    await s.nvim.feedKeys(`:MadoMute ${name} completed stopped\r`, 'mx', false);
    expect(
      await s.waitFor(`vim.fn.execute('messages'):find('muted when completed, stopped', 1, true) ~= nil`, 3000),
    ).toBe(true);
    await send(s, buf, 't');
    expect(await holds(() => runs(p.log).length === 1, 800)).toBe(true);
  });

  it(':MadoMute before any terminal, an unknown state word refused, mutes kept by a new Neovim and a restarted Node process', async () => {
    const p = place();
    createJob(p.env.MADOHUB_JOBS_DIR!, {
      ...blankJob('0000abcd'),
      sessionId: newSessionId(),
      status: 'done',
      tempo: 'idle',
      intent: 'fix the parser',
      name: 'parser fix',
    });
    let s = await start(p.env);
    // No terminal yet: no Node process runs; the command starts the fleet and names the job in it.
    expect(await s.lua('return require("madohub.node").running()')).toBe(false);
    await s.nvim.feedKeys(':MadoMute parser fix done\r', 'mx', false);
    expect(
      await s.waitFor(`vim.fn.execute('messages'):find('unknown state "done"', 1, true) ~= nil`, 5000),
      await messages(s),
    ).toBe(true);
    expect(await messages(s)).not.toMatch(/no agent "parser fix done"/);
    await s.nvim.feedKeys(':MadoMute parser fix waiting\r', 'mx', false);
    expect(
      await s.waitFor(`vim.fn.execute('messages'):find('parser fix: muted when waiting', 1, true) ~= nil`, 5000),
      await messages(s),
    ).toBe(true);
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await state(s, buf, 'idle')).toBe(true);
    await s.nvim.feedKeys(':MadoMute\r', 'mx', false);
    expect(await s.waitFor(`require('madohub.attention').mutes['term:${buf}'] == 'all'`, 3000)).toBe(true);

    // A restarted Node process keeps both.
    await s.nvim.feedKeys(':MadoRestart\r', 'mx', false);
    expect(await s.waitFor(`require('madohub.node').running() and #require('madohub').agents() >= 2`, 8000)).toBe(true);
    const mutes = `(function() local m = require('madohub.attention').mutes return vim.inspect({ m['term:${buf}'], m['job:0000abcd'] }) end)()`;
    expect(
      await s.waitFor(`${mutes} == vim.inspect({ 'all', { 'waiting' } })`, 5000),
      await s.lua<string>(`return ${mutes}`),
    ).toBe(true);

    // A new Neovim keeps the job's.
    await s.close();
    s = await start(p.env);
    await s.lua(`require('madohub.node').ensure()`);
    expect(
      await s.waitFor(
        `vim.inspect(require('madohub.attention').mutes['job:0000abcd']) == vim.inspect({ 'waiting' })`,
        8000,
      ),
    ).toBe(true);
  });

  it('setup() again and :MadoRestart tell no turn end again (the records read anew are an old turn)', async () => {
    const p = place();
    const s = await start(
      { ...p.env, CLAUDE_CONFIG_DIR: path.join(p.home, 'claude') },
      '{ terminal = { bell = true } }',
    );
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await state(s, buf, 'idle')).toBe(true);
    await s.lua(`vim.cmd('tabnew')`);
    await send(s, buf, 't');
    expect((await ran(p.log, 1)).length).toBe(1);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).confirmed == true`, 5000)).toBe(true);
    await elapse(2500); // past the burst of the first notice
    await s.nvim.feedKeys(':MadoRestart\r', 'mx', false);
    expect(await s.waitFor(`require('madohub.node').running()`, 8000)).toBe(true);
    // The new Node process reads the transcript anew: its last turn is the one told already.
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).confirmed == true`, 8000)).toBe(true);
    await s.lua(`require('madohub').setup({ notify = { terminal = { bell = true } } })`);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).confirmed == true`, 8000)).toBe(true);
    expect(await holds(() => runs(p.log).length === 1, 2000)).toBe(true);
    expect((await messages(s)).match(/Claude Code is (?:Completed|Stopped)/g)).toHaveLength(1);
    // The next turn is news.
    await send(s, buf, 't');
    expect((await ran(p.log, 2)).length).toBe(2);
  });

  it('each channel by its setting: desktop off, or the quiet period, tells it inside Neovim only', async () => {
    const p = place();
    const hm = (d: Date): string =>
      `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    const now = new Date();
    const later = new Date(now.getTime() + 2 * 3600 * 1000);
    const s = await start(
      p.env,
      `{ quiet = { from = '${hm(new Date(now.getTime() - 3600 * 1000))}', to = '${hm(later)}' } }`,
    );
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await state(s, buf, 'idle')).toBe(true);
    await s.lua(`vim.cmd('tabnew')`);
    await send(s, buf, 't');
    expect(await s.waitFor(`vim.fn.execute('messages'):find('Claude Code is', 1, true) ~= nil`, 10000)).toBe(true);
    expect(await holds(() => runs(p.log).length === 0, 500)).toBe(true);
    const health = await s.lua<string>(
      `vim.cmd('checkhealth madohub') return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`,
    );
    expect(health).toMatch(/madohub: notifications/);
    expect(health).toContain(`Desktop: ${NOTIFY_BIN}/notify-send`);
    expect(health).toMatch(/Quiet from \d\d:\d\d to \d\d:\d\d/);

    await s.lua(`vim.cmd('bwipeout!') require('madohub').setup({ notify = { desktop = { enabled = false } } })`);
    const other = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await state(s, other, 'idle')).toBe(true);
    await s.lua(`vim.cmd('tabnew') vim.cmd('messages clear')`);
    await send(s, other, 't');
    expect(await s.waitFor(`vim.fn.execute('messages'):find('Claude Code is', 1, true) ~= nil`, 10000)).toBe(true);
    expect(await holds(() => runs(p.log).length === 0, 500)).toBe(true);
  });

  it('with no notifier on PATH nothing fails loudly: :checkhealth says it once', async () => {
    const p = place();
    // The machine's programs but its notifiers (a machine with libnotify-bin has notify-send in /bin).
    const bin = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-path-')), 'bin');
    mkdirSync(bin);
    for (const dir of [path.dirname(process.execPath), '/bin']) {
      for (const name of readdirSync(dir)) {
        if (['notify-send', 'osascript', 'terminal-notifier'].includes(name) || existsSync(path.join(bin, name)))
          continue;
        symlinkSync(path.join(dir, name), path.join(bin, name));
      }
    }
    const s = await start({ ...p.env, PATH: bin });
    const buf = await openTerminal(s, [process.execPath, FAKE_CLAUDE]);
    expect(await state(s, buf, 'idle')).toBe(true);
    await s.lua(`vim.cmd('tabnew')`);
    await send(s, buf, 't');
    expect(await s.waitFor(`vim.fn.execute('messages'):find('Claude Code is', 1, true) ~= nil`, 10000)).toBe(true);
    expect(await messages(s)).not.toMatch(/notify-send|E\d+:/);
    const health = await s.lua<string>(
      `vim.cmd('checkhealth madohub') return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`,
    );
    expect(health).toMatch(/Desktop: no desktop notifier: notify-send .* is not on PATH/);
    // A notifier command that is a shell's script: said, with how the texts reach it.
    await s.lua(`require('madohub').setup({ notify = { desktop = { command = { 'sh', '-c', 'true {body}' } } } })`);
    const shell = await s.lua<string>(
      `vim.cmd('checkhealth madohub') return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`,
    );
    expect(shell).toContain(
      'notify.desktop.command runs a shell: in its script {title}, {body} and {urgency} become "$MADOHUB_TITLE", "$MADOHUB_BODY" and "$MADOHUB_URGENCY"',
    );
  });
});
