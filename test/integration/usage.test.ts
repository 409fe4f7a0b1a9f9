// What an agent spends (issue 30), in a real Neovim (0.10 and 0.12): a fixture named like Claude Code
// replays, turn by turn, a real Claude Code 2.1.332 transcript and its sub-agent's (captured against
// the mock, whose request k counts input 100+13k, output 7+3k, cache read 50k, cache write 20+k).
// After each turn, the terminal's entry, state() and the events say that turn's figures and the
// session's; the picker's row and header show them, typed; the budget's crossings are told once
// each; `mado usage` agrees with the entry.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIX, useJobsHarness } from './jobs-harness.js';
import { FAKE_CLAUDE, openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';
import { untilValue } from '../helpers/wait.js';

const TRANSCRIPT = path.join(FIX, 'records/claude-usage/transcript.jsonl');
/** The mock's requests each replayed turn answered with (its third ran a sub-agent: 6 to 12). */
const TURNS = [[1], [2, 3], [4, 5, 6, 7, 8, 9, 10, 11, 12], [19], [20]];
const PRICE = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 };

interface Spend {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
}
const spendOf = (ks: readonly number[]): Spend => {
  const s = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
  for (const k of ks) {
    s.inputTokens += 100 + 13 * k;
    s.outputTokens += 7 + 3 * k;
    s.cacheReadTokens += 50 * k;
    s.cacheWriteTokens += 20 + k;
  }
  s.costUsd =
    (s.inputTokens * PRICE.input +
      s.outputTokens * PRICE.output +
      s.cacheReadTokens * PRICE.cacheRead +
      s.cacheWriteTokens * PRICE.cacheWrite) /
    1e6;
  return s;
};
const tokens = (s: Spend): number => s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens;

