// A route's recorded answer and a reply typed in the picker, turn after turn: each delivery carries that
// turn's answer (a reply goes after it), once, after the turn ended (20 turns in Neovim 0.12, 3 in 0.10).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIX, until } from './jobs-harness.js';
import { FAKE_CLAUDE, openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { loopTurns } from './routes-harness.js';
import { Screen } from './screen.js';
import { MIN_GAP_MS } from '../../src/routes/engine.js';

describe.each(testNeovims())(
  'Neovim $label: a route over turns whose records land after the screen',
  ({ label, path: exe }) => {
    let session: Session | undefined;
    afterEach(async () => {
      await session?.close();
      session = undefined;
    });
    const turns = loopTurns(label);

    it(`each of ${turns} turns hands over that turn's recorded answer, once, after the turn ended (not the turn before's); none recorded: said, nothing sent`, async () => {
      const base = mkdtempSync(path.join(tmpdir(), 'madohub-route-records-'));
      const out = path.join(base, 'handed.md');
      const s = (session = await startNeovim(exe, {
        HOME: base,
        CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
        MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
        MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
        // Claude Code on a loaded machine: the screen shows the end 800 ms before the transcript has the answer.
        MADOHUB_FIXTURE_RECORD_DELAY_MS: '800',
        // Work long enough to be seen under load (a turn of 100 ms could pass between two screens read).
        MADOHUB_FIXTURE_WORK_MS: '700',
      }));
      const buf = await openTerminal(s, ['node', FAKE_CLAUDE]);
      const state = `(require('madohub').state(${buf}) or {})`;
      expect(await s.waitFor(`${state}.state == 'idle' and ${state}.source == 'session-file'`, 10000)).toBe(true);
      const key = (k: string): Promise<unknown> => s.lua(`vim.api.nvim_chan_send(vim.bo[${buf}].channel, ...)`, [k]);
      // A turn before the route: its answer is in the transcript, and is no answer of the turns after.
      await key('t');
      expect(await s.waitFor(`${state}.state == 'completed'`, 10000)).toBe(true);
      await s.lua(`vim.api.nvim_set_current_buf(${buf}) vim.cmd('MadoRoute file:${out}')`);
      expect(await s.waitFor(`#require('madohub').routes() == 1`)).toBe(true);
      const handed = (): string => (existsSync(out) ? readFileSync(out, 'utf8') : '');
      // A route fires at most every 2 s (MIN_GAP_MS): a turn is typed 600 ms after the last delivery was
      // seen, and ends 1.5 s after that at the soonest (700 ms of work, the record 800 ms after the screen).
      let delivered = Date.now();
      for (let turn = 2; turn <= turns + 1; turn++) {
        await until(
          async () => Date.now(),
          (t) => t >= delivered + MIN_GAP_MS - 1400,
          MIN_GAP_MS,
        );
        await key('t');
        expect(await s.waitFor(`${state}.state == 'stopped' or ${state}.state == 'completed'`, 10000)).toBe(true);
        const arrived = await s.waitFor(
          `vim.fn.filereadable('${out}') == 1 and #vim.fn.readfile('${out}') >= ${2 * (turn - 1)}`,
          10000,
        );
        // Failed: which turn, what was handed over, and what was said.
        const said = arrived ? '' : await s.lua<string>(`return vim.fn.execute('messages')`);
        expect(arrived, `turn ${turn}, handed:\n${handed()}\nmessages:${said}`).toBe(true);
        delivered = Date.now();
        const text = handed();
        expect(text.split(`Recorded answer of turn ${turn}.`).length - 1).toBe(1);
      }
      // A turn whose answer is never recorded: said by the ends' names, nothing sent (not the screen's words, nor the turn before's).
      await until(
        async () => Date.now(),
        (t) => t >= delivered + MIN_GAP_MS - 1400,
        MIN_GAP_MS,
      );
      await key('X');
      // Its name is the agent's and its folder's (this checkout's: `claude main`, `claude ci` …).
      const name = await s.lua<string>(`return require('madohub').agents({ id = 'term:${buf}' })[1].name`);
      expect(
        await s.waitFor(
          `vim.fn.execute('messages'):find(${JSON.stringify(`(${name} → `)}, 1, true) ~= nil and vim.fn.execute('messages'):find('): no answer recorded for this turn', 1, true) ~= nil`,
          12000,
        ),
        await s.lua<string>(`return vim.fn.execute('messages')`),
      ).toBe(true);
      // Each turn's answer once, in order; none from the turn before the route, nor the screen's words.
      expect(handed().replace(/^\[mado route .* · hop 1\/3\]$/gm, '[head]')).toBe(
        Array.from({ length: turns }, (_, i) => `[head]\nRecorded answer of turn ${i + 2}.\n`).join(''),
      );
    }, 150000);
  },
);

describe.each(testNeovims())('Neovim $label: a reply typed in the picker, turn after turn', ({ label, path: exe }) => {
  let session: Session | undefined;
  let screen: Screen | undefined;
  afterEach(async () => {
    await screen?.detach();
    await session?.close();
    session = screen = undefined;
  });
  const turns = loopTurns(label);

  it(`r on an agent at work queues the reply; it goes once that turn ended, each of ${turns} turns once, in order`, async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-reply-turns-'));
    // Each turn works until the test says it is done (the file exists): the reply is typed while it works, whatever the machine's load.
    const done = path.join(base, 'turn-done');
    const s = (session = await startNeovim(exe, {
      MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
      MADOHUB_FIXTURE_WORK_UNTIL: done,
    }));
    const sc = (screen = await Screen.attach(s.nvim, 160, 48));
    const buf = await openTerminal(s, ['node', path.join(FIX, 'bin/replier')]);
    const state = `(require('madohub.fleet').find('term:${buf}') or {})`;
    expect(await s.waitFor(`${state}.state == 'idle'`, 10000)).toBe(true);
    await sc.type(':MadoAgents<CR>');
    await sc.waitForText(/Agents · /);
    const text = (): Promise<string> =>
      s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${buf}, 0, -1, false), '\\n')`);
    for (let turn = 1; turn <= turns; turn++) {
      rmSync(done, { force: true });
      await s.lua(`vim.api.nvim_chan_send(vim.bo[${buf}].channel, ...)`, ['work\r']);
      expect(await s.waitFor(`${state}.state == 'working'`, 5000)).toBe(true);
      await sc.goTo(/Working +claude/);
      await sc.type('r');
      await sc.waitForText(/Reply to /);
      await sc.type(`reply ${turn}<CR>`);
      await sc.waitForText(/: queued \(sent when it may\)/);
      // Not before the turn ended; then once, after its answer.
      expect(await s.waitFor(`${state}.pending == 'queued'`, 5000)).toBe(true);
      expect(await text()).not.toContain(`You said: reply ${turn}`);
      writeFileSync(done, '');
      expect(await s.waitFor(`${state}.pending == '' and ${state}.state == 'idle'`, 10000)).toBe(true);
      const shown = await until(text, (t) => t.includes(`You said: reply ${turn}`), 5000);
      expect(shown.split(`You said: reply ${turn}\n`).length - 1, `turn ${turn}`).toBe(1);
      expect(shown.indexOf(`Turn ${turn} is done.`), `turn ${turn}'s answer first`).toBeLessThan(
        shown.indexOf(`You said: reply ${turn}`),
      );
      expect(shown.indexOf(`Turn ${turn} is done.`)).toBeGreaterThan(
        turn > 1 ? shown.indexOf(`You said: reply ${turn - 1}`) : -1,
      );
    }
    // The picker is still open, its input line empty; q closes it.
    await sc.type('q');
    await sc.waitForNoText(/Agents · /);
  }, 150000);
});
