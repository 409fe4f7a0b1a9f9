// :MadoReview as a person meets it (issue 29), in both Neovims: a terminal's agent makes two turns of
// edits; the review opens on its last turn in a tab, typed through the real mappings, and what is then on
// screen and in the folder is checked: the files, the diff windows, ]f, [t ]t, a comment (c), the
// reply that carries it (S, once), a hunk undone (X) and one refused, q, and the picker's D.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/review/ledger.js';
import { shadowDir } from '../../src/review/checkpoint.js';
import { ROOT, openTerminal, said, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';
import { killDaemonOf, killJobsOf } from './jobs-harness.js';
import { until, untilValue } from '../helpers/wait.js';

const REPLIER = path.join(ROOT, 'test/fixtures/bin/replier');

/** Whether process `pid` runs (a zombie not yet reaped counts as gone: it runs nothing). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe.each(testNeovims())('Neovim $label: :MadoReview', ({ path: exe }) => {
  let session: Session | undefined;
  let screen: Screen | undefined;
  let jobsDir: string | undefined;
  const bases: string[] = [];
  afterEach(async () => {
    await screen?.detach();
    await session?.close();
    session = screen = undefined;
    for (const base of bases.splice(0)) rmSync(base, { recursive: true, force: true, maxRetries: 3 });
    if (jobsDir) {
      await killJobsOf(jobsDir);
      killDaemonOf(path.dirname(jobsDir));
    }
    jobsDir = undefined;
  });

  it('opens a terminal agent’s last turn; ]f [t ]t; c and S send one reply, once; X undoes a hunk, refuses a changed file; q closes; D in the picker', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-review-it-'));
    bases.push(base);
    const work = path.join(base, 'work');
    mkdirSync(work);
    writeFileSync(path.join(work, 'keep.txt'), 'one\ntwo\n');
    writeFileSync(path.join(work, 'gone.txt'), 'bye\n');
    writeFileSync(path.join(work, 'old.txt'), 'a\nb\nc\nd\n');
    const go = path.join(base, 'go');
    const s = (session = await startNeovim(exe, {
      HOME: base,
      CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
      MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      MADOHUB_REVIEW_DIR: path.join(base, 'review'),
      MADOHUB_FIXTURE_WORK_UNTIL: `${go}-{n}`,
    }));
    // setup() refuses a review key that is no action, and a bound that is no whole number of MiB.
    for (const [opts, word] of [
      ["{ review = { keys = { x = 'explode' } } }", 'review.keys["x"] is no action (explode)'],
      ['{ review = { max_mb = 0.5 } }', 'review.max_mb must be a whole number of MiB (1 or more), got 0.5'],
    ]) {
      await s.lua(`require('madohub').setup(${opts})`);
      expect(await s.waitFor(said(`madohub.setup: ${word}`))).toBe(true);
    }
    const sc = (screen = await Screen.attach(s.nvim, 160, 48));
    await s.lua('vim.cmd.cd(...)', [work]);
    const buf = await openTerminal(s, ['node', REPLIER]);
    const state = `(require('madohub.fleet').find('term:${buf}') or {})`;
    expect(await s.waitFor(`${state}.state == 'idle'`, 10000)).toBe(true);
    const pid = await s.lua<number>(`return require('madohub.node').pid()`);
    const gitDir = shadowDir(path.join(base, 'review'), work);
    const text = (): Promise<string> =>
      s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${buf}, 0, -1, false), '\\n')`);

    // Two turns, each ending once its start's checkpoint is taken.
    const turn = async (n: number, edits: string, meanwhile?: () => Promise<unknown>): Promise<void> => {
      await s.lua(`vim.api.nvim_chan_send(vim.bo[${buf}].channel, ...)`, [`edit ${edits}\r`]);
      const started = await untilValue(
        async () => readLedger(gitDir, `term-${pid}-${buf}`)?.turns.find((t) => t.turn === n),
        (t) => t?.start !== undefined,
        15000,
      );
      expect(started?.start).toMatch(/^[0-9a-f]{40}$/);
      await meanwhile?.();
      writeFileSync(`${go}-${n}`, '');
      const ended = await untilValue(
        async () => readLedger(gitDir, `term-${pid}-${buf}`)?.turns.find((t) => t.turn === n),
        (t) => t?.end !== undefined,
        15000,
      );
      expect(ended?.end).toMatch(/^[0-9a-f]{40}$/);
    };
    await turn(1, 'write keep.txt one\\nTWO\\n ; write new.txt fresh\\n ; rm gone.txt ; mv old.txt renamed.txt');
    // Out of sight, its second turn ends: its row says how many files that turn changed, until seen.
    await s.lua(`vim.api.nvim_win_hide(vim.fn.bufwinid(${buf}))`);
    // Meanwhile the user saves a file of the folder from Neovim: the turn's review names them.
    await turn(2, 'write keep.txt one\\nTWO\\nthree\\n ; write second.txt 2\\n', () =>
      s.lua(
        `vim.cmd('new ${path.join(work, 'notes.md')}') vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'mine' }) vim.cmd('write | close')`,
      ),
    );
    await sc.type(':MadoAgents<CR>');
    await sc.waitForText(/Agents · /);
    await sc.waitForText(/•\S+ \w+ .*claude.*3 files changed · /);
    await sc.type('q');
    await sc.waitForNoText(/Agents · /);

    // :MadoReview in the agent's window: its last turn, in a tab of its own.
    await s.lua(`vim.cmd('sbuffer ${buf}')`);
    await sc.type(':MadoReview<CR>');
    await sc.waitForText(/turn 2 \(kept 1–2\)/, 10000);
    await sc.waitForText('M keep.txt  +1 -0');
    expect(sc.text()).toContain('A second.txt  +1 -0');
    expect(sc.text()).toContain('A notes.md  +1 -0');
    // The list's lines wrap on the screen: its head is read from its buffer.
    expect(
      await s.lua<string[]>(
        'return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(vim.api.nvim_tabpage_list_wins(0)[1]), 0, -1, false)',
      ),
    ).toContain('you (Neovim) also worked here during this turn');
    expect(await s.lua<number>('return #vim.api.nvim_list_tabpages()')).toBe(2);
    const pane = `vim.api.nvim_buf_get_lines(0, 0, -1, false)`;
    expect(await s.lua<string[]>(`return ${pane}`)).toEqual(['one', 'TWO', 'three']);
    expect(await s.lua<boolean>('return vim.wo.diff')).toBe(true);
    expect(await s.lua<string>('return vim.wo.winbar')).toBe('after · keep.txt');

    // ]f: the next file (and the next).
    await sc.type(']f');
    await sc.waitForText('after · notes.md');
    await sc.type(']f');
    await sc.waitForText('after · second.txt');
    expect(await s.lua<string[]>(`return ${pane}`)).toEqual(['2']);
    // [t: the turn before; ]t: back.
    await sc.type('[t');
    await sc.waitForText(/turn 1 \(kept 1–2\)/);
    expect(sc.text()).toContain('D gone.txt  +0 -1');
    expect(sc.text()).toContain('R renamed.txt ← old.txt  +0 -0');
    await sc.type(']t');
    await sc.waitForText(/turn 2 \(kept 1–2\)/);
    await sc.waitForText('after · keep.txt');

    // c on line 3: a comment, shown on its line.
    await s.lua(`vim.api.nvim_win_set_cursor(0, { 3, 0 })`);
    await sc.type('c');
    await sc.waitForText('Comment on keep.txt:3:');
    await sc.type('should be 3<CR>');
    await sc.waitForText('✎ should be 3');
    // S: one reply with the path, the line and the comment; the agent gets it once.
    await sc.type('S');
    await sc.waitForText('✓ sent: should be 3');
    const got = await untilValue(text, (t) => /You said: Review[\s\S]*should be 3/.test(t), 10000);
    expect(got.split('keep.txt:3').length - 1).toBe(1);
    expect(got).toMatch(
      /You said: Review of your turn 2 in .*work — 1 comment\(s\):\n\s*\n?keep\.txt:3\n\s*> three\n\s*should be 3/,
    );
    await sc.type('S');
    expect(await s.waitFor(said('no comment to send'))).toBe(true);
    expect((await text()).split('keep.txt:3').length - 1).toBe(1);
    // A comment that holds the end of a paste (from an input provider, as a plugin's may give it): one
    // paste all the same, its bytes shown, none of them a key.
    await s.lua(`_G.real_input = vim.ui.input
      vim.ui.input = function(_, done) done('end\\27[201~ then keys') end`);
    await s.lua(`vim.api.nvim_win_set_cursor(0, { 1, 0 })`);
    await sc.type('c');
    await sc.waitForText('✎ end');
    await s.lua('vim.ui.input = _G.real_input');
    await sc.type('S');
    const hostile = await untilValue(text, (t) => t.includes('then keys'), 10000);
    expect(hostile).toMatch(/keep\.txt:1\n\s*> one\n\s*end␛\[201~ then keys/);
    expect(hostile.split('keep.txt:3').length - 1).toBe(1);

    // X on the added line: the folder's file loses it.
    await s.lua(`vim.api.nvim_win_set_cursor(0, { 3, 0 })`);
    await sc.type('X');
    await sc.waitForText('after · keep.txt (undone in part)');
    expect(readFileSync(path.join(work, 'keep.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(await s.lua<string[]>(`return ${pane}`)).toEqual(['one', 'TWO']);
    // An added file changed since the turn: refused, nothing lost; as it was, removed.
    await sc.type(']f]f');
    await sc.waitForText('after · second.txt');
    writeFileSync(path.join(work, 'second.txt'), 'mine now\n');
    await sc.type('X');
    expect(await s.waitFor(said('second.txt changed since the turn ended'))).toBe(true);
    expect(readFileSync(path.join(work, 'second.txt'), 'utf8')).toBe('mine now\n');
    writeFileSync(path.join(work, 'second.txt'), '2\n');
    await sc.type('X');
    expect(await s.waitFor(said('undone: second.txt at line 1'))).toBe(true);
    expect(existsSync(path.join(work, 'second.txt'))).toBe(false);

    // q: the tab goes, the agent's window is back.
    await sc.type('q');
    expect(await s.waitFor('#vim.api.nvim_list_tabpages() == 1')).toBe(true);
    expect(await s.lua<number>('return vim.api.nvim_get_current_buf()')).toBe(buf);

    // The picker's D on the agent's row: its last turn.
    await sc.type(':MadoAgents<CR>');
    await sc.waitForText(/Agents · /);
    await sc.goTo(/claude/);
    expect(sc.text()).not.toContain('files changed');
    await sc.type('D');
    await sc.waitForText(/turn 2 \(kept 1–2\)/, 10000);
    expect(await s.lua<number>('return #vim.api.nvim_list_tabpages()')).toBe(2);
    await sc.type('q');
    expect(await s.waitFor('#vim.api.nvim_list_tabpages() == 1')).toBe(true);

    // By its name (which holds a space) and a turn's number; a name that is none is said.
    await sc.type(':MadoReview nobody<CR>');
    expect(await s.waitFor(said('MadoReview: no agent "nobody"'))).toBe(true);
    // One of its windows closed by hand: the whole review goes, nothing left half open.
    await sc.type(':MadoReview claude work 1<CR>');
    await sc.waitForText(/turn 1 \(kept 1–2\)/, 10000);
    await sc.type(':q<CR>');
    expect(await s.waitFor('#vim.api.nvim_list_tabpages() == 1')).toBe(true);
    expect(
      await s.lua<number>(
        "return #vim.tbl_filter(function(b) return vim.bo[b].filetype == 'madohub-review' end, vim.api.nvim_list_bufs())",
      ),
    ).toBe(0);

    // :checkhealth: git, the checkpoints' size against their bound.
    const health = await s.lua<string>(
      `vim.cmd('checkhealth madohub') return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`,
    );
    expect(health).toMatch(/madohub: review/);
    expect(health).toMatch(/git \d+\.\d+\S*: a checkpoint of each turn for :MadoReview/);
    expect(health).toMatch(/Checkpoints: \d+\.\d MiB of 1024\.0 MiB \(review\.max_mb\), 1 agents in 1 folders/);
  });

  it('no review git outlives Neovim: a checkpoint under way when Neovim quits ends with it', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-review-quit-'));
    bases.push(base);
    const work = path.join(base, 'work');
    const bin = path.join(base, 'bin');
    const pids = path.join(base, 'git-pids');
    mkdirSync(work);
    mkdirSync(bin);
    // A git that takes its time (a big folder on a slow disk) and is deaf to SIGTERM while it works, or
    // spawned after Neovim's own kill listed its processes: it says its pid, then works on.
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho $$ >> "${pids}"\ntrap '' TERM\nexec sleep 60\n`, {
      mode: 0o755,
    });
    const s = (session = await startNeovim(exe, {
      HOME: base,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
      MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      MADOHUB_REVIEW_DIR: path.join(base, 'review'),
    }));
    await s.lua('vim.cmd.cd(...)', [work]);
    const buf = await openTerminal(s, ['node', REPLIER]);
    expect(await s.waitFor(`(require('madohub.fleet').find('term:${buf}') or {}).state == 'idle'`, 10000)).toBe(true);
    // A turn begins: its checkpoint's git runs.
    await s.lua(`vim.api.nvim_chan_send(vim.bo[${buf}].channel, ...)`, ['edit write a.txt one\\n\r']);
    const first = await untilValue(
      () => (existsSync(pids) ? readFileSync(pids, 'utf8') : ''),
      (t) => t.includes('\n'),
      10000,
    );
    const pid = Number(first.split('\n')[0]);
    expect(alive(pid)).toBe(true);
    // Neovim quits meanwhile: the git goes with it (asked to end, so that git removes its locks).
    await s.close();
    session = undefined;
    expect(await until(() => !alive(pid), 5000)).toBe(true);
  });

  it('a background job’s turn: D on its row, S sends the comment to the job once, X undoes in its folder', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-review-job-'));
    bases.push(base);
    const work = path.join(base, 'work');
    mkdirSync(work);
    writeFileSync(path.join(work, 'app.txt'), 'one\n');
    const templates = path.join(base, 'templates.json');
    writeFileSync(templates, JSON.stringify({ replier: { command: ['node', REPLIER], prompt: 'type' } }));
    const env = {
      HOME: base,
      CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
      MADOHUB_TEMPLATES: templates,
      MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      MADOHUB_REVIEW_DIR: path.join(base, 'review'),
    };
    const s = (session = await startNeovim(exe, env));
    jobsDir = env.MADOHUB_JOBS_DIR;
    const sc = (screen = await Screen.attach(s.nvim, 160, 48));
    const printed = execFileSync(
      process.execPath,
      [path.join(ROOT, 'bin/mado'), '--bg', '--agent', 'replier', '-n', 'the coder', 'edit write app.txt one\\ntwo\\n'],
      { env: { ...process.env, ...env }, cwd: work, encoding: 'utf8' },
    );
    const short = /backgrounded · ([0-9a-f]{8})/.exec(printed)?.[1] ?? '';
    // Its turn ends by itself (1.5 s of work): its review has the change.
    const gitDir = shadowDir(path.join(base, 'review'), work);
    const ended = await untilValue(
      async () => readLedger(gitDir, `job-${short}`)?.turns[0],
      (t) => t?.end !== undefined,
      15000,
    );
    expect(ended?.end).toMatch(/^[0-9a-f]{40}$/);
    await sc.type(':MadoAgents<CR>');
    await sc.waitForText(/the coder/, 10000);
    await sc.goTo(/the coder/);
    await sc.type('D');
    await sc.waitForText(/the coder · turn 1 \(kept 1–1\)/, 10000);
    await sc.waitForText('M app.txt  +1 -0');
    expect(await s.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')).toEqual(['one', 'two']);
    await s.lua('vim.api.nvim_win_set_cursor(0, { 2, 0 })');
    await sc.type('c');
    await sc.waitForText('Comment on app.txt:2:');
    await sc.type('why two?<CR>');
    await sc.type('S');
    await sc.waitForText('✓ sent: why two?');
    // The job's agent got it once, as one reply (its screen, read by mado screen).
    const shown = await untilValue(
      () =>
        execFileSync(process.execPath, [path.join(ROOT, 'bin/mado'), 'screen', short], {
          env: { ...process.env, ...env },
          encoding: 'utf8',
        }),
      (t) => t.includes('why two?'),
      10000,
    );
    expect(shown.split('app.txt:2').length - 1).toBe(1);
    await sc.type('X');
    expect(await s.waitFor(said('undone: app.txt at line 2'))).toBe(true);
    expect(readFileSync(path.join(work, 'app.txt'), 'utf8')).toBe('one\n');
    await sc.type('q');
    expect(await s.waitFor('#vim.api.nvim_list_tabpages() == 1')).toBe(true);
  });
});
