// Background jobs from Neovim (0.10 and 0.12): :MadoBackground, :MadoAttach, :MadoLogs, :MadoStop.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT, FAKE_CLAUDE, FAKE_CODEX, ROOT, openAgent, openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { killJobsOf } from './jobs-harness.js';

const MADO = path.join(ROOT, 'bin/mado');

describe.each(testNeovims())('Neovim $label: background jobs', ({ path: exe }) => {
  let s: Session | undefined;
  let env: Record<string, string>;
  afterEach(async () => {
    await s?.close();
    s = undefined;
    await killJobsOf(env.MADOHUB_JOBS_DIR!);
  });

  const agents = (): {
    short: string;
    name: string;
    status: string;
    alive: boolean;
    pinned: boolean;
    resumeSessionId: string | null;
    intent: string;
    template: { name: string };
  }[] =>
    JSON.parse(
      execFileSync(process.execPath, [MADO, 'agents', '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' }),
    );

  it('backgrounds a Claude Code split, attaches to it, shows its logs, and it outlives Neovim', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-nvjobs-'));
    const templates = path.join(base, 'templates.json');
    // "claude" runs the fixture named like it (it ignores the --resume it is given).
    writeFileSync(
      templates,
      JSON.stringify({
        claude: { command: [FAKE_CLAUDE], prompt: 'arg', resume: ['--resume', '{id}'] },
        gemini: { command: ['node', AGENT, 'gemini-idle'], prompt: 'type' },
      }),
    );
    env = {
      HOME: base,
      CLAUDE_CONFIG_DIR: '',
      MADOHUB_TEMPLATES: templates,
      MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
    };
    s = await startNeovim(exe, env);
    const sh = await openTerminal(s, ['sh']);
    await s.waitFor(`require('madohub').state(${sh}) ~= nil`);
    await s.lua(`vim.cmd('messages clear') vim.cmd('MadoBackground')`);
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(/Nothing to background yet/);

    // An agent that has exited and left no session to resume is refused (its old prompt is not run again).
    const ended = await openAgent(s, ['gemini-working']);
    expect(await s.waitFor(`(require('madohub').state(${ended}) or {}).agent == 'gemini'`)).toBe(true);
    await s.lua(`vim.api.nvim_chan_send(vim.bo[...].channel, 'q')`, [ended]);
    expect(await s.waitFor(`(require('madohub').state(${ended}) or {}).state == 'exited'`)).toBe(true);
    await s.lua(`vim.cmd('messages clear') vim.api.nvim_set_current_buf(...) vim.cmd('MadoBackground')`, [ended]);
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /has exited and left no session to resume/,
    );
    expect(agents()).toEqual([]);

    // Gemini has no session to resume: the prompt it echoed is dispatched again.
    const gem = await openAgent(s, ['gemini-working']);
    expect(await s.waitFor(`(require('madohub').state(${gem}) or {}).agent == 'gemini'`)).toBe(true);
    // A dispatch that fails (here its daemon cannot listen) says why and leaves the split as it was.
    const blocked = path.join(env.MADOHUB_RUNTIME_DIR!, 'daemon.sock');
    mkdirSync(blocked, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(blocked, 'keep'), '');
    await s.lua(`local b = ... vim.cmd('messages clear') vim.api.nvim_set_current_buf(b) vim.cmd('MadoBackground')`, [
      gem,
    ]);
    expect(await s.waitFor(`vim.fn.execute('messages'):find('MadoBackground failed', 1, true) ~= nil`, 15000)).toBe(
      true,
    );
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /:MadoBackground failed: cannot reach the mado daemon at .*it did not start \(it exited with status 1; its log says: cannot listen on .*: a folder is in the way \(remove it\)\)/,
    );
    expect(await s.lua('return vim.api.nvim_buf_is_valid(...)', [gem])).toBe(true);
    expect(await s.lua('return vim.b[...].madohub_backgrounding', [gem])).toBe(null);
    rmSync(blocked, { recursive: true });

    // The name the split was given (R in the picker) goes with it.
    await s.lua(
      `require('madohub.node').call('mark', { id = 'term:' .. ..., name = 'summary writer' }, function() end)`,
      [gem],
    );
    expect(await s.waitFor(`(require('madohub.fleet').find('term:${gem}') or {}).name == 'summary writer'`, 5000)).toBe(
      true,
    );
    // The dispatch runs in the background: the editor goes on, and a second request meanwhile is refused.
    await s.lua(
      `vim.cmd('messages clear') vim.api.nvim_set_current_buf(...) vim.cmd('MadoBackground') vim.cmd('MadoBackground')`,
      [gem],
    );
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /this terminal is being backgrounded already/,
    );
    expect(await s.waitFor(`not vim.api.nvim_buf_is_valid(${gem})`, 15000)).toBe(true);
    const [g] = agents();
    expect(g).toMatchObject({ intent: 'summarize the README', name: 'summary writer', template: { name: 'gemini' } });
    execFileSync(process.execPath, [MADO, 'rm', '--force', g!.short], { env: { ...process.env, ...env } });

    // A Claude Code that has exited: its session is resumed in the background.
    const gone = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await s.waitFor(`(require('madohub').state(${gone}) or {}).source == 'session-file'`, 8000)).toBe(true);
    const goneSession = await s.lua<{ sessionId: string }>(
      'return require("madohub.node").request("session", { buf = ... })',
      [gone],
    );
    await s.lua(`vim.api.nvim_chan_send(vim.bo[...].channel, 'q')`, [gone]);
    expect(await s.waitFor(`(require('madohub').state(${gone}) or {}).state == 'exited'`)).toBe(true);
    await s.lua(`vim.api.nvim_set_current_buf(...) vim.cmd('MadoBackground')`, [gone]);
    // What :MadoBackground said, should the terminal stay (CI once saw it stay, on 0.12).
    expect(
      await s.waitFor(`not vim.api.nvim_buf_is_valid(${gone})`, 15000),
      await s.lua<string>(`return vim.fn.execute('messages')`),
    ).toBe(true);
    const [resumed] = agents();
    expect(resumed).toMatchObject({ resumeSessionId: goneSession.sessionId });
    execFileSync(process.execPath, [MADO, 'rm', '--force', resumed!.short], { env: { ...process.env, ...env } });

    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).source == 'session-file'`, 8000)).toBe(true);
    const session = await s.lua<{ sessionId: string }>(
      'return require("madohub.node").request("session", { buf = ... })',
      [buf],
    );
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);

    await s.lua(`vim.api.nvim_set_current_buf(...) vim.cmd('MadoBackground')`, [buf]);
    expect(await s.waitFor(`not vim.api.nvim_buf_is_valid(${buf})`, 15000)).toBe(true);
    const [job] = agents();
    expect(job).toMatchObject({ status: 'running', alive: true, resumeSessionId: session.sessionId });

    await s.lua('vim.cmd("MadoAttach " .. ...)', [job!.short.slice(0, 5)]);
    const attached = await s.lua<number>('return vim.api.nvim_get_current_buf()');
    expect(await s.waitFor(`(require('madohub').state(${attached}) or {}).agent == 'claude'`, 8000)).toBe(true);
    const bar = await s.lua<string>(
      `local win = vim.fn.bufwinid(...) return vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true }).str`,
      [attached],
    );
    expect(bar).toMatch(/Claude Code/);
    // An error message (vim.notify at ERROR level raises inside this RPC call): caught and read.
    const refused = await s.lua<string>(`local ok, err = pcall(vim.cmd, 'MadoBackground') return tostring(err)`);
    expect(refused).toMatch(/this terminal shows job [0-9a-f]+, which already runs in the background/);
    expect(await s.lua('return vim.api.nvim_buf_is_valid(...)', [attached])).toBe(true);

    await s.lua('vim.cmd("MadoLogs " .. ...)', [job!.short]);
    expect(
      await s.waitFor(`vim.api.nvim_buf_get_name(0):find('mado://logs/${job!.short}', 1, true) ~= nil`, 15000),
    ).toBe(true);
    expect((await s.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')).join('\n')).toMatch(
      /Claude Code/,
    );

    await s.close();
    s = undefined;
    expect(agents()[0]).toMatchObject({ status: 'running', alive: true });

    s = await startNeovim(exe, env);
    await s.lua(`vim.cmd('messages clear') vim.cmd('MadoStop ' .. ...)`, [job!.short]);
    expect(await s.waitFor(`vim.fn.execute('messages'):find('stopped ${job!.short}', 1, true) ~= nil`, 15000)).toBe(
      true,
    );
    await s.lua(`vim.cmd('MadoStop nosuchjob')`);
    expect(
      await s.waitFor(`vim.fn.execute('messages'):find(":MadoStop failed: no job 'nosuchjob'", 1, true) ~= nil`, 15000),
    ).toBe(true);
  });
  it('backgrounds a live Codex (which locks its session): its agent stopped first, the session resumed in the job, name and pin kept, nothing said to have ended', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-nvjobs-'));
    const templates = path.join(base, 'templates.json');
    writeFileSync(
      templates,
      JSON.stringify({ codex: { command: [FAKE_CODEX], prompt: 'type', resume: ['resume', '{id}'] } }),
    );
    env = {
      HOME: base,
      CODEX_HOME: path.join(base, 'codex'),
      MADOHUB_TEMPLATES: templates,
      MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
    };
    s = await startNeovim(exe, env);
    const buf = await openTerminal(s, [FAKE_CODEX]);
    const sessionKnown = `(function() local r = require('madohub.node').request('session', { buf = ${buf} }) return type(r) == 'table' and type(r.sessionId) == 'string' end)()`;
    expect(await s.waitFor(sessionKnown, 10000)).toBe(true);
    const session = await s.lua<{ sessionId: string }>(
      'return require("madohub.node").request("session", { buf = ... })',
      [buf],
    );
    await s.lua(
      `require('madohub.node').call('mark', { id = 'term:' .. ..., name = 'parser fix', pinned = true }, function() end)`,
      [buf],
    );
    expect(await s.waitFor(`(require('madohub.fleet').find('term:${buf}') or {}).pinned == true`, 5000)).toBe(true);

    // A dispatch that cannot start (its daemon cannot listen) leaves the agent running as it was.
    const blocked = path.join(env.MADOHUB_RUNTIME_DIR!, 'daemon.sock');
    mkdirSync(blocked, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(blocked, 'keep'), '');
    await s.lua(`vim.cmd('messages clear') vim.api.nvim_set_current_buf(...)`, [buf]);
    await s.lua(`vim.api.nvim_feedkeys(':MadoBackground\\r', 'mx', false)`);
    expect(await s.waitFor(`vim.fn.execute('messages'):find('MadoBackground failed', 1, true) ~= nil`, 15000)).toBe(
      true,
    );
    expect(await s.lua('return vim.fn.jobwait({ vim.bo[...].channel }, 0)[1]', [buf])).toBe(-1);
    expect(await s.lua('return (require("madohub").state(...) or {}).state', [buf])).toBe('idle');
    rmSync(blocked, { recursive: true });

    await s.lua(`vim.cmd('messages clear') vim.api.nvim_set_current_buf(...)`, [buf]);
    await s.lua(`vim.api.nvim_feedkeys(':MadoBackground\\r', 'mx', false)`);
    expect(
      await s.waitFor(`not vim.api.nvim_buf_is_valid(${buf})`, 15000),
      await s.lua<string>(`return vim.fn.execute('messages')`),
    ).toBe(true);
    const [job] = agents();
    expect(job).toMatchObject({
      status: 'running',
      alive: true,
      resumeSessionId: session.sessionId,
      name: 'parser fix',
      pinned: true,
    });
    // The job's Codex has the session: it shows its composer, not the lock's refusal.
    const logs = (): string =>
      execFileSync(process.execPath, [MADO, 'logs', job!.short], { env: { ...process.env, ...env }, encoding: 'utf8' });
    expect(
      await s.waitFor(
        `vim.fn.system({ 'node', '${MADO}', 'logs', '${job!.short}' }):find('Ask Codex to do anything', 1, true) ~= nil`,
        10000,
      ),
      logs(),
    ).toBe(true);
    expect(logs()).not.toMatch(/open in another app/);
    // Its terminal's agent was stopped to go on, not ended: no notice, nothing to see.
    const messages = await s.lua<string>(`return vim.fn.execute('messages')`);
    expect(messages).toMatch(/backgrounded · [0-9a-f]{8}/);
    expect(messages).not.toMatch(/exited|failed|finished/i);
    expect(await s.lua<string>(`return require('madohub').summary().text`)).toBe('');
  });
});
