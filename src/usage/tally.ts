// One agent's spending, read from its records reading after reading (types.ts: UsageReading): kept
// as cells of tokens by day, model and whether a sub-agent spent them, so that it can be priced where
// it is shown (view.ts), summed by `mado usage`, and written into a job's file as it is.
import { bool, int, listOf, num, orNull, pattern, plainMax, shape } from '../shared/checks.js';
import type { Check } from '../shared/checks.js';
import { clip, noControl } from '../shared/text.js';
import type { Tokens, UsageReading } from './types.js';

/**
 * Tokens of one day, model and kind of spender; `ownCost`: the agent's own cost of them, null when not
 * all said one; `costUsd`: what they cost as last priced (view.ts priceTally), null when unknown.
 */
export interface Cell extends Tokens {
  day: string;
  model: string;
  sub: boolean;
  ownCost: number | null;
  costUsd: number | null;
}

/** A session's spending so far: the serialisable form (a job's file holds it). */
export interface UsageTally {
  model: string;
  /** As the records tell it: the per cent, or the tokens in the context (priced against the model's window). */
  contextUsedPct: number | null;
  contextTokens: number | null;
  cells: Cell[];
  /** Since the last prompt (`day` is the cell's day as in `cells`). */
  turn: Cell[];
}

export const TOKEN_KINDS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** The most tokens one reading may say (more is no count an agent makes: refused). */
export const MAX_TOKENS = 1e12;
/** The most an agent's own cost of one reading may say, in US dollars. */
export const MAX_COST_USD = 1e6;
/** Cells kept (days × models × kinds), of the session and of its turn: the oldest days go first. */
export const MAX_CELLS = 400;
/** Message keys remembered, to replace a message written again. */
export const MAX_KEYS = 1024;
/** Readings remembered with their times (for a prompt read after records newer than it). */
export const MAX_RECENT = 256;
/** A model's name, as shown. */
export const MAX_MODEL = 64;

export const noTokens = (): Tokens => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export const emptyTally = (): UsageTally => ({
  model: '',
  contextUsedPct: null,
  contextTokens: null,
  cells: [],
  turn: [],
});

