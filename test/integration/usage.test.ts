// What an agent spends (issue 30), in a real Neovim (0.10 and 0.12): a fixture named like Claude Code
// replays, turn by turn, a real Claude Code 2.1.332 transcript and its sub-agent's (captured against
// the mock, whose request k counts input 100+13k, output 7+3k, cache read 50k, cache write 20+k).
// After each turn, the terminal's entry, state() and the events say that turn's figures and the
// session's; the picker's row and header show them, typed; the budget's crossings are told once
// each; `mado usage` agrees with the entry.
import { mkdirSync, writeFileSync } from 'node:fs';
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
const PRICE = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, context: 200000 };

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
        -- Its context (1,400 tokens of 200,000) shown from 1%.
        usage = { context_pct = 1 },
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
    expect(messages.match(/The fleet is over the day's budget: today [\d.]+k tok · \$0\.0\d/g)).toHaveLength(1);

    // The picker, typed: its row says the session's spend and its budget; its header, today's.
    const cost = `$${all.costUsd!.toFixed(2)}`;
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(new RegExp(`Agents · .*${cost.replace('$', '\\$')} today \\(over budget\\)`), 8000);
    const k = (n: number): string => `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
    await screen.waitForText(
      new RegExp(`${k(tokens(all)).replace('.', '\\.')} tok · \\${cost} · ctx 1% · over session`),
    );
    // The peek pane: this turn and the session.
    await screen.type('<Space>');
    await screen.waitForText(/│this turn [\d.]+k tok · <\$0\.01 +│/);
    await screen.waitForText(/│session [\d.]+k tok · \$0\.03 \(sub-agents [\d.]+k tok · \$0\.0\d\)/);
    await screen.waitForText(/│context 1% used · claude-opus-5-5 · over its session budget/);
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

    // :checkhealth names the agent that records no usage.
    const health = await s.lua<string>(
      `vim.cmd('checkhealth madohub') return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`,
    );
    expect(health).toMatch(/madohub: usage/);
    // Every agent whose records tell it, by name (in the registry's order).
    expect(health).toMatch(/Read from their records: .*\bClaude Code\b.*\bCodex\b/);
    expect(health).toMatch(/Amp records no usage/);
  }, 90000);

  it('says what it refused of setup()’s prices and budget, and uses the rest', async () => {
    s = await startNeovim(exe, { ...h.neovimEnv(), HOME: path.join(h.base, 'home') });
    await s.lua(
      `require('madohub').setup({
        prices = { good = { input = 1, output = 2 }, bad = { input = -1, output = 2 }, ['x\\27[2J'] = { input = 1, output = 1 } },
        budget = { turn_usd = 'lots', weekly_usd = 3, day_usd = 20 },
      })`,
    );
    await openTerminal(s, [FAKE_CLAUDE]);
    const messages = await untilValue(
      () => s!.lua<string>(`return vim.fn.execute('messages')`),
      (m) => /budget\.weekly_usd is no limit/.test(m),
      8000,
    );
    expect(messages).toMatch(/prices: bad: input must be a number of US dollars per million tokens/);
    expect(messages).toMatch(/prices: "x\^\[\[2J" is no model name|prices: "x.\[2J" is no model name/);
    expect(messages).toMatch(/budget\.turn_usd must be a positive number/);
    expect(messages).not.toMatch(/\x1b/);
  });
});

describe('a background job: what its agent spends', () => {
  const h = useJobsHarness();
  it("a job counts what its agent spends: its file keeps it, mado agents shows it, mado usage sums it with a prices file's price", async () => {
    // The job takes the variable the fixture replays from, as a job takes what $MADOHUB_JOB_ENV names.
    const env = {
      MADOHUB_FIXTURE_TRANSCRIPT: TRANSCRIPT,
      MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_TRANSCRIPT',
      HOME: path.join(h.base, 'home'),
    };
    const short = /backgrounded · ([0-9a-f]{8})/.exec(
      (await h.mado(['--bg', '--agent', 'claude', 'hello'], undefined, env)).stdout,
    )![1]!;
    interface Listed {
      short: string;
      usage: (Spend & { turn: Spend }) | null;
    }
    const jobUsage = async (): Promise<Listed['usage']> =>
      (JSON.parse((await h.mado(['agents', '--json'], undefined, env)).stdout) as Listed[]).find(
        (j) => j.short === short,
      )?.usage ?? null;
    for (let n = 1; n <= TURNS.length; n++) {
      await h.mado(['send', short, 'R'], undefined, env);
      const want = spendOf(TURNS.slice(0, n).flat());
      const got = await untilValue(jobUsage, (u) => u?.inputTokens === want.inputTokens, 15000, 100);
      expect(got, `turn ${n}`).toMatchObject({
        inputTokens: want.inputTokens,
        outputTokens: want.outputTokens,
        cacheReadTokens: want.cacheReadTokens,
        cacheWriteTokens: want.cacheWriteTokens,
        // No table prices the mock's model: no cost.
        costUsd: null,
        turn: { inputTokens: spendOf(TURNS[n - 1]!).inputTokens },
      });
    }
    const all = spendOf(TURNS.flat());
    expect((await h.mado(['agents'], undefined, env)).stdout).toMatch(
      new RegExp(`^${short} .* ${(tokens(all) / 1000).toFixed(1)}k tok  `, 'm'),
    );
    // A prices file's price: mado usage prices the job's tokens with it.
    const config = path.join(h.base, 'config');
    mkdirSync(path.join(config, 'madohub'), { recursive: true });
    writeFileSync(path.join(config, 'madohub', 'prices.json'), JSON.stringify({ 'claude-opus-5-5': PRICE }));
    const sum = JSON.parse(
      (await h.mado(['usage', '--json'], undefined, { ...env, XDG_CONFIG_HOME: config })).stdout,
    ) as {
      total: Spend;
    };
    expect(sum.total.inputTokens).toBe(all.inputTokens);
    expect(sum.total.costUsd).toBeCloseTo(all.costUsd!, 9);
  }, 120000);
});
