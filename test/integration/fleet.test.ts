// The fleet in Neovim (0.10 and 0.12), with the real Node side and a real job: terminals of this
// Neovim and background jobs in one list, answered from the Lua cache, `User MadoFleetChanged`.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, openAgent, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { killJobsOf } from './jobs-harness.js';
import { processStamp } from '../../src/proc/stamp.js';
import { untilValue } from '../helpers/wait.js';

const MADO = path.join(ROOT, 'bin/mado');

describe.each(testNeovims())('Neovim $label: the fleet', ({ path: exe }) => {
  let s: Session | undefined;
  let jobs = '';
  afterEach(async () => {
    await s?.close();
    s = undefined;
    await killJobsOf(jobs);
  });

  it('two agents of one kind in one folder have names of their own (`codex main`, `codex main 2`), and keep them', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-fleet-'));
    jobs = path.join(base, 'jobs');
    s = await startNeovim(exe, {
      MADOHUB_JOBS_DIR: jobs,
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
    });
    const names = (): Promise<string[]> =>
      s!.lua<string[]>(
        `local out = {} for _, e in ipairs(require('madohub').agents({ kind = 'terminal' })) do out[#out + 1] = e.name end table.sort(out) return out`,
      );
    const first = await openAgent(s, ['codex-working']);
    expect(await s.waitFor(`#require('madohub').agents({ kind = 'terminal', agent = 'codex' }) == 1`, 8000)).toBe(true);
    const [one] = await names();
    expect(one).toMatch(/^codex \S+$/);
    await openAgent(s, ['codex-working']);
    expect(await s.waitFor(`#require('madohub').agents({ kind = 'terminal', agent = 'codex' }) == 2`, 8000)).toBe(true);
    expect(await untilValue(names, (n) => n.length === 2 && n[1] === `${one} 2`, 5000)).toEqual([one, `${one} 2`]);
    expect(
      (await s.lua<{ name: string }[]>(`return require('madohub').agents({ id = 'term:${first}' })`))[0]!.name,
    ).toBe(one);
  });

  it('lists the terminals and the background jobs, and follows a job through its states', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-fleet-'));
    jobs = path.join(base, 'jobs');
    const templates = path.join(base, 'templates.json');
    writeFileSync(
      templates,
      JSON.stringify({ asker: { command: ['node', path.join(ROOT, 'test/fixtures/bin/asker')], prompt: 'type' } }),
    );
    const claude = path.join(base, 'claude');
    const env = {
      MADOHUB_TEMPLATES: templates,
      MADOHUB_JOBS_DIR: jobs,
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      CLAUDE_CONFIG_DIR: claude,
    };
    s = await startNeovim(exe, env);
    await s.lua(`_G.fleet_changed = 0
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoFleetChanged', callback = function() _G.fleet_changed = _G.fleet_changed + 1 end })`);
    const buf = await openAgent(s, ['codex-working']);
    expect(await s.waitFor(`#require('madohub').agents({ kind = 'terminal' }) == 1`, 8000)).toBe(true);
    const [term] = await s.lua<{ id: string; agent: string; state: string; where: string }[]>(
      `return require('madohub').agents({ kind = 'terminal' })`,
    );
    expect(term).toMatchObject({ id: `term:${buf}`, agent: 'codex', state: 'working', where: `buffer ${buf}` });

    // A job started from a shell appears, then waits on its question with the question in the entry.
    const out = execFileSync(process.execPath, [MADO, '--bg', '--agent', 'asker', '-n', 'asker job', 'go'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    const short = /backgrounded · ([0-9a-f]{8})/.exec(out)![1]!;
    expect(
      await s.waitFor(
        `(require('madohub').agents({ kind = 'job', state = 'waiting' })[1] or {}).id == 'job:${short}'`,
        10000,
      ),
    ).toBe(true);
    const [job] = await s.lua<{ name: string; needs: { question: string; options: string[] } }[]>(
      `return require('madohub').agents({ kind = 'job' })`,
    );
    expect(job).toMatchObject({
      name: 'asker job',
      needs: {
        question: 'Do you want to proceed? — rm -rf build',
        options: ['Yes', expect.any(String), expect.any(String)],
      },
    });
    expect(await s.lua<number>('return #require("madohub").agents()')).toBe(2);
    expect(await s.lua<number>('return _G.fleet_changed')).toBeGreaterThan(0);

    // A terminal that waits on a numbered approval carries the question and its choices, and its folder.
    const asking = await openAgent(s, ['claude-approval']);
    expect(
      await s.waitFor(`(require('madohub').agents({ id = 'term:${asking}' })[1] or {}).state == 'waiting'`, 8000),
    ).toBe(true);
    const [waiting] = await s.lua<{ needs: { question: string; options: string[] }; cwd: string }[]>(
      `return require('madohub').agents({ id = 'term:${asking}' })`,
    );
    expect(waiting!.needs).toEqual({
      question: 'Do you want to proceed? — rm -rf build',
      options: [
        'Yes',
        "Yes, and don't ask again for rm commands in /home/dev/proj",
        'No, and tell Claude what to do differently (esc)',
      ],
    });
    expect(
      await s.waitFor(
        `(require('madohub').agents({ id = 'term:${asking}' })[1] or {}).cwd == ${JSON.stringify(process.cwd())}`,
        5000,
      ),
    ).toBe(true);
    await s.lua('vim.api.nvim_buf_delete(..., { force = true })', [asking]);

    // Attached in a split, the job is one entry (shown where it is), not a terminal beside it.
    // By its name: the commands take a job's id, a prefix of it, or its name.
    await s.lua(`vim.cmd('MadoAttach asker job')`);
    const attached = await s.lua<number>('return vim.api.nvim_get_current_buf()');
    expect(
      await s.waitFor(
        `(require('madohub').agents({ kind = 'job' })[1] or {}).where == 'job in buffer ${attached}'`,
        8000,
      ),
    ).toBe(true);
    expect(await s.lua<number>(`return #require('madohub').agents({ id = 'term:${attached}' })`)).toBe(0);
    await s.lua('vim.api.nvim_buf_delete(..., { force = true })', [attached]);
    expect(await s.waitFor(`(require('madohub').agents({ kind = 'job' })[1] or {}).where == 'job'`, 5000)).toBe(true);

    // :MadoStatus lists it, the job commands complete its id, :checkhealth counts the fleet.
    const status = await s.lua<string>(`return vim.fn.execute('MadoStatus')`);
    expect(status).toMatch(new RegExp(`Jobs:\\n${short}  .*Waiting.*asker job`));
    // A terminal by its name, as the picker and the winbar give it (not its buffer's term:// name).
    const termName = await s.lua<string>(`return require('madohub').agents({ id = 'term:${buf}' })[1].name`);
    expect(status).toMatch(new RegExp(`^ +${buf}  .*Codex.*  ${termName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
    expect(status).not.toMatch(/\d+:.*agent\.cjs/);
    expect(await s.lua<string[]>(`return vim.fn.getcompletion('MadoAttach ${short.slice(0, 3)}', 'cmdline')`)).toEqual([
      short,
    ]);
    expect(await s.lua<string[]>(`return vim.fn.getcompletion('MadoLogs ask', 'cmdline')`)).toEqual(['asker job']);
    await s.lua("vim.cmd('checkhealth madohub')");
    const report = (await s.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')).join('\n');
    expect(report).toMatch(/Fleet: 1 terminals, 1 jobs, 0 sessions elsewhere, 0 terminals of other Neovims/);
    expect(report).toMatch(/Daemon: running/);
    await s.lua("vim.cmd('close')");

    // A Claude Code session running elsewhere (its session file, its process alive) is an entry of
    // its own; a stale file (its process gone) is none; the session leaves with its file.
    mkdirSync(path.join(claude, 'sessions'), { recursive: true });
    const outside = spawn('sleep', ['60'], { stdio: 'ignore' });
    const sessionId = '5a1f0c3e-1b2c-4d5e-8f90-123456789abc';
    const file = path.join(claude, 'sessions', `${outside.pid}.json`);
    const now = Date.now();
    writeFileSync(
      file,
      JSON.stringify({
        pid: outside.pid,
        sessionId,
        cwd: '/home/dev/api',
        startedAt: now,
        version: '2.1.197',
        kind: 'interactive',
        status: 'waiting',
        waitingFor: 'permission prompt',
        updatedAt: now,
        statusUpdatedAt: now,
      }),
    );
    writeFileSync(
      path.join(claude, 'sessions', '999999.json'),
      JSON.stringify({ pid: 999999, sessionId: 'x', cwd: '/x', status: 'idle' }),
    );
    // Its transcript (a real one of Claude Code 2.1.332's): what it spent is counted from it.
    const transcript = path.join(claude, 'projects', '-home-dev-api', `${sessionId}.jsonl`);
    mkdirSync(path.dirname(transcript), { recursive: true });
    copyFileSync(path.join(ROOT, 'test/fixtures/records/claude-usage/transcript.jsonl'), transcript);
    // The mock's requests its answers were (k: input 100+13k).
    const input = [1, 2, 3, 4, 5, 19, 20].reduce((n, k) => n + 100 + 13 * k, 0);
    try {
      expect(await s.waitFor(`#require('madohub').agents({ kind = 'session' }) == 1`, 5000)).toBe(true);
      expect(
        await s.waitFor(
          `(require('madohub.util').value((require('madohub').agents({ kind = 'session' })[1] or {}).usage) or {}).inputTokens == ${input}`,
          5000,
        ),
      ).toBe(true);
      const [session] = await s.lua<Record<string, unknown>[]>(
        `return require('madohub').agents({ kind = 'session' })`,
      );
      expect(session).toMatchObject({
        id: `claude:${sessionId}`,
        agent: 'claude',
        state: 'waiting',
        cwd: '/home/dev/api',
        where: `pid ${outside.pid}`,
        name: 'claude api',
        needs: { question: 'permission prompt' },
      });
      rmSync(file);
      expect(await s.waitFor(`#require('madohub').agents({ kind = 'session' }) == 0`, 5000)).toBe(true);
    } finally {
      outside.kill('SIGKILL');
    }

    // Killed from a shell: the entry follows; a wiped terminal leaves the fleet.
    execFileSync(process.execPath, [MADO, 'kill', short], { env: { ...process.env, ...env } });
    expect(await s.waitFor(`(require('madohub').agents({ kind = 'job' })[1] or {}).state == 'exited'`, 10000)).toBe(
      true,
    );
    // :MadoAttach of an unknown or ended job says so and opens nothing.
    const wins = await s.lua<number>('return #vim.api.nvim_list_wins()');
    const refused = async (arg: string): Promise<string> =>
      s!.lua<string>(`local ok, err = pcall(vim.cmd, 'MadoAttach ${arg}') return tostring(err)`);
    expect(await refused('nope')).toMatch(/:MadoAttach: no job 'nope'/);
    expect(await refused(short)).toMatch(
      new RegExp(`:MadoAttach: job ${short} is not running \\(mado respawn ${short} starts it again\\)`),
    );
    expect(await s.lua<number>('return #vim.api.nvim_list_wins()')).toBe(wins);
    // So :MadoAttach and :MadoStop complete it no more; :MadoLogs still does (its output stays).
    expect(await s.lua<string[]>(`return vim.fn.getcompletion('MadoAttach ${short.slice(0, 3)}', 'cmdline')`)).toEqual(
      [],
    );
    expect(await s.lua<string[]>(`return vim.fn.getcompletion('MadoStop ask', 'cmdline')`)).toEqual([]);
    expect(await s.lua<string[]>(`return vim.fn.getcompletion('MadoLogs ask', 'cmdline')`)).toEqual(['asker job']);
    await s.lua('vim.api.nvim_buf_delete(..., { force = true })', [buf]);
    expect(await s.waitFor(`#require('madohub').agents({ kind = 'terminal' }) == 0`, 5000)).toBe(true);
    // Copies: changing one changes nothing in the cache.
    expect(
      await s.lua<string>(
        `local a = require('madohub').agents()[1] a.name = 'x' return require('madohub').agents()[1].name`,
      ),
    ).toBe('asker job');
  });

  it("lists another Neovim's terminals, and forgets them when it exits", async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-fleet-'));
    jobs = path.join(base, 'jobs');
    const env = {
      MADOHUB_JOBS_DIR: jobs,
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
    };
    const other = await startNeovim(exe, env);
    try {
      const theirs = await openAgent(other, ['codex-approval']);
      expect(await other.waitFor(`#require('madohub').agents({ kind = 'terminal' }) == 1`, 8000)).toBe(true);
      const theirNode = await other.lua<number>("return require('madohub.node').pid()");
      s = await startNeovim(exe, env);
      await openAgent(s, ['claude-idle']);
      expect(await s.waitFor(`#require('madohub').agents({ kind = 'editor' }) == 1`, 8000)).toBe(true);
      const [entry] = await s.lua<Record<string, unknown>[]>(`return require('madohub').agents({ kind = 'editor' })`);
      expect(entry).toMatchObject({
        id: `nvim:${theirNode}:${theirs}`,
        agent: 'codex',
        state: 'waiting',
        where: `nvim ${theirNode}`,
      });
      // And the other way round.
      expect(await other.waitFor(`#require('madohub').agents({ kind = 'editor' }) == 1`, 8000)).toBe(true);
    } finally {
      await other.close();
    }
    expect(await s.waitFor(`#require('madohub').agents({ kind = 'editor' }) == 0`, 8000)).toBe(true);
  });

  it('past 64 other Neovims, the picker says how many are not shown (none dropped without a word)', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-fleet-'));
    jobs = path.join(base, 'jobs');
    const run = path.join(base, 'run');
    const editors = path.join(run, 'editors');
    mkdirSync(editors, { recursive: true, mode: 0o700 });
    // 100 live processes, each written as another Neovim with one terminal; and 20 gone ones.
    const sleepers = Array.from({ length: 100 }, () => spawn('sleep', ['120'], { stdio: 'ignore' }));
    try {
      for (const p of sleepers) {
        const t = {
          id: 'term:1',
          kind: 'terminal',
          name: `codex ${p.pid}`,
          intent: '',
          agent: 'codex',
          state: 'idle',
          source: 'pty-scrape',
          since: Date.now(),
          cwd: '/p',
          detail: '',
          needs: null,
          where: 'buffer 1',
          pinned: false,
          order: 0,
          pending: '',
          server: '',
          attach: [],
        };
        writeFileSync(
          path.join(editors, `${p.pid}.json`),
          JSON.stringify({ pid: p.pid, pidStart: processStamp(p.pid!), server: '', terminals: [t], agentPids: [] }),
        );
      }
      for (let i = 0; i < 20; i++)
        writeFileSync(
          path.join(editors, `${4000000 + i}.json`),
          JSON.stringify({ pid: 4000000 + i, pidStart: 'x', server: '', terminals: [], agentPids: [] }),
        );
      s = await startNeovim(exe, {
        MADOHUB_JOBS_DIR: jobs,
        MADOHUB_RUNTIME_DIR: run,
        CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
      });
      await s.lua(`require('madohub').setup({}) require('madohub.node').ensure()`);
      expect(await s.waitFor(`#require('madohub').agents({ kind = 'editor' }) > 0`, 8000)).toBe(true);
      const shown = await s.lua<number>(`return #require('madohub').agents({ kind = 'editor' })`);
      expect(await s.waitFor(`require('madohub.fleet').not_shown.editorsNotShown == ${100 - shown}`, 8000)).toBe(true);
      expect(shown).toBeLessThanOrEqual(64);
      await s.lua(`vim.cmd('MadoAgents')`);
      const title = await s.lua<string>(
        `return vim.api.nvim_win_get_config(require('madohub.picker').current.list_win).title[1][1]`,
      );
      expect(title).toContain(`· ${100 - shown} other Neovims not shown`);
      // The gone ones' files were removed, past the bound too.
      expect(readdirSync(editors).filter((n) => n.startsWith('40000'))).toEqual([]);
    } finally {
      for (const p of sleepers) p.kill('SIGKILL');
    }
  });

  it('a job that starts waiting notifies once, with its question, and :MadoJump attaches it', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-fleet-'));
    jobs = path.join(base, 'jobs');
    const templates = path.join(base, 'templates.json');
    // Works for 1.5 s, then asks, then works again …
    writeFileSync(
      templates,
      JSON.stringify({
        turns: {
          command: [
            'node',
            path.join(ROOT, 'test/fixtures/agent.cjs'),
            'claude-working',
            'claude-approval',
            '--every',
            '1500',
            '--loop',
          ],
          prompt: 'type',
        },
      }),
    );
    const env = {
      MADOHUB_TEMPLATES: templates,
      MADOHUB_JOBS_DIR: jobs,
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
    };
    s = await startNeovim(exe, env);
    await openAgent(s, ['claude-idle']);
    await s.waitFor(`#require('madohub').agents({ kind = 'terminal' }) == 1`, 8000);
    await s.lua("vim.cmd('messages clear')");
    const out = execFileSync(process.execPath, [MADO, '--bg', '--agent', 'turns', '-n', 'asking job'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    const short = /backgrounded · ([0-9a-f]{8})/.exec(out)![1]!;
    expect(await s.waitFor(`(require('madohub').agents({ kind = 'job' })[1] or {}).state == 'working'`, 8000)).toBe(
      true,
    );
    const told = `vim.fn.execute('messages'):find('is Waiting in job ${short} (asking job): Do you want to proceed? — rm -rf build — :MadoJump', 1, true) ~= nil`;
    expect(await s.waitFor(told, 8000)).toBe(true);
    await s.lua("vim.cmd('MadoJump')");
    expect(await s.lua<string>('return vim.b.madohub_job')).toBe(short);
    // The view is named for the job it shows, not for the node that runs `mado attach`.
    expect(await s.lua<string>('return vim.api.nvim_buf_get_name(0)')).toBe(`mado://job/${short}`);
    expect(
      await s.waitFor(
        `(require('madohub').agents({ kind = 'job' })[1] or {}).where == 'job in buffer ' .. vim.api.nvim_get_current_buf()`,
        8000,
      ),
    ).toBe(true);
  });
});