describe.each(testNeovims())('Neovim $label: what an agent spends', ({ path: exe }) => {
  const h = useJobsHarness();
  let s: Session | undefined;
  let screen: Screen | undefined;
  afterEach(async () => {
    await screen?.detach();
    await s?.close();
    s = undefined;
    screen = undefined;
  });

  it('counts each turn of a real transcript once it is written: entry, state(), events, the picker typed, the budget told once, mado usage', async () => {
    s = await startNeovim(exe, {
      ...h.neovimEnv(),
      HOME: path.join(h.base, 'home'),
      CLAUDE_CONFIG_DIR: path.join(h.base, 'claude'),
      MADOHUB_FIXTURE_TRANSCRIPT: TRANSCRIPT,
    });
    screen = await Screen.attach(s.nvim, 160, 40);
    const all = spendOf(TURNS.flat());
    const upTo = (n: number): Spend => spendOf(TURNS.slice(0, n).flat());
    // Budgets each crossed by one turn only: the third turn's, the fifth's session, the fourth's day.
    await s.lua(
      `require('madohub').setup({
        prices = { ['claude-opus-5-5'] = ... },
        -- Each notice told alone (no burst gathers the crossings of turns that follow quickly).
        notify = { burst_ms = 0 },
        budget = { turn_usd = 0.01, session_usd = ${upTo(4).costUsd! + 0.001}, day_usd = ${upTo(3).costUsd! + 0.001} },
      })
      _G.spent = {}
      vim.api.nvim_create_autocmd('User', { pattern = 'MadoUsageChanged', callback = function(ev)
        table.insert(_G.spent, ev.data.ids) end })`,
      [PRICE],
    );
    const buf = await openTerminal(s, [FAKE_CLAUDE]);
    const id = `term:${buf}`;
    await s.waitFor(`require('madohub').state(${buf}) ~= nil`, 8000);
    const entry = (): Promise<{ usage: (Spend & { turn: Spend; subAgents: Spend | null; model: string }) | null }> =>
      s!.lua(`return require('madohub').agents({ id = ... })[1] or {}`, [id]);
    for (let n = 1; n <= TURNS.length; n++) {
      await s.lua('vim.fn.chansend(vim.bo[...].channel, "R")', [buf]);
      const want = upTo(n);
      const got = await untilValue(
        async () => {
          const e = await entry();
          return e;
        },
        (e) =>
          e.usage?.inputTokens === want.inputTokens && e.usage.turn.inputTokens === spendOf(TURNS[n - 1]!).inputTokens,
        10000,
      );
      // The session so far and this turn's, each kind of token exactly; the cost at the setup()'s price.
      const turn = spendOf(TURNS[n - 1]!);
      expect(got.usage, `turn ${n}`).toMatchObject({
        inputTokens: want.inputTokens,
        outputTokens: want.outputTokens,
        cacheReadTokens: want.cacheReadTokens,
        cacheWriteTokens: want.cacheWriteTokens,
        model: 'claude-opus-5-5',
        turn: {
          inputTokens: turn.inputTokens,
          outputTokens: turn.outputTokens,
          cacheReadTokens: turn.cacheReadTokens,
          cacheWriteTokens: turn.cacheWriteTokens,
        },
      });
      expect(got.usage!.costUsd).toBeCloseTo(want.costUsd!, 9);
      expect(got.usage!.turn.costUsd).toBeCloseTo(turn.costUsd!, 9);
    }
    const last = await entry();
    expect(last.usage!.subAgents).toMatchObject({ inputTokens: spendOf([6, 7, 8, 9, 10, 11, 12]).inputTokens });
    // state() answers the same from the same cache.
    expect(await s.lua(`return require('madohub').state(${buf}).usage.inputTokens`)).toBe(all.inputTokens);
    // Each change of the entry's usage was told, and only this entry's.
    const spent = await s.lua<string[][]>('return _G.spent');
    expect(spent.flat().every((x) => x === id)).toBe(true);
    expect(spent.filter((ids) => ids.length > 0).length).toBeGreaterThanOrEqual(TURNS.length);

    // The budget: each limit crossed told once, in the messages.
    const messages = await untilValue(
      () => s!.lua<string>(`return vim.fn.execute('messages')`),
      (m) => /over the day's budget/.test(m) && /over its session's budget/.test(m),
      5000,
    );
    expect(messages.match(/is over its turn's budget/g)).toHaveLength(1);
    expect(messages.match(/is over its session's budget/g)).toHaveLength(1);
    expect(messages.match(/The agents is over the day's budget: today [\d.]+k tok · \$0\.0\d/g)).toHaveLength(1);

    // The picker, typed: its row says the session's spend and its budget; its header, today's.
    const cost = `$${all.costUsd!.toFixed(2)}`;
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(new RegExp(`Agents · .*${cost.replace('$', '\\$')} today \\(over budget\\)`), 8000);
    const k = (n: number): string => `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
    await screen.waitForText(new RegExp(`${k(tokens(all)).replace('.', '\\.')} tok · \\${cost} · over session`));
    // The peek pane: this turn and the session.
    await screen.type('<Space>');
    await screen.waitForText(/│this turn [\d.]+k tok · <\$0\.01 +│/);
    await screen.waitForText(/│session [\d.]+k tok · \$0\.03 \(sub-agents [\d.]+k tok · \$0\.0\d\)/);
    await screen.waitForText(/│claude-opus-5-5 · over its session budget/);
    await screen.type('<Space>');
    await screen.type('q');
    await screen.waitForNoText(/Agents · /);
    expect(await s.lua('return vim.api.nvim_get_current_buf()')).toBe(buf);

    // mado usage sums the same: this Neovim's terminals are in its summary.
    const run = await untilValue(
      () => h.mado(['usage', '--json']),
      (r) => r.code === 0 && (JSON.parse(r.stdout) as { total: Spend }).total.inputTokens === all.inputTokens,
      8000,
    );
    const sum = JSON.parse(run.stdout) as { total: Spend; rows: (Spend & { key: string })[] };
    expect(sum.total).toMatchObject({ outputTokens: all.outputTokens, cacheReadTokens: all.cacheReadTokens });
    expect(sum.total.costUsd).toBeCloseTo(all.costUsd!, 9);
    expect(sum.rows.map((r) => r.key)).toEqual(['claude']);
    const table = (await h.mado(['usage', '--by', 'model'])).stdout;
    expect(table).toMatch(/^MODEL +INPUT +OUTPUT +CACHE READ +CACHE WRITE +COST$/m);
    expect(table).toMatch(new RegExp(`^claude-opus-5-5 .*\\${cost}$`, 'm'));
  }, 90000);
});
