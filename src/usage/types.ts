// What an agent spends (issue 30), in the words of `:help madohub-usage`: tokens by kind, a cost in
// US dollars where a price is known, how full its context is. One agent's records are read into a
// tally (tally.ts); the tally is shown, priced, as a Usage (view.ts).

/** Tokens by kind: input (not from the cache), output (reasoning included), cache reads and writes. */
export interface Tokens {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Tokens, and what they cost in US dollars: null where it cannot be known (a model without a price). */
export interface Spend extends Tokens {
  costUsd: number | null;
}

/** What one agent spent, as an entry carries it (`usage`): its session so far, and its current turn. */
export interface Usage extends Spend {
  /** The model of its last answer; '' when its records name none. */
  model: string;
  /** How full its context is, in per cent, as the agent counts it; null when unknown. */
  contextUsedPct: number | null;
  /** Since its last prompt. */
  turn: Spend;
  /** The part of the session its sub-agents spent (counted in above); null when none ran. */
  subAgents: Spend | null;
  /** The session by day (local `YYYY-MM-DD`, the day of each record) and model, sub-agents' counted in. */
  daily: DailySpend[];
  /** The limits of the user's budget it crossed (|madohub-usage|): its turn's, its session's. */
  overBudget: BudgetLimit[];
}

/** A limit of the user's budget an agent's spending crosses (the day's is the fleet's). */
export type BudgetLimit = 'turn' | 'session';
export const BUDGET_LIMITS: readonly BudgetLimit[] = ['turn', 'session'];

/** What one model spent on one day. */
export interface DailySpend extends Spend {
  day: string;
  model: string;
}

/**
 * What one record says of spending, as an agent's usage reader reads it:
 * - `prompt`: the user's prompt began a turn (the turn's tally starts again);
 * - `message`: one answer's tokens; a later reading of the same `key` (a message written again,
 *   one line per content block) replaces it;
 * - `total`: the session's running totals so far (Codex), which replace the ones before with the
 *   same `key` (OpenCode's session and its sub-agents' sessions are two).
 * `costUsd` is the agent's own cost of it, where it records one (OpenCode).
 */
export type UsageReading =
  | { kind: 'prompt'; at?: number }
  | {
      kind: 'message' | 'total';
      tokens: Tokens;
      key?: string;
      model?: string;
      /** A sub-agent's (Claude Code's sidechain): counted into the session, and said. */
      sub?: boolean;
      costUsd?: number;
      at?: number;
      /** How full the context is after it (per cent), where the record tells. */
      contextUsedPct?: number;
      /** The tokens in its context after it, where the record tells that and not the per cent. */
      contextTokens?: number;
    };

/** A model's price in US dollars per million tokens; `context`: its context window in tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  context?: number;
}

/** Prices by model name. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** How an agent's records tell what it spends: its reader, its price table. */
export interface AgentUsage {
  /** A reader of one record file, record after record (each file gets its own reader). */
  reader(): (record: unknown) => UsageReading | undefined;
  /** Prices of the models it runs, as data (the user's `prices` go over them). */
  prices: PriceTable;
  /**
   * The record files of its sub-agents beside a record file (Claude Code's `<session>/subagents/`):
   * a folder and the names in it that are such files.
   */
  subAgentFiles?(recordFile: string): { folder: string; name: RegExp };
}
