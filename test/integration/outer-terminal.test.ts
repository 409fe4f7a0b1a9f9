// Attention through the terminal Neovim runs in (|madohub-notify|): Neovim's own TUI runs in a PTY
// that records every byte Neovim writes to it (the outer terminal), driven over its --listen socket.
// An agent out of sight that starts waiting writes the OSC notification, the bell and the title
// there; inside tmux the notification is passed through; with the settings off, none of them.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attach } from 'neovim';
import type { NeovimClient } from 'neovim';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, ROOT, openTerminal, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { elapse, until } from '../helpers/wait.js';

interface Outer {
  /** Everything Neovim wrote to its terminal so far. */
  written(): string;
  s: Session;
  close(): Promise<void>;
}

/**
 * Neovim's TUI in a recording PTY, with `env` added to the server's. The test's launcher of Neovim
 * (scripts/get-nvim.sh: Debian's build run by its own loader) cannot start a server of its own from
 * its TUI, so the server runs headless and the TUI attaches to it (--remote-ui); the server's stderr,
 * which a TUI that started its server forwards to its terminal (Neovim 0.10's way for a plugin to
 * write there), is recorded with what the TUI writes.
 */
async function startInTerminal(exe: string, env: Record<string, string>): Promise<Outer> {
  const home = mkdtempSync(path.join(tmpdir(), 'madohub-outer-'));
  const sock = path.join(home, 'nvim.sock');
  let written = '';
  const record = (d: string): void => {
    if (written.length < 4_000_000) written += d;
  };
  const base = {
    ...(process.env as Record<string, string>),
    HOME: home,
    CLAUDE_CONFIG_DIR: '',
    TERM: 'xterm-256color',
    XDG_STATE_HOME: path.join(home, 'state'),
    XDG_DATA_HOME: path.join(home, 'data'),
    XDG_CONFIG_HOME: path.join(home, 'config'),
    MADOHUB_RUNTIME_DIR: path.join(home, 'run'),
    MADOHUB_JOBS_DIR: path.join(home, 'jobs'),
    // No desktop notifier: the terminal is the channel here.
    PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
  };
  const server = spawn(
    exe,
    ['--headless', '--clean', '-n', '-i', 'NONE', '--listen', sock, '--cmd', `set rtp^=${ROOT}`],
    {
      env: { ...base, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  server.stderr!.setEncoding('utf8');
  server.stderr!.on('data', record);
  await until(() => existsSync(sock), 10000, 50);
  const term = pty.spawn(exe, ['--remote-ui', '--server', sock], { cols: 120, rows: 40, env: base });
  term.onData(record);
  const nvim: NeovimClient = attach({ socket: sock });
  const lua = async <T>(code: string, args: unknown[] = []): Promise<T> => (await nvim.lua(code, args as never[])) as T;
  const s: Session = {
    nvim,
    proc: server,
    lua,
    waitFor: (expr, timeoutMs = 5000) =>
      lua<boolean>(`return vim.wait(${timeoutMs}, function() return ${expr} end, 10)`),
    close: async () => undefined,
  };
  expect(await s.waitFor('#vim.api.nvim_list_uis() > 0', 10000)).toBe(true);
  return {
    s,
    written: () => written,
    close: async () => {
      const exited = new Promise<void>((resolve) =>
        server.exitCode !== null ? resolve() : server.once('exit', () => resolve()),
      );
      nvim.notify('nvim_command', ['qa!']);
      const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      term.kill();
    },
  };
}

describe.each(testNeovims())('Neovim $label: the terminal Neovim runs in', ({ path: exe }) => {
  let outer: Outer | undefined;
  afterEach(async () => {
    await outer?.close();
    outer = undefined;
  });

  /** Opens the fixture Claude Code, hides it (another tab page), and makes it ask; the bytes written since. */
  const waitingOutOfSight = async (o: Outer): Promise<string> => {
    const { s } = o;
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).state == 'idle'`, 8000)).toBe(true);
    await s.lua(`vim.cmd('tabnew')`);
    // Past what the TUI wrote for the tab page: what comes now is the notice's.
    await elapse(300);
    const from = o.written().length;
    for (const state of ['working', 'waiting']) {
      await s.lua('vim.fn.chansend(vim.bo[...].channel, "n")', [buf]);
      expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).state == '${state}'`, 8000)).toBe(true);
    }
    expect(await s.waitFor(`vim.fn.execute('messages'):find('Claude Code is Waiting', 1, true) ~= nil`, 4000)).toBe(
      true,
    );
    // What the TUI flushes comes on its next redraw.
    await s.lua('vim.cmd("redraw")');
    await elapse(500);
    return o.written().slice(from);
  };

  it('OSC 777 with the question, the bell and the title, each by its setting', async () => {
    outer = await startInTerminal(exe, {});
    await outer.s.lua(`require('madohub').setup({ notify = { terminal = { osc = 777, bell = true, title = true } } })`);
    const bytes = await waitingOutOfSight(outer);
    // The question and the command it asks to run; no buffer number nor editor command.
    expect(bytes).toContain('\x1b]777;notify;');
    expect(bytes).toMatch(
      /\x1b\]777;notify;claude [^;\x1b]{0,80}: Claude Code Waiting;Do you want to proceed\? — rm -rf build\x1b\\/,
    );
    // The bell alone (not an OSC's terminator).
    expect(bytes.replaceAll(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')).toContain('\x07');
    // The title, as Neovim sets it (its TUI writes it where the terminal's terminfo says it takes one).
    expect(await outer.s.lua('return { vim.o.title, vim.o.titlestring }')).toEqual([true, '1 agent needs you — %t']);
  });

  it("inside tmux, 'auto' asks tmux which terminal its client runs in (Ghostty: OSC 777, passed through)", async () => {
    // A tmux that says its client runs in Ghostty (as `tmux display-message -p` prints it).
    const bin = mkdtempSync(path.join(tmpdir(), 'madohub-tmux-'));
    writeFileSync(path.join(bin, 'tmux'), '#!/bin/sh\nprintf "xterm-ghostty\\tghostty 1.1.3\\n"\n', { mode: 0o755 });
    outer = await startInTerminal(exe, {
      TMUX: '/tmp/tmux-0/default,1,0',
      TMUX_PANE: '%1',
      TERM_PROGRAM: 'tmux',
      PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
    });
    await outer.s.lua(`require('madohub').setup({ notify = { terminal = { osc = 'auto' } } })`);
    const bytes = await waitingOutOfSight(outer);
    expect(bytes).toContain('\x1bPtmux;\x1b\x1b]777;notify;');
    const health = await outer.s.lua<string>(
      `vim.cmd('checkhealth madohub') local t = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n') vim.cmd('bwipeout') return t`,
    );
    expect(health).toContain('OSC 777 through tmux');
  });

  it('inside tmux the notification is passed through (OSC 9); with the settings off, nothing', async () => {
    outer = await startInTerminal(exe, { TMUX: '/tmp/tmux-0/default,1,0', TMUX_PANE: '%1' });
    await outer.s.lua(`require('madohub').setup({ notify = { terminal = { osc = 9 } } })`);
    const bytes = await waitingOutOfSight(outer);
    expect(bytes).toMatch(/\x1bPtmux;\x1b\x1b\]9;claude [^\x1b]*: Claude Code Waiting: [^\x1b]*\x1b\x1b\\\x1b\\/);
    await outer.close();

    outer = await startInTerminal(exe, { TERM_PROGRAM: 'WezTerm' });
    await outer.s.lua(
      `require('madohub').setup({ notify = { terminal = { osc = false, bell = false, title = false } } })`,
    );
    const none = await waitingOutOfSight(outer);
    expect(none).not.toMatch(/\x1b\](?:9|777|99);/);
    expect(none).not.toContain('agents need you');
    expect(none).not.toContain('agent needs you');
  });

  it("'auto' writes what the terminal takes (OSC 777 for WezTerm), and nothing while Neovim has the focus", async () => {
    const started = await startInTerminal(exe, { TERM_PROGRAM: 'WezTerm' });
    outer = started;
    await outer.s.lua(`require('madohub').setup({})`);
    // The terminal says Neovim has the focus (as a terminal that reports focus does).
    await outer.s.lua(`vim.api.nvim_exec_autocmds('FocusGained', {})`);
    const focused = await waitingOutOfSight(outer);
    expect(focused).not.toMatch(/\x1b\](?:9|777|99);/);
    await outer.s.lua(`vim.api.nvim_exec_autocmds('FocusLost', {})`);
    const buf = await outer.s.lua<number>(
      `for _, e in ipairs(require('madohub').agents()) do if e.kind == 'terminal' then return e.buf end end`,
    );
    const from = outer.written().length;
    // A whole turn (past the first notice's burst): it ends Stopped or Completed, out of sight, without the focus.
    await elapse(2200);
    await outer.s.lua('vim.fn.chansend(vim.bo[...].channel, "t")', [buf]);
    expect(
      await outer.s.waitFor(
        `vim.tbl_contains({ 'stopped', 'completed' }, (require('madohub').state(${buf}) or {}).state)`,
        8000,
      ),
    ).toBe(true);
    const notice = /\x1b\]777;notify;claude [^;]*: Claude Code (?:Stopped|Completed);/;
    await outer.s.lua('vim.cmd("redraw")');
    await until(() => notice.test(started.written().slice(from)), 5000);
    expect(outer.written().slice(from)).toMatch(notice);
  });
});
