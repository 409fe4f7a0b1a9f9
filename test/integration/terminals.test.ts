// The real Lua side with the real built Node side, in real headless Neovims (0.10 and 0.12).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAgent, openTerminal, startNeovim, testNeovims } from './neovim.js';
import { FIX } from './jobs-harness.js';
import type { Session } from './neovim.js';
import { elapse, holds } from '../helpers/wait.js';

interface StateView {
  agent: string;
  state: string;
  source: string;
  since: number;
  detail: string;
}

interface Winbar {
  text: string;
  groups: string[];
}

const neovims = testNeovims();

describe.each(neovims)('Neovim $label', ({ path: exe }) => {
  let s: Session;
  beforeEach(async () => {
    s = await startNeovim(exe);
    await s.lua(`
      _G.events = {}
      vim.api.nvim_create_autocmd('User', {
        pattern = { 'MadoStateChanged', 'MadoAgentDone' },
        callback = function(ev) table.insert(_G.events, { name = ev.match, data = ev.data }) end,
      })`);
  });
  afterEach(async () => {
    await s.close();
  });

  const state = (buf: number): Promise<StateView | null> =>
    s.lua<StateView | null>('return require("madohub").state(...)', [buf]);
  const waitState = (buf: number, st: string, agent?: string, timeout = 5000): Promise<boolean> =>
    s.waitFor(
      `(require('madohub').state(${buf}) or {}).state == '${st}'` +
        (agent ? ` and require('madohub').state(${buf}).agent == '${agent}'` : ''),
      timeout,
    );
  const winbar = (buf: number): Promise<Winbar> =>
    s.lua<Winbar>(
      `local win = vim.fn.bufwinid(...)
       local wb = vim.wo[win].winbar
       local r = vim.api.nvim_eval_statusline(wb, { winid = win, use_winbar = true, highlights = true })
       local groups = {}
       for _, h in ipairs(r.highlights) do groups[#groups + 1] = h.group end
       return { text = r.str, groups = groups }`,
      [buf],
    );
  const send = (buf: number, keys: string): Promise<void> =>
    s.lua('vim.fn.chansend(vim.bo[...].channel, select(2, ...))', [buf, keys]);
  const nodePid = (): Promise<number | null> => s.lua('return require("madohub.node").pid()');

  it('follows agents in several splits through their states, with winbar text and highlight', async () => {
    const claude = await openAgent(s, [
      'claude-idle',
      'claude-working',
      'claude-approval',
      'claude-stopped',
      '--exit',
      '3',
    ]);
    const codex = await openAgent(s, ['codex-idle', 'codex-working', 'codex-approval', 'codex-stopped'], true);
    const shell = await s.lua<number>(`vim.cmd('new | terminal sh') return vim.api.nvim_get_current_buf()`);
    // The Node process starts with the first terminal, once.
    expect(await nodePid()).toBeGreaterThan(0);

    // The first reading waits on the Node process's start: on a loaded machine, seconds.
    expect(await waitState(claude, 'idle', 'claude', 15_000)).toBe(true);
    expect(await waitState(codex, 'idle', 'codex', 15_000)).toBe(true);
    expect(await waitState(shell, 'idle', 'shell', 15_000)).toBe(true);
    expect((await state(claude))?.agent).toBe('claude');
    expect((await state(codex))?.agent).toBe('codex');
    expect(await state(shell)).toMatchObject({ agent: 'shell', state: 'idle', source: 'pty-scrape' });
    // One Lua cache: state() is the fleet's entry of the terminal, field for field.
    expect(
      await s.lua<boolean>(
        `local st, e = require('madohub').state(...), require('madohub.fleet').terminal(...)
      return st.agent == e.agent and st.state == e.state and st.since == e.since and st.source == e.source and st.detail == e.detail`,
        [claude],
      ),
    ).toBe(true);
    let bar = await winbar(claude);
    expect(bar.text).toMatch(/Claude Code Idle \d+s/);
    expect(bar.groups).toContain('MadoIdle');
    expect((await winbar(shell)).text).toMatch(/Shell Idle/);

    await send(claude, 'n');
    expect(await waitState(claude, 'working')).toBe(true);
    bar = await winbar(claude);
    expect(bar.text).toMatch(/Claude Code Working/);
    expect(bar.groups).toContain('MadoWorking');
    // The animation timer runs while a Working terminal is visible.
    expect(await s.lua('return { require("madohub.ui").timer_state() }')).toEqual([true, 120]);

    await send(codex, 'n');
    expect(await waitState(codex, 'working')).toBe(true);
    await send(codex, 'n');
    expect(await waitState(codex, 'waiting')).toBe(true);
    expect((await winbar(codex)).groups).toContain('MadoWaiting');

    await send(claude, 'n');
    expect(await waitState(claude, 'waiting')).toBe(true);
    bar = await winbar(claude);
    expect(bar.text).toMatch(/Claude Code Waiting/);
    expect(bar.groups).toContain('MadoWaiting');

    await send(claude, 'n');
    expect(await waitState(claude, 'stopped')).toBe(true);
    expect((await winbar(claude)).groups).toContain('MadoStopped');
    // The same completion seen again (a redraw) fires no second MadoAgentDone.
    await send(claude, 'n');
    await elapse(200);
    const done = await s.lua<{ data: { buf: number; line: string } }[]>(
      `local buf = ...
       return vim.tbl_filter(function(e) return e.name == 'MadoAgentDone' and e.data.buf == buf end, _G.events)`,
      [claude],
    );
    expect(done).toHaveLength(1);
    expect(done[0]!.data.line).toBe('✻ Baked for 10s');

    await send(claude, 'q');
    expect(await waitState(claude, 'exited')).toBe(true);
    expect(await state(claude)).toMatchObject({
      agent: 'claude',
      state: 'exited',
      source: 'terminal',
      detail: 'exit 3',
    });
    bar = await winbar(claude);
    expect(bar.text).toMatch(/Claude Code Exited 3/);
    expect(bar.groups).toContain('MadoExited');

    const changes = await s.lua<{ data: { buf: number; state: string; previous: unknown } }[]>(
      `local buf = ...
       return vim.tbl_filter(function(e) return e.name == 'MadoStateChanged' and e.data.buf == buf end, _G.events)`,
      [claude],
    );
    expect(changes.map((e) => e.data.state)).toEqual(['idle', 'working', 'waiting', 'stopped', 'exited']);
    expect(changes[1]!.data.previous).toBe('idle');
  });

  it('a window that stops showing a terminal gets its own winbar and highlights back', async () => {
    await s.lua(`vim.wo.winbar = 'mine'`);
    const buf = await openAgent(s, ['claude-working']);
    expect(await waitState(buf, 'working')).toBe(true);
    const win = await s.lua<number>('return vim.fn.bufwinid(...)', [buf]);
    expect(await s.lua('return vim.wo[...].winbar', [win])).toContain('madohub');
    expect(await s.lua('return vim.api.nvim_get_hl_ns({ winid = ... })', [win])).not.toBe(0);
    await s.lua(`vim.wo[...].winbar = 'user bar'`, [win]);
    // Any terminal redraw puts the label back; then the window shows a file.
    await s.lua(`vim.cmd('enew')`);
    const other = await s.lua<number>('return vim.api.nvim_get_current_win()');
    expect(await s.lua('return vim.wo[...].winbar', [other])).not.toContain('madohub');
    // The first window (the one 'mine' was set in) is untouched.
    expect(await s.lua(`return vim.wo[vim.fn.win_getid(vim.fn.winnr('$'))].winbar`)).toBe('mine');
  });

  /** Each snapshot the watcher takes for the Node side, timed as it starts, goes in `_G.sent`. */
  const timeSnapshots = (): Promise<unknown> =>
    s.lua(`
      _G.sent = {}
      local watch = require('madohub.watch')
      local flush = watch.flush
      watch.flush = function(buf)
        table.insert(_G.sent, vim.uv.hrtime() / 1e6)
        return flush(buf)
      end`);

  /**
   * The most snapshots of `sent` (from `from` on) beyond what one per `interval` ms allows, over every
   * run of them: the burst the watcher let through back to back (each time within 2 ms: the interval
   * is counted on one clock, a timer fires on another).
   */
  const burstOf = (from: number, interval: number): Promise<number> =>
    s.lua<number>(
      `local from, interval = ...
       local t, worst = _G.sent, 0
       for i = from, #t do
         for j = i, #t do
           worst = math.max(worst, (j - i + 1) - (t[j] - t[i] + 2) / interval)
         end
       end
       return worst`,
      [from, interval],
    );

  it('a terminal flooding with output makes one snapshot per watch.interval, two back to back at most', async () => {
    await timeSnapshots();
    const buf = await openTerminal(s, ['node', path.join(FIX, 'bin/spew')]);
    expect(await s.waitFor('#_G.sent >= 20', 20000)).toBe(true);
    const interval = await s.lua<number>("return require('madohub.config').options.watch.interval");
    expect(await burstOf(1, interval)).toBeLessThanOrEqual(2);
    await s.lua(`vim.fn.jobstop(vim.bo[${buf}].channel)`);
  });

  it("a change soon after another goes at once (a spinner's frame does not hold back the change after it)", async () => {
    await timeSnapshots();
    // Two changes 12 ms apart (two of Neovim's terminal refreshes), every 200 ms: a spinner's frame,
    // then the screen the agent changed to.
    const buf = await openTerminal(s, [
      'node',
      '-e',
      "setInterval(() => { process.stdout.write('frame\\n'); setTimeout(() => process.stdout.write('change\\n'), 12) }, 200)",
    ]);
    await s.lua(
      `local buf = ...
       _G.changed = {}
       vim.api.nvim_buf_attach(buf, false, { on_lines = function() table.insert(_G.changed, vim.uv.hrtime() / 1e6) end })`,
      [buf],
    );
    const from = await s.lua<number>('return #_G.sent + 2');
    expect(await s.waitFor(`#_G.sent >= ${from + 20}`, 20000)).toBe(true);
    // Each snapshot's wait: from the first change after the snapshot before it.
    const waits = await s.lua<number[]>(
      `local from = ...
       local out, c = {}, 1
       for i = from, #_G.sent do
         while c <= #_G.changed and _G.changed[c] <= _G.sent[i - 1] do c = c + 1 end
         if c <= #_G.changed and _G.changed[c] <= _G.sent[i] then out[#out + 1] = _G.sent[i] - _G.changed[c] end
       end
       return out`,
      [from],
    );
    // Sent in the loop turn after the change (a wait of the interval for every second one before).
    expect(waits.filter((w) => w < 5).length).toBeGreaterThanOrEqual(Math.ceil(waits.length * 0.8));
    await s.lua(`vim.fn.jobstop(vim.bo[${buf}].channel)`);
  });

  it('a terminal out of sight makes one snapshot per watch.hidden_interval; back in sight, one per watch.interval', async () => {
    await timeSnapshots();
    const buf = await openTerminal(s, ['node', path.join(FIX, 'bin/spew')]);
    const [interval, hidden] = await s.lua<[number, number]>(
      "local w = require('madohub.config').options.watch return { w.interval, w.hidden_interval }",
    );
    const gapsFrom = (first: number): Promise<number[]> =>
      s.lua<number[]>(
        'local first = ... local g = {} for i = first + 1, #_G.sent do g[#g + 1] = _G.sent[i] - _G.sent[i - 1] end return g',
        [first],
      );
    // Another tab page: no window of the current one shows the terminal.
    const hiddenFrom = await s.lua<number>(`vim.cmd('tabnew') return #_G.sent + 1`);
    expect(await s.waitFor(`#_G.sent >= ${hiddenFrom + 10}`, 20000)).toBe(true);
    expect(await burstOf(hiddenFrom, hidden)).toBeLessThanOrEqual(2);
    // Its tab page again: snapshots by the in-sight interval.
    const shownFrom = await s.lua<number>(`vim.cmd('tabprevious') return #_G.sent + 1`);
    expect(await s.waitFor(`#_G.sent >= ${shownFrom + 10}`, 20000)).toBe(true);
    expect(await burstOf(shownFrom, interval)).toBeLessThanOrEqual(2);
    const shown = (await gapsFrom(shownFrom)).sort((a, b) => a - b);
    expect(shown[Math.floor(shown.length / 2)]).toBeLessThan(hidden - 2);
    await s.lua(`vim.fn.jobstop(vim.bo[${buf}].channel)`);
  });

  it('forgets a wiped buffer', async () => {
    const buf = await openAgent(s, ['claude-idle']);
    expect(await waitState(buf, 'idle', 'claude')).toBe(true);
    await s.lua(`vim.cmd('bwipeout! ' .. ...)`, [buf]);
    expect(await state(buf)).toBeNull();
    expect(await s.lua('return require("madohub.watch").count()')).toBe(0);
    expect(await s.waitFor(`(require('madohub.node').request('health') or {}).terminals == 0`)).toBe(true);
    expect(await s.lua('return vim.v.errmsg')).toBe('');
  });

  it('an approval pushed into the scrollback no longer counts', async () => {
    const buf = await openAgent(s, ['claude-approval', 'claude-idle']);
    expect(await waitState(buf, 'waiting')).toBe(true);
    // Output pushes the approval into the scrollback; then the agent redraws its idle screen.
    await send(buf, 'o');
    await send(buf, 'n');
    expect(await waitState(buf, 'idle', 'claude')).toBe(true);
    const approvalStillInBuffer = await s.lua<number>(
      `local lines = vim.api.nvim_buf_get_lines(..., 0, -1, false)
       return #vim.tbl_filter(function(l) return l:find('Do you want to proceed?', 1, true) ~= nil end, lines)`,
      [buf],
    );
    expect(approvalStillInBuffer).toBeGreaterThan(0);
  });

  it('a window scrolled back over an earlier turn (its spinner in view) reads as the screen is: its bottom decides', async () => {
    const buf = await openAgent(s, ['claude-working', 'claude-idle']);
    expect(await waitState(buf, 'working')).toBe(true);
    await send(buf, 'o');
    await send(buf, 'n');
    expect(await waitState(buf, 'idle', 'claude')).toBe(true);
    // The user scrolls the window back to the top, where the old spinner is; a redraw is read.
    await s.lua(
      `local win = vim.fn.bufwinid(...) vim.api.nvim_win_call(win, function() vim.cmd('stopinsert') vim.cmd('normal! gg') end)`,
      [buf],
    );
    const top = await s.lua<string>(
      `local win = vim.fn.bufwinid(...) return vim.api.nvim_win_call(win, function() return table.concat(vim.fn.getline(vim.fn.line('w0'), vim.fn.line('w$')), '\\n') end)`,
      [buf],
    );
    expect(top).toContain('esc to interrupt');
    await s.lua(`vim.cmd('wincmd =') require('madohub.watch').touch(...)`, [buf]);
    expect(await holds(async () => (await state(buf))?.state === 'idle', 600, 50)).toBe(true);
  });

  it('recovers after the Node process is killed', async () => {
    const buf = await openAgent(s, ['claude-idle', 'claude-working']);
    expect(await waitState(buf, 'idle', 'claude')).toBe(true);
    const first = await nodePid();
    const since = (await state(buf))!.since;
    process.kill(first!, 'SIGKILL');
    expect(await s.waitFor(`(require('madohub.node').pid() or ${first}) ~= ${first}`, 8000)).toBe(true);
    // The new process reads the terminal again; the state did not begin anew.
    expect(await s.waitFor(`(require('madohub.node').request('health') or {}).terminals == 1`)).toBe(true);
    expect((await state(buf))!.since).toBe(since);
    await send(buf, 'n');
    expect(await waitState(buf, 'working')).toBe(true);
    const warnings = await s.lua<string>(`return vim.fn.execute('messages')`);
    expect(warnings.match(/Node process exited/g)).toHaveLength(1);
    expect(await s.lua('return (require("madohub.node").request("health") or {}).terminals')).toBe(1);
  });

  it('watches terminals opened before setup(), and :UpdateRemotePlugins starts no second process', async () => {
    const fresh = await startNeovim(exe, {});
    try {
      await fresh.lua('vim.g.madohub_autosetup = false');
      const buf = await openAgent(fresh, ['codex-idle']);
      expect(
        await holds(async () => (await fresh.lua('return require("madohub.node").running()')) === false, 200),
      ).toBe(true);
      await fresh.lua('require("madohub").setup({ winbar = { time = false } })');
      expect(await fresh.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'codex'`)).toBe(true);
      const pid = await fresh.lua<number>('return require("madohub.node").pid()');
      // No node host is installed here: it must still not error (nor start anything). --clean leaves
      // the manifest path a dummy; give it the real one a normal startup has.
      const manifest = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-rplugin-')), 'rplugin.vim');
      await fresh.lua('vim.g.loaded_remote_plugins = ...', [manifest]);
      expect(await fresh.lua(`return (pcall(vim.cmd, 'UpdateRemotePlugins'))`)).toBe(true);
      expect(await fresh.lua('return require("madohub.node").pid()')).toBe(pid);
      const hosts = await fresh.lua<number>(`
        return #vim.tbl_filter(function(c)
          return type(c.argv) == 'table' and table.concat(c.argv, ' '):find('madohub', 1, true) ~= nil
        end, vim.api.nvim_list_chans())`);
      expect(hosts).toBe(1);
      const bar = await fresh.lua<string>(
        `local win = vim.fn.bufwinid(...) return vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true }).str`,
        [buf],
      );
      expect(bar.trim()).toBe('Codex Idle');
    } finally {
      await fresh.close();
    }
  });

  it('serves a statusline instead of the winbar when asked, and :checkhealth reports', async () => {
    await s.lua(`require('madohub').setup({ winbar = { enabled = false } })`);
    const buf = await openAgent(s, ['gemini-working']);
    expect(await waitState(buf, 'working', 'gemini')).toBe(true);
    const win = await s.lua<number>('return vim.fn.bufwinid(...)', [buf]);
    expect(await s.lua('return vim.wo[...].winbar', [win])).toBe('');
    const line = await s.lua<string>(
      `vim.api.nvim_set_current_win(...)
       return vim.api.nvim_eval_statusline("%{%v:lua.require'madohub'.statusline()%}", { winid = ... }).str`,
      [win],
    );
    expect(line).toMatch(/Gemini Working \d+s/);
    const health = await s.lua<string>(`vim.cmd('checkhealth madohub')
      return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`);
    expect(health).toMatch(/OK Neovim 0\.1\d/);
    expect(health).toMatch(/OK Node v\d+/);
    expect(health).toMatch(/OK node-pty loads/);
    expect(health).toMatch(/OK Terminals watched: 1 \(the Node process tracks 1\)/);
    expect(health).not.toMatch(/ERROR/);
  });

  it(':checkhealth before the first terminal (as the README says to run it) checks Node, node-pty, mado, the jobs folder and the daemon', async () => {
    const health = await s.lua<string>(`vim.cmd('checkhealth madohub')
      return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`);
    expect(health).toMatch(/OK Node v\d+/);
    expect(health).toMatch(/Started for this check/);
    expect(health).toMatch(/OK node-pty loads/);
    expect(health).toMatch(/OK mado built: /);
    expect(health).toMatch(/Jobs folder: \//);
    expect(health).toMatch(/OK Daemon: /);
    // Where mado is, and how to put it on PATH (it is not, here).
    expect(health).toMatch(/mado is not on PATH \(it is .*\/bin\/mado\)|OK mado is on PATH: /);
    if (/mado is not on PATH/.test(health)) {
      // The commands that do it: the folder made, the link, and the folder put on PATH when it is not.
      expect(health).toMatch(/mkdir -p ~\/\.local\/bin && ln -s \/.*\/bin\/mado ~\/\.local\/bin\/mado/);
      const [home, PATH] = await s.lua<[string, string]>('return { vim.env.HOME, vim.env.PATH }');
      const onPath = PATH.split(':').includes(path.join(home, '.local/bin'));
      if (!onPath) expect(health).toContain('export PATH="$HOME/.local/bin:$PATH"');
    }
    // Information for OpenCode's users (a Node without node:sqlite) is no warning for everyone.
    expect(health).not.toMatch(/WARNING/);
    expect(health).not.toMatch(/ERROR/);
  });

  it('refuses clearly without a usable node, and on an old Neovim', async () => {
    const msg = await s.lua<string>(`
      vim.g.madohub_autosetup = false
      require('madohub').setup({ node = 'no-such-node-binary' })
      return vim.fn.execute('messages')`);
    expect(msg).toMatch(/no `no-such-node-binary` executable found; install Node >= 20/);
    expect(msg.match(/madohub:/g)).toHaveLength(1);
    const termOpenAutocmds = `local ok, r = pcall(vim.api.nvim_get_autocmds, { group = 'madohub', event = 'TermOpen' })
      return ok and #r or 0`;
    expect(await s.lua(termOpenAutocmds)).toBe(0);
    // A Node that is too old: one message (the check does not block setup()), and MadoHub turns off.
    const fakeNode = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-node-')), 'node');
    writeFileSync(fakeNode, '#!/bin/sh\necho v18.19.0\n', { mode: 0o755 });
    await s.lua(`vim.cmd('messages clear') require('madohub').setup({ node = ... })`, [fakeNode]);
    expect(await s.waitFor(`vim.fn.execute('messages'):find('Node >= 20 is needed', 1, true) ~= nil`)).toBe(true);
    expect(await s.lua('return require("madohub").configured')).toBe(false);
    expect(await s.lua(termOpenAutocmds)).toBe(0);
    expect(await s.lua('return require("madohub").configured')).toBe(false);
    // A Node slow to say its version (a loaded machine) is not called broken: the check that gives
    // up waiting keeps no verdict, and the next one asks again.
    const slowNode = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-node-')), 'node');
    writeFileSync(slowNode, '#!/bin/sh\nsleep 1\necho v20.19.0\n', { mode: 0o755 });
    const slow = await s.lua<[unknown, unknown]>(
      `
      local node, config = require('madohub.node_exe'), require('madohub.config')
      config.options.node = ...
      node.node_version, node.node_error, node.VERSION_WAIT_MS = nil, nil, 200
      local first = node.check_node()
      local kept = node.node_version
      node.VERSION_WAIT_MS = 5000
      return { first or vim.NIL, kept or vim.NIL }`,
      [slowNode],
    );
    expect(slow).toEqual([null, null]);
    expect(
      await s.lua(
        `return { require('madohub.node_exe').check_node() or vim.NIL, require('madohub.node_exe').node_version }`,
      ),
    ).toEqual([null, 'v20.19.0']);
    // A Node whose first run fails (a loaded machine failed one in CI) is run once more before it is
    // called not runnable, by the blocking check and the one that does not block alike.
    const flakyDir = mkdtempSync(path.join(tmpdir(), 'madohub-node-'));
    const flakyNode = path.join(flakyDir, 'node');
    const failed = path.join(flakyDir, 'failed-once');
    writeFileSync(flakyNode, `#!/bin/sh\n[ -e ${failed} ] || { touch ${failed}; exit 1; }\necho v20.19.0\n`, {
      mode: 0o755,
    });
    const checks = await s.lua<[unknown, unknown]>(
      `
      local node, config = require('madohub.node_exe'), require('madohub.config')
      config.options.node = ...
      node.forget()
      local blocking = { node.check_node() or vim.NIL, node.node_version }
      vim.fn.delete(select(2, ...))
      node.forget()
      local said = vim.NIL
      node.check_node_async(function(msg) said = msg end)
      vim.wait(5000, function() return node.node_version ~= nil end)
      return { blocking, { said, node.node_version or vim.NIL } }`,
      [flakyNode, failed],
    );
    expect(checks).toEqual([
      [null, 'v20.19.0'],
      [null, 'v20.19.0'],
    ]);
    const old = await s.lua<string>(`
      local has = vim.fn.has
      vim.fn.has = function(f) if f == 'nvim-0.10' then return 0 end return has(f) end
      local ok = pcall(require('madohub').setup)
      vim.fn.has = has
      return vim.fn.execute('messages')`);
    expect(old).toMatch(/Neovim >= 0\.10 is needed/);
    expect(await s.lua('return #vim.api.nvim_get_autocmds({ group = "madohub_boot" })')).toBe(1);
  });
});
