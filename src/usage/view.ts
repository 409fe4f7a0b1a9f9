// A tally priced: what an entry carries as `usage` (types.ts: Usage), and sums of them.
import { int, listOf, num, oneOf, orNull, pattern, plainMax, shape } from '../shared/checks.js';
import type { Check } from '../shared/checks.js';
import type { PriceLookup } from './prices.js';
import type { Cell, UsageTally } from './tally.js';
import { DAY, MAX_CELLS, MAX_MODEL, noTokens, TOKEN_KINDS } from './tally.js';
import { BUDGET_LIMITS } from './types.js';
import type { DailySpend, Spend, Tokens, Usage } from './types.js';

export const noSpend = (): Spend => ({ ...noTokens(), costUsd: 0 });

/** a + b: tokens summed; the cost unknown when either is. */
export function addSpend(a: Spend, b: Spend): Spend {
  const out: Spend = { ...a, costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd };
  for (const kind of TOKEN_KINDS) out[kind] = a[kind] + b[kind];
  return out;
}

/** What tokens of a model cost: the agent's own cost where it said one; else its price; null when it has none. */
export function costOf(tokens: Tokens, model: string, own: number | null, price: PriceLookup): number | null {
  if (own !== null) return own;
  if (TOKEN_KINDS.every((k) => tokens[k] === 0)) return 0;
  const p = price(model);
  if (!p) return null;
  return (
    (tokens.inputTokens * p.input +
      tokens.outputTokens * p.output +
      tokens.cacheReadTokens * p.cacheRead +
      tokens.cacheWriteTokens * p.cacheWrite) /
    1e6
  );
}

/** Each cell of a tally given its cost by `price` (the agent's own cost where it said one). */
export function priceTally(tally: UsageTally, price: PriceLookup): UsageTally {
  const priced = (cells: readonly Cell[]): Cell[] =>
    cells.map((c) => ({ ...c, costUsd: costOf(c, c.model, c.ownCost, price) }));
  const window = price(tally.model)?.context;
  const pct =
    tally.contextUsedPct ??
    (tally.contextTokens !== null && window ? Math.min(100, Math.round((tally.contextTokens / window) * 100)) : null);
  return { ...tally, contextUsedPct: pct, cells: priced(tally.cells), turn: priced(tally.turn) };
}

const spendOf = (cell: Cell): Spend => ({
  inputTokens: cell.inputTokens,
  outputTokens: cell.outputTokens,
  cacheReadTokens: cell.cacheReadTokens,
  cacheWriteTokens: cell.cacheWriteTokens,
  costUsd: cell.costUsd,
});

/** The cells by day and model (a sub-agent's and the session's of one model and day together). */
function daily(cells: readonly Cell[]): DailySpend[] {
  const out = new Map<string, DailySpend>();
  for (const cell of cells) {
    const key = `${cell.day}\u0000${cell.model}`;
    const was = out.get(key);
    out.set(key, { day: cell.day, model: cell.model, ...addSpend(was ?? noSpend(), spendOf(cell)) });
  }
  return [...out.values()];
}

const total = (cells: readonly Cell[]): Spend => cells.reduce((sum, cell) => addSpend(sum, spendOf(cell)), noSpend());

/**
 * A tally as an entry carries it: its session, turn, sub-agents, days and models; how full its context
 * is. Priced by `price` when given, else at the prices its writer gave its cells.
 */
export function usageView(from: UsageTally, price?: PriceLookup): Usage {
  const tally = price ? priceTally(from, price) : from;
  const subs = tally.cells.filter((c) => c.sub);
  return {
    ...total(tally.cells),
    model: tally.model,
    contextUsedPct: tally.contextUsedPct,
    turn: total(tally.turn),
    subAgents: subs.length > 0 ? total(subs) : null,
    daily: daily(tally.cells),
    overBudget: [],
  };
}

/** All the tokens of a spend. */
export const tokensOf = (s: Tokens): number => TOKEN_KINDS.reduce((n, k) => n + s[k], 0);

const count = int(0, Number.MAX_SAFE_INTEGER);
const spendCheck = shape(
  {
    inputTokens: count,
    outputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    costUsd: orNull(num),
  },
  'a spend {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd}',
);

const dailyCheck = shape(
  {
    day: pattern(DAY, 'a day (YYYY-MM-DD)'),
    model: plainMax(MAX_MODEL),
    inputTokens: count,
    outputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    costUsd: orNull(num),
  },
  'a spend of a day and model',
);

/** An entry's usage as another process sent it (another Neovim's summary): what passes it is a Usage. */
export const usageCheck: Check<Usage> = shape(
  {
    inputTokens: count,
    outputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    costUsd: orNull(num),
    model: plainMax(MAX_MODEL),
    contextUsedPct: orNull(int(0, 100)),
    turn: spendCheck,
    subAgents: orNull(spendCheck),
    daily: listOf(dailyCheck, MAX_CELLS, `at most ${MAX_CELLS} spends by day and model`),
    overBudget: listOf(oneOf(...BUDGET_LIMITS), BUDGET_LIMITS.length, 'limits of a budget'),
  },
  'a usage',
);
