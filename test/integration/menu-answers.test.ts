// A path a person relies on, typed 20 times over in one run: a digit in :MadoAgents answers the
// approval of a terminal's agent and of a job's, every time. The fixture asks again a moment after
// each answer (500 ms) and, as Claude Code 2.1.332 does, loses the keys that come within 300 ms of an
// approval's drawing (the picker shows the row Waiting before that, and a person types at once).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';

const TIMES = 20;
const FIXTURE_ENV = { MADOHUB_FIXTURE_ASK_AGAIN_MS: '500', MADOHUB_FIXTURE_DEAF_MS: '300' };

describe.each(testNeovims())(
  'Neovim $label: a digit typed in the picker answers an approval, 20 times over',
  ({ path: exe }) => {
    const h = useJobsHarness(
      { approver: { command: ['node', path.join(FIX, 'bin/approver')], prompt: 'type' } },
      'file',
    );
    let s: Session | undefined;
    let screen: Screen | undefined;
    afterAll(async () => {
      await screen?.detach();
      await s?.close();
    });

    const goTo = (name: RegExp): Promise<void> => screen!.goTo(name);
    /** Types a digit as soon as the row shows Waiting, 20 times; each answer lands (`done(i)` turns true). */
    const answerEachTime = async (row: RegExp, done: (i: number) => Promise<boolean>): Promise<void> => {
      // The picker's row (its glyph first): the notice "Claude Code is Waiting in job … (asks often)" in
      // the message area names the same words, and stays there after the row has left Waiting.
      const waitingRow = new RegExp(`◆ Waiting .*${row.source}`);
      for (let i = 1; i <= TIMES; i++) {
        await screen!.waitForText(waitingRow, 10000);
        await goTo(row);
        const choice = 1 + (i % 2);
        await screen!.type(String(choice));
        // Answered, the row leaves Waiting until the agent asks again (500 ms later: watched from the key on,
        // as `mado logs` below may take about as long).
        await Promise.all([
          screen!.waitForNoText(waitingRow, 8000),
          screen!.waitForText(new RegExp(`answered .*: ${choice}\\. Yes`), 8000).catch(async (err: unknown) => {
            throw new Error(`${String(err)}\nmessages: ${await s!.lua<string>(`return vim.fn.execute('messages')`)}`);
          }),
        ]);
        expect(
          await until(
            () => done(i),
            (v) => v,
            8000,
          ),
          `answer ${i} of ${TIMES} landed`,
        ).toBe(true);
      }
    };

    it('of a terminal’s agent', async () => {
      s = await startNeovim(exe, h.neovimEnv());
      screen = await Screen.attach(s.nvim, 160, 48);
      const env = Object.entries(FIXTURE_ENV).map(([k, v]) => `${k}=${v}`);
      const buf = await openTerminal(s, ['env', ...env, 'node', path.join(FIX, 'bin/approver')]);
      await screen.type(':MadoAgents<CR>');
      const text = (): Promise<string> =>
        s!.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(${buf}, 0, -1, false), '\\n')`);
      await answerEachTime(/split 1/, async (i) => (await text()).includes(`(answer ${i})`));
    }, 120000);

    it('of a job’s agent', async () => {
      const short = shortOf(
        (
          await h.mado(['--bg', '--agent', 'approver', '-n', 'asks often'], undefined, {
            ...FIXTURE_ENV,
            MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_*',
          })
        ).stdout,
      );
      await screen!.waitForText('asks often', 10000);
      await answerEachTime(/asks often/, async (i) => (await h.mado(['logs', short])).stdout.includes(`(answer ${i})`));
    }, 150000);
  },
);
