// What the fleet spends, on the Neovim side: each entry's usage priced with the user's prices and
// held against the user's budget (`setup({ budget = … })`), and the fleet's spending today.
import { priceOf } from '../agents/prices.js';
import { isObj } from '../shared/checks.js';
import type { UsageTally } from '../usage/tally.js';
import { localDay } from '../usage/tally.js';
import type { BudgetLimit, Spend, Usage } from '../usage/types.js';
import { addSpend, noSpend, tokensOf, usageView } from '../usage/view.js';

/** The user's budget: a limit in US dollars and in tokens for a turn, a session, the fleet's day; null: none. */
export interface Budget {
  turnUsd: number | null;
  sessionUsd: number | null;
  dayUsd: number | null;
  turnTokens: number | null;
  sessionTokens: number | null;
  dayTokens: number | null;
}

/** setup()'s names of the budget's limits, and the field each sets. */
const BUDGET_KEYS: Readonly<Record<string, keyof Budget>> = {
  turn_usd: 'turnUsd',
  session_usd: 'sessionUsd',
  day_usd: 'dayUsd',
  turn_tokens: 'turnTokens',
  session_tokens: 'sessionTokens',
  day_tokens: 'dayTokens',
};

export const NO_BUDGET: Budget = {
  turnUsd: null,
  sessionUsd: null,
  dayUsd: null,
  turnTokens: null,
  sessionTokens: null,
  dayTokens: null,
};

/** setup()'s `budget` table: its limits, and what is wrong with it (a limit is a positive number). */
export function checkBudget(v: unknown): { budget: Budget; problems: string[] } {
  const budget = { ...NO_BUDGET };
  const problems: string[] = [];
  if (v === undefined || v === null) return { budget, problems };
  if (!isObj(v)) return { budget, problems: ['budget must be a table (turn_usd, session_usd, day_usd, …)'] };
  for (const [key, value] of Object.entries(v)) {
    const field = BUDGET_KEYS[key];
    if (!field || !Object.hasOwn(BUDGET_KEYS, key)) {
      problems.push(`budget.${key.slice(0, 40)} is no limit (${Object.keys(BUDGET_KEYS).join(', ')})`);
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1e12) {
      problems.push(`budget.${key} must be a positive number`);
    } else budget[field] = value;
  }
  return { budget, problems };
}

/** Whether `s` reached a limit in dollars or tokens. */
const reached = (s: Spend, usd: number | null, tokens: number | null): boolean =>
  (usd !== null && s.costUsd !== null && s.costUsd >= usd) || (tokens !== null && tokensOf(s) >= tokens);

/** The limits of `budget` a usage crossed: its turn's, its session's. */
export function overBudget(u: Usage, budget: Budget): BudgetLimit[] {
  const over: BudgetLimit[] = [];
  if (reached(u.turn, budget.turnUsd, budget.turnTokens)) over.push('turn');
  if (reached(u, budget.sessionUsd, budget.sessionTokens)) over.push('session');
  return over;
}

/** What entries spent on `day` (their records' days), all of them together. */
export function spentOn(usages: readonly (Usage | null)[], day: string): Spend {
  let total = noSpend();
  for (const u of usages) for (const d of u?.daily ?? []) if (d.day === day) total = addSpend(total, d);
  return total;
}

/** The fleet's spending today, and whether it crossed the day's budget. */
export interface FleetSpending {
  day: string;
  today: Spend;
  overDay: boolean;
}

/** The user's prices and budget as this process applies them to its entries. */
export class Spending {
  budget: Budget = NO_BUDGET;
  /** What was wrong with the prices and budget when last given (:checkhealth says it again). */
  problems: string[] = [];

  /** A tally as an entry carries it: priced, held against the budget; null for none. */
  usageOf(tally: UsageTally | null | undefined): Usage | null {
    if (!tally) return null;
    const u = usageView(tally, priceOf);
    return { ...u, overBudget: overBudget(u, this.budget) };
  }

  /** The fleet's spending today (`usages`: every entry's), against the day's budget. */
  fleet(usages: readonly (Usage | null)[], now = Date.now()): FleetSpending {
    const day = localDay(now);
    const today = spentOn(usages, day);
    return { day, today, overDay: reached(today, this.budget.dayUsd, this.budget.dayTokens) };
  }
}
