// Counting what an agent spends: messages written again count once, running totals replace the ones
// before, a prompt starts the turn again; counts no agent makes are refused with a word.
import { describe, expect, it } from 'vitest';
import { emptyTally, localDay, MAX_CELLS, tallyCheck, UsageCounter } from '../../../src/usage/tally.js';
import type { Tokens } from '../../../src/usage/types.js';
import { priceLookup } from '../../../src/usage/prices.js';
import { usageView } from '../../../src/usage/view.js';

const tok = (i: number, o: number, r = 0, w = 0): Tokens => ({
  inputTokens: i,
  outputTokens: o,
  cacheReadTokens: r,
  cacheWriteTokens: w,
});
const AT = Date.parse('2026-12-06T10:00:00Z');
const price = priceLookup([{ m: { input: 1, output: 10, cacheRead: 0.1, cacheWrite: 2, context: 1000 } }]);

describe('UsageCounter', () => {
  it('counts a message written again (one line per content block) once, with its last counts', () => {
    const c = new UsageCounter();
    c.add({ kind: 'message', key: 'a', tokens: tok(100, 1), model: 'm', at: AT });
    c.add({ kind: 'message', key: 'a', tokens: tok(100, 9), model: 'm', at: AT });
    c.add({ kind: 'message', key: 'b', tokens: tok(50, 5, 20, 3), model: 'm', at: AT });
    const u = usageView(c.tally, price);
    expect([u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]).toEqual([150, 14, 20, 3]);
    // 150×1 + 14×10 + 20×0.1 + 3×2 per million.
    expect(u.costUsd).toBeCloseTo((150 + 140 + 2 + 6) / 1e6, 12);
    expect(u.daily).toEqual([expect.objectContaining({ day: localDay(AT), model: 'm', inputTokens: 150 })]);
  });

  it('takes running totals as they grow, and a turn as what grew since its prompt', () => {
    const c = new UsageCounter();
    c.add({ kind: 'total', tokens: tok(100, 10), model: 'm', at: AT });
    c.add({ kind: 'prompt', at: AT });
    c.add({ kind: 'total', tokens: tok(250, 30), model: 'm', at: AT });
    c.add({ kind: 'total', tokens: tok(400, 45), model: 'm', at: AT });
    const u = usageView(c.tally, price);
    expect([u.inputTokens, u.outputTokens]).toEqual([400, 45]);
    expect([u.turn.inputTokens, u.turn.outputTokens]).toEqual([300, 35]);
  });

  it('counts totals that went down as a new session, from nothing', () => {
    const c = new UsageCounter();
    c.add({ kind: 'total', tokens: tok(400, 40), at: AT });
    c.add({ kind: 'total', tokens: tok(10, 1), at: AT });
    expect(usageView(c.tally).inputTokens).toBe(410);
  });

  it("counts a sub-agent's into the session, and says them apart; its model is not the session's", () => {
    const c = new UsageCounter();
    c.add({ kind: 'message', key: 'a', tokens: tok(10, 1), model: 'm', at: AT });
    c.add({ kind: 'message', key: 's', tokens: tok(7, 2), model: 'other', sub: true, at: AT });
    const u = usageView(c.tally, price);
    expect(u.inputTokens).toBe(17);
    expect(u.subAgents).toEqual(expect.objectContaining({ inputTokens: 7, outputTokens: 2, costUsd: null }));
    expect(u.model).toBe('m');
    // A model without a price makes the session's cost unknown: never a guess.
    expect(u.costUsd).toBeNull();
    expect(u.daily.find((d) => d.model === 'm')?.costUsd).toBeCloseTo(20 / 1e6, 12);
  });

  it("uses the agent's own cost where it records one", () => {
    const c = new UsageCounter();
    c.add({ kind: 'message', key: 'a', tokens: tok(10, 1), model: 'nobody-prices-me', costUsd: 0.25, at: AT });
    c.add({ kind: 'message', key: 'b', tokens: tok(10, 1), model: 'nobody-prices-me', costUsd: 0.5, at: AT });
    expect(usageView(c.tally, price).costUsd).toBeCloseTo(0.75, 12);
  });

  it.each([
    ['1e308', tok(1e308, 0)],
    ['negative', tok(-5, 0)],
    ['not whole', tok(1.5, 0)],
    ['not a number', tok(Number.NaN, 0)],
  ])('refuses a count that is %s, with a word, and counts on', (_what, tokens) => {
    const c = new UsageCounter();
    c.add({ kind: 'message', key: 'ok', tokens: tok(3, 1), at: AT });
    expect(c.add({ kind: 'message', key: 'x', tokens, at: AT })).toMatch(/is no count of tokens/);
    expect(c.add({ kind: 'message', key: 'y', tokens: tok(1, 1), costUsd: -1, at: AT })).toMatch(/is no cost/);
    expect(usageView(c.tally).inputTokens).toBe(3);
  });

  it('makes a model name plain and short (a name with control characters is shown without them)', () => {
    const c = new UsageCounter();
    c.add({ kind: 'message', key: 'a', tokens: tok(1, 1), model: `evil\x1b[2J\n${'m'.repeat(200)}`, at: AT });
    const { model } = c.tally;
    expect(model).not.toMatch(/[\x00-\x1f]/);
    expect(model.length).toBeLessThanOrEqual(64);
    expect(tallyCheck(c.tally)).toBeNull();
  });

  it('keeps at most MAX_CELLS cells however many days and models a session spans (the oldest days go)', () => {
    const c = new UsageCounter();
    for (let d = 0; d < 60; d++)
      for (let m = 0; m < 10; m++)
        c.add({ kind: 'message', key: `${d}-${m}`, tokens: tok(1, 1), model: `m${m}`, at: AT + d * 86_400_000 });
    const { cells } = c.tally;
    expect(cells.length).toBe(MAX_CELLS);
    expect(cells.some((x) => x.day === localDay(AT + 59 * 86_400_000))).toBe(true);
    expect(cells.some((x) => x.day === localDay(AT))).toBe(false);
  });

  it('keeps its turn within MAX_CELLS too, however many models one turn names (a tally a job file can hold)', () => {
    const c = new UsageCounter();
    c.add({ kind: 'prompt', at: AT });
    for (let m = 0; m < MAX_CELLS + 50; m++)
      c.add({ kind: 'message', key: `k${m}`, tokens: tok(1, 1), model: `model-${m}`, at: AT + 1 });
    expect(c.tally.turn.length).toBe(MAX_CELLS);
    expect(tallyCheck(c.tally)).toBeNull();
  });

  it('takes its context from the tokens the last request sent, against the window of its model', () => {
    const c = new UsageCounter(emptyTally());
    c.add({ kind: 'message', key: 'a', tokens: tok(1, 1), model: 'm', contextTokens: 870, at: AT });
    expect(usageView(c.tally, price).contextUsedPct).toBe(87);
    expect(usageView(c.tally, priceLookup([])).contextUsedPct).toBeNull();
  });
});