/** A day as a tally writes it. */
export const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD` of a time, in this machine's time zone. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/** Why a reading's counts are refused, or null when each is a whole number from 0 to MAX_TOKENS. */
export function badTokens(tokens: Tokens): string | null {
  for (const kind of TOKEN_KINDS) {
    const n = tokens[kind];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_TOKENS)
      return `${kind} ${String(n).slice(0, 24)} is no count of tokens`;
  }
  return null;
}

/** A model's name as shown: no control character, at most MAX_MODEL characters. */
export const modelName = (name: string): string => clip(noControl(name).trim(), MAX_MODEL);

const minus = (a: Tokens, b: Tokens): Tokens => ({
  inputTokens: a.inputTokens - b.inputTokens,
  outputTokens: a.outputTokens - b.outputTokens,
  cacheReadTokens: a.cacheReadTokens - b.cacheReadTokens,
  cacheWriteTokens: a.cacheWriteTokens - b.cacheWriteTokens,
});

interface Counted {
  tokens: Tokens;
  cost: number | null;
  day: string;
  model: string;
  sub: boolean;
}

/**
 * Counts one session's records into a tally, as its agent counts them: a message written again
 * replaces itself, running totals replace the ones before, a prompt starts the turn again. A reading
 * with counts no agent makes (negative, not whole, over MAX_TOKENS) is refused with a word.
 */
export class UsageCounter {
  private readonly state: UsageTally;
  private readonly keys = new Map<string, Counted>();
  /** The last running totals of each kind of them (the session's, its sub-agents'). */
  private readonly totals = new Map<string, Counted>();
  private dirty = false;
  /** When the current turn's prompt was written (its records' time), when known. */
  private turnAt: number | undefined;
  /**
   * The latest readings counted, with when they were recorded: a prompt read after records newer
   * than it (a sub-agent's file read before its parent's) takes them into its turn.
   */
  private readonly recent: { at: number | undefined; counted: Counted; delta: Tokens; cost: number | null }[] = [];

  constructor(
    from: UsageTally = emptyTally(),
    private readonly now: () => number = Date.now,
  ) {
    this.state = structuredClone(from);
  }

  /** The tally so far (a copy). */
  get tally(): UsageTally {
    return structuredClone(this.state);
  }

  /** Whether a reading changed the tally since the last call. */
  takeChanged(): boolean {
    const was = this.dirty;
    this.dirty = false;
    return was;
  }

  /** Counts one reading; returns why it was refused, or undefined. */
  add(reading: UsageReading): string | undefined {
    if (reading.kind === 'prompt') {
      if (this.state.turn.length > 0) this.dirty = true;
      this.state.turn = [];
      this.turnAt = reading.at;
      // Records newer than the prompt that came before it are its turn's.
      if (reading.at !== undefined)
        for (const r of this.recent)
          if (r.at !== undefined && r.at > reading.at)
            this.into(this.state.turn, r.counted.day, r.counted, r.delta, r.cost);
      return undefined;
    }
    const bad = badTokens(reading.tokens);
    if (bad) return bad;
    const own = reading.costUsd;
    if (own !== undefined && !(Number.isFinite(own) && own >= 0 && own <= MAX_COST_USD))
      return `a cost of ${String(own).slice(0, 24)} is no cost`;
    const model = reading.model === undefined ? this.state.model : modelName(reading.model);
    const counted: Counted = {
      tokens: { ...reading.tokens },
      cost: own ?? null,
      day: localDay(reading.at ?? this.now()),
      model,
      sub: reading.sub === true,
    };
    let before: Counted | undefined;
    let tokens = counted.tokens;
    if (reading.kind === 'total') {
      const last = this.totals.get(reading.key ?? '');
      // Totals that went down are another session's (a file started again): counted from nothing.
      before = last && !TOKEN_KINDS.some((k) => counted.tokens[k] < last.tokens[k]) ? last : undefined;
      if (last || this.totals.size < MAX_KEYS) this.totals.set(reading.key ?? '', counted);
    } else if (reading.key !== undefined) {
      // A message written again takes the larger of each count (its last line has its final counts).
      before = this.keys.get(reading.key);
      if (before) tokens = maxOf(before.tokens, tokens);
      this.keys.delete(reading.key);
      this.keys.set(reading.key, { ...counted, tokens, day: before?.day ?? counted.day });
      const oldest = this.keys.keys().next();
      if (this.keys.size > MAX_KEYS && !oldest.done) this.keys.delete(oldest.value);
    }
    const delta = before ? minus(tokens, before.tokens) : tokens;
    const costDelta = counted.cost === null ? null : counted.cost - (before?.cost ?? 0);
    const day = before?.day ?? counted.day;
    this.into(this.state.cells, day, counted, delta, costDelta);
    // A record older than the turn's prompt (a sub-agent's file read after its parent's) is no part of it.
    const inTurn = reading.at === undefined || this.turnAt === undefined || reading.at >= this.turnAt;
    if (inTurn) this.into(this.state.turn, day, counted, delta, costDelta);
    this.recent.push({ at: reading.at, counted: { ...counted, day }, delta, cost: costDelta });
    if (this.recent.length > MAX_RECENT) this.recent.shift();
    if (!counted.sub) {
      if (model !== '' && model !== this.state.model) this.state.model = model;
      if (reading.contextUsedPct !== undefined && Number.isFinite(reading.contextUsedPct))
        this.state.contextUsedPct = Math.min(100, Math.max(0, Math.round(reading.contextUsedPct)));
      if (reading.contextTokens !== undefined && Number.isInteger(reading.contextTokens))
        this.state.contextTokens = Math.min(MAX_TOKENS, Math.max(0, reading.contextTokens));
    }
    this.dirty = true;
    this.bound();
    return undefined;
  }

  private into(cells: Cell[], day: string, c: Counted, delta: Tokens, cost: number | null): void {
    let cell = cells.find((x) => x.day === day && x.model === c.model && x.sub === c.sub);
    if (!cell) {
      cell = { day, model: c.model, sub: c.sub, ...noTokens(), ownCost: cost === null ? null : 0, costUsd: null };
      cells.push(cell);
    }
    for (const kind of TOKEN_KINDS) cell[kind] = Math.max(0, cell[kind] + delta[kind]);
    cell.ownCost = cell.ownCost === null || cost === null ? null : Math.max(0, cell.ownCost + cost);
  }

  /** At most MAX_CELLS cells: the oldest days' go. */
  private bound(): void {
    for (const cells of [this.state.cells, this.state.turn]) {
      if (cells.length <= MAX_CELLS) continue;
      cells.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
      cells.splice(0, cells.length - MAX_CELLS);
    }
  }
}

const maxOf = (a: Tokens, b: Tokens): Tokens => ({
  inputTokens: Math.max(a.inputTokens, b.inputTokens),
  outputTokens: Math.max(a.outputTokens, b.outputTokens),
  cacheReadTokens: Math.max(a.cacheReadTokens, b.cacheReadTokens),
  cacheWriteTokens: Math.max(a.cacheWriteTokens, b.cacheWriteTokens),
});

/**
 * A count as a record gives it: the number itself (refused later when it is no count), 0 when the
 * record has none, NaN (refused) when it is something else.
 */
export const countOf = (v: unknown): number =>
  typeof v === 'number' ? v : v === undefined || v === null ? 0 : Number.NaN;

const count = int(0, Number.MAX_SAFE_INTEGER);
const cellCheck = shape(
  {
    day: pattern(DAY, 'a day (YYYY-MM-DD)'),
    model: plainMax(MAX_MODEL),
    sub: bool,
    inputTokens: count,
    outputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    ownCost: orNull(num),
    costUsd: orNull(num),
  },
  'a cell of tokens',
);

/** A tally as another process wrote it (a job's file): what passes it is a UsageTally. */
export const tallyCheck: Check<UsageTally> = shape(
  {
    model: plainMax(MAX_MODEL),
    contextUsedPct: orNull(int(0, 100)),
    contextTokens: orNull(count),
    cells: listOf(cellCheck, MAX_CELLS, `at most ${MAX_CELLS} cells of tokens`),
    turn: listOf(cellCheck, MAX_CELLS, `at most ${MAX_CELLS} cells of tokens`),
  },
  'a usage tally {model, contextUsedPct, contextTokens, cells, turn}',
);
