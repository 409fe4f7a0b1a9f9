// Confirmed states in real headless Neovims: fixture programs named like the agents write the
// agents' records into a temporary HOME; the Node side finds them through the process tree.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  FAKE_AMP,
  FAKE_CLAUDE,
  FAKE_CODEX,
  FAKE_GEMINI,
  FAKE_OPENCODE,
  openTerminal,
  said,
  startNeovim,
  testNeovims,
} from './neovim.js';
import type { Session } from './neovim.js';
import { sqliteSupport } from '../../src/records/sqlite.js';
import { untilValue } from '../helpers/wait.js';

// Each Neovim, with the process tree read from /proc, and from ps-list and lsof (as on macOS).
const runs = testNeovims().flatMap((nv) => [
  { ...nv, processes: 'proc' },
  { ...nv, processes: 'ps' },
]);

describe.each(runs)('Neovim $label, processes from $processes: confirmed states', ({ path: exe, processes }) => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  const start = async (): Promise<Session> => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-home-'));
    s = await startNeovim(exe, {
      HOME: home,
      CLAUDE_CONFIG_DIR: '',
      CODEX_HOME: '',
      GEMINI_CLI_HOME: '',
      XDG_DATA_HOME: path.join(home, 'data'),
      MADOHUB_PROCESS_SOURCE: processes,
    });
    await s.lua(`
      _G.done = {}
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoAgentDone', callback = function(ev) table.insert(_G.done, ev.data) end })`);
    return s;
  };
  /** Waits for a state from a source; on a timeout, fails with what the terminal is instead. */
  const is = async (s: Session, buf: number, state: string, source: string): Promise<boolean> => {
    const ok = await s.waitFor(
      `(function() local st = require('madohub').state(${buf}) or {}
        return st.state == '${state}' and st.source == '${source}' end)()`,
      8000,
    );
    if (!ok) {
      const got = await s.lua('return require("madohub").state(...)', [buf]);
      throw new Error(`buffer ${buf}: wanted ${state} from ${source}, got ${JSON.stringify(got)}`);
    }
    return ok;
  };
  const send = (s: Session, buf: number, keys: string): Promise<void> =>
    s.lua('vim.fn.chansend(vim.bo[...].channel, select(2, ...))', [buf, keys]);

  it('follows Claude Code through its session file and transcript, notifies when out of sight, and :MadoJump goes there', async () => {
    const s = await start();
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await is(s, buf, 'idle', 'session-file')).toBe(true);
    expect((await s.lua<{ agent: string }>('return require("madohub").state(...)', [buf])).agent).toBe('claude');

    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', 'session-file')).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'waiting', 'session-file')).toBe(true);
    expect((await s.lua<{ detail: string }>('return require("madohub").state(...)', [buf])).detail).toBe(
      'permission prompt',
    );
    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', 'session-file')).toBe(true);

    // Out of sight: another tab page.
    await s.lua(`vim.cmd('messages clear') vim.cmd('tabnew')`);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'completed', 'jsonl-watcher')).toBe(true);
    const bar = await untilValue(
      () =>
        s.lua<string>(
          `local win = vim.fn.win_findbuf(...)[1]
           return vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true }).str`,
          [buf],
        ),
      (text) => /Claude Code Completed ✓ \d+s/.test(text),
      5000,
    );
    expect(bar).toMatch(/Claude Code Completed ✓ \d+s/);
    // The ✓ is the Node side's word (`confirmed`), given with the state and the fleet entry.
    expect(await s.lua('return require("madohub").state(...).confirmed', [buf])).toBe(true);
    expect(await s.lua('return require("madohub").agents({ id = "term:" .. ... })[1].confirmed', [buf])).toBe(true);
    const done = await s.lua<{ line: string }[]>('return _G.done');
    expect(done, JSON.stringify(done)).toHaveLength(1);
    // Whichever told the end first (the transcript, with the turn's answer, or the screen's completion line): once.
    expect(['Removed the build folder.', '✻ Baked for 10s']).toContain(done[0]!.line);
    // The notice comes with the state or a moment after it (a loaded machine read the messages first).
    await s.waitFor(said('Claude Code is Completed in buffer'));
    const messages = await s.lua<string>(`return vim.fn.execute('messages')`);
    // Once, in the settled word: the screen's end waits for the transcript's (no Stopped told first).
    expect(messages.match(/Claude Code is (?:Completed|Stopped) in buffer \d+/g) ?? [], messages).toHaveLength(1);
    // Named as the picker names it, with the way there, as a job's notification is.
    expect(messages).toMatch(/Claude Code is Completed in buffer \d+ \(claude [^)]+\) — :MadoJump/);

    await s.lua('vim.cmd("MadoJump")');
    expect(await s.lua('return vim.api.nvim_get_current_buf()')).toBe(buf);
    expect(await s.lua('return vim.fn.tabpagenr()')).toBe(1);

    // The agent leaves: its records go with it and the split is a terminal that exited.
    await send(s, buf, 'q');
    expect(await is(s, buf, 'exited', 'terminal')).toBe(true);
  });

  it('follows two Codex sessions in one folder without crossing them', async () => {
    const s = await start();
    const a = await openTerminal(s, [FAKE_CODEX]);
    expect(await s.waitFor(`(require('madohub').state(${a}) or {}).agent == 'codex'`)).toBe(true);
    const b = await openTerminal(s, [FAKE_CODEX]);
    expect(await s.waitFor(`(require('madohub').state(${b}) or {}).agent == 'codex'`)).toBe(true);

    await send(s, a, 'n');
    expect(await is(s, a, 'working', 'jsonl-watcher')).toBe(true);
    expect(await s.lua('return require("madohub").state(...).source', [b])).toBe('pty-scrape');
    await send(s, b, 'n');
    expect(await is(s, b, 'working', 'jsonl-watcher')).toBe(true);
    await send(s, b, 'n');
    expect(await is(s, b, 'completed', 'jsonl-watcher')).toBe(true);
    expect(await s.lua('return require("madohub").state(...).state', [a])).toBe('working');
    await send(s, a, 'n');
    expect(await is(s, a, 'completed', 'jsonl-watcher')).toBe(true);
    expect((await s.lua<{ detail: string }>('return require("madohub").state(...)', [a])).detail).toBe(
      'Fixed the off-by-one in src/parser.ts.',
    );
  });

  it('follows Gemini CLI through its chat: prompt, tool call, approval, answer, an Escape, an API error', async () => {
    const s = await start();
    const buf = await openTerminal(s, [FAKE_GEMINI]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'gemini'`)).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', 'jsonl-watcher')).toBe(true);
    // The model calls a tool (recorded), then asks for approval (on the screen only): the screen's question wins.
    await send(s, buf, 'n');
    expect(await is(s, buf, 'waiting', 'pty-scrape')).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', 'jsonl-watcher')).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'completed', 'jsonl-watcher')).toBe(true);
    expect((await s.lua<{ detail: string }>('return require("madohub").state(...)', [buf])).detail).toBe(
      'Done: the change is made.',
    );
    const bar = async (): Promise<string> =>
      s.lua<string>(
        `local win = vim.fn.win_findbuf(...)[1]
         return vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true }).str`,
        [buf],
      );
    expect(await bar()).toMatch(/Gemini Completed ✓/);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', 'jsonl-watcher')).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'failed', 'jsonl-watcher')).toBe(true);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).detail == 'interrupted'`)).toBe(true);
    expect(await bar()).toMatch(/Gemini Interrupted ✓/);
    await send(s, buf, 'n');
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).detail:find('API Error', 1, true) ~= nil`)).toBe(
      true,
    );
    expect(await bar()).toMatch(/Gemini Error ✓/);
    // The session its chat names (Gemini's own id).
    const session = await s.lua<{ sessionId?: string }>(
      'return require("madohub.node").request("session", { buf = ... })',
      [buf],
    );
    expect(session.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it("a chat naming a session id that is no id (a line's worth of text, a shell command) is followed, its id not passed on", async () => {
    const s = await start();
    for (const hostile of ['x'.repeat(5000), '$(touch /tmp/pwned); rm -rf ~']) {
      const buf = await openTerminal(s, ['env', `MADOHUB_FIXTURE_SESSION_ID=${hostile}`, FAKE_GEMINI]);
      expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'gemini'`)).toBe(true);
      await send(s, buf, 'n');
      expect(await is(s, buf, 'working', 'jsonl-watcher')).toBe(true);
      const session = await s.lua<{ agent: string; sessionId?: string }>(
        'return require("madohub.node").request("session", { buf = ... })',
        [buf],
      );
      expect(session).toMatchObject({ agent: 'gemini' });
      expect(session.sessionId ?? null).toBeNull();
    }
  });

  // The Node that runs the tests runs the plugin's Node process too (it is the first in PATH).
  const sqlite = sqliteSupport().ok;

  it(`follows OpenCode through its session store${sqlite ? '' : ' (not here: this Node has no node:sqlite, so from its screen, and :checkhealth says why)'}`, async () => {
    const s = await start();
    const buf = await openTerminal(s, [FAKE_OPENCODE]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'opencode'`)).toBe(true);
    const confirmed = sqlite ? 'session-db' : 'pty-scrape';
    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', confirmed)).toBe(true);
    // Its permission prompt is on the screen only: the screen's question wins over the store's Working.
    await send(s, buf, 'n');
    expect(await is(s, buf, 'waiting', 'pty-scrape')).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', confirmed)).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, sqlite ? 'completed' : 'stopped', confirmed)).toBe(true);
    if (sqlite)
      expect((await s.lua<{ detail: string }>('return require("madohub").state(...)', [buf])).detail).toBe(
        'Done: the change is made.',
      );
    // One Escape: still working (the answer streams on); two: Failed, interrupted.
    await send(s, buf, 'n');
    expect(await is(s, buf, 'working', confirmed)).toBe(true);
    await send(s, buf, 'n');
    expect(await is(s, buf, 'failed', confirmed)).toBe(true);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).detail == 'interrupted'`)).toBe(true);
    await send(s, buf, 'n');
    expect(
      await s.waitFor(
        `(require('madohub').state(${buf}) or {}).detail == '${sqlite ? 'Bad request from the mock' : 'error'}'`,
      ),
    ).toBe(true);
    const bar = await s.lua<string>(
      `local win = vim.fn.win_findbuf(...)[1]
       return vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true }).str`,
      [buf],
    );
    expect(bar).toMatch(sqlite ? /OpenCode Error ✓/ : /OpenCode Error(?! ✓)/);
    await s.lua("vim.cmd('checkhealth madohub')");
    const report = (await s.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')).join('\n');
    expect(report).toContain(
      sqlite ? "OpenCode's session store: read with node:sqlite" : "OpenCode's session store is not read: Node v",
    );
  });

  it('follows an OpenCode started with --port through its event stream, on any Node: its permission is Waiting before the screen shows it', async () => {
    const s = await start();
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const buf = await openTerminal(s, [FAKE_OPENCODE, '--port', String(port)]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'opencode'`)).toBe(true);
    // Its server listens a moment after it starts, and is found in /proc: busy until it is heard.
    const heard = async (): Promise<boolean> => {
      for (let i = 0; i < 40; i++) {
        await send(s, buf, 'B');
        if (await s.waitFor(`(require('madohub').state(${buf}) or {}).source == 'event-stream'`, 250)) return true;
      }
      return false;
    };
    expect(await heard()).toBe(true);
    await send(s, buf, 'A');
    expect(await is(s, buf, 'waiting', 'event-stream')).toBe(true);
    expect((await s.lua<{ detail: string }>('return require("madohub").state(...)', [buf])).detail).toBe(
      'bash: touch mock-ran.txt',
    );
    await send(s, buf, 'R');
    expect(await is(s, buf, 'working', 'event-stream')).toBe(true);
    await send(s, buf, 'I');
    expect(await is(s, buf, 'completed', 'event-stream')).toBe(true);
  });

  it('the process tree names the agent over the screen, and the shell is back when the agent leaves', async () => {
    const s = await start();
    const buf = await openTerminal(s, ['sh']);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'shell'`)).toBe(true);
    // Amp's screen here shows a shell prompt and no marker of Amp: its process says who it is.
    await send(s, buf, `${FAKE_AMP}\r`);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'amp'`, 8000)).toBe(true);
    await send(s, buf, 'q');
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'shell'`, 8000)).toBe(true);
    await send(s, buf, `${FAKE_CLAUDE}\r`);
    expect(await is(s, buf, 'idle', 'session-file')).toBe(true);
    await send(s, buf, 'q');
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'shell'`, 8000)).toBe(true);
    expect(await s.lua('return require("madohub").state(...).source', [buf])).toBe('pty-scrape');
    // :checkhealth says where processes are read from.
    expect(await s.lua<{ processes: string }>('return require("madohub.node").request("health")')).toMatchObject({
      processes,
    });
    await s.lua("vim.cmd('checkhealth madohub')");
    const report = (await s.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')).join('\n');
    expect(report).toContain(
      processes === 'ps' ? 'Processes: read with ps-list and lsof' : 'Processes: read from /proc',
    );
  });
});