describe('tallyCheck', () => {
  it('refuses a tally no counter makes (a job file anyone may have written)', () => {
    const c = new UsageCounter();
    c.add({ kind: 'message', key: 'a', tokens: tok(1, 1), model: 'm', at: AT });
    const good = c.tally;
    expect(tallyCheck(good)).toBeNull();
    expect(tallyCheck({ ...good, cells: [{ ...good.cells[0], inputTokens: -1 }] })).not.toBeNull();
    expect(tallyCheck({ ...good, cells: Array(MAX_CELLS + 1).fill(good.cells[0]) })).not.toBeNull();
    expect(tallyCheck({ ...good, model: 'a\u202eb' })).not.toBeNull();
    expect(tallyCheck('x')).not.toBeNull();
  });
});

describe('a turn read out of order', () => {
  it("takes records newer than its prompt that were read before it (a sub-agent's file read before its parent's)", () => {
    const c = new UsageCounter();
    c.add({ kind: 'prompt', at: AT });
    c.add({ kind: 'message', key: 'a', tokens: tok(10, 1), at: AT + 1 });
    // The sub-agent's records of the next turn, read before that turn's prompt.
    c.add({ kind: 'message', key: 's', tokens: tok(7, 2), sub: true, at: AT + 20 });
    c.add({ kind: 'prompt', at: AT + 10 });
    c.add({ kind: 'message', key: 'b', tokens: tok(5, 1), at: AT + 30 });
    // And an older record read late is none of the turn's.
    c.add({ kind: 'message', key: 'old', tokens: tok(100, 1), at: AT + 2 });
    const u = usageView(c.tally);
    expect(u.turn.inputTokens).toBe(12);
    expect(u.inputTokens).toBe(122);
  });
});
