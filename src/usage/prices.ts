// What tokens cost: the agents' price tables (data in each agent's file), with the user's prices over
// them (`setup({ prices = … })`, `~/.config/madohub/prices.json`). A model found in none has no cost:
// never a guess.
import { lstat, readFile } from 'node:fs/promises';
import { isObj } from '../shared/checks.js';
import { printable } from '../shared/text.js';
import { MAX_MODEL } from './tally.js';
import type { ModelPrice, PriceTable } from './types.js';

/** A model's price, or undefined when no table has it. */
export type PriceLookup = (model: string) => ModelPrice | undefined;

/** The most a price (US dollars per million tokens) may say; a context window's most tokens. */
export const MAX_PRICE = 10_000;
export const MAX_CONTEXT = 100_000_000;
/** The most of a prices file read, and the most models it may name. */
export const MAX_PRICES_BYTES = 256 * 1024;
export const MAX_PRICED_MODELS = 1000;

/** The same model under a dated name (`claude-sonnet-4-5-20250929`, `…@20250929`): the name without its date. */
const DATED = /[-@]\d{8}$/;

/**
 * The price of a model from the first table that names it (the user's first), by its exact name or
 * its name without a date.
 */
export function priceLookup(tables: readonly PriceTable[]): PriceLookup {
  return (model) => {
    const names = DATED.test(model) ? [model, model.replace(DATED, '')] : [model];
    for (const name of names) for (const table of tables) if (Object.hasOwn(table, name)) return table[name];
    return undefined;
  };
}

const PRICE_KINDS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/**
 * Prices given by the user (a prices file's JSON, setup()'s `prices`): model → { input, output,
 * cacheRead, cacheWrite, context }, in US dollars per million tokens (a cache price left out is 0).
 * What is no price is left out, and said.
 */
export function checkPrices(value: unknown): { prices: Record<string, ModelPrice>; problems: string[] } {
  const prices: Record<string, ModelPrice> = {};
  const problems: string[] = [];
  if (!isObj(value)) return { prices, problems: ['prices must be a table of models'] };
  const names = Object.keys(value);
  if (names.length > MAX_PRICED_MODELS) problems.push(`only the first ${MAX_PRICED_MODELS} models are read`);
  for (const name of names.slice(0, MAX_PRICED_MODELS)) {
    const shown = printable(name, MAX_MODEL);
    if (name === '' || name.length > MAX_MODEL || shown !== name) {
      problems.push(`"${shown}" is no model name`);
      continue;
    }
    const price = value[name];
    if (!isObj(price)) {
      problems.push(`${name}: a price must be a table`);
      continue;
    }
    const bad = PRICE_KINDS.find((k) => {
      const v = price[k] ?? (k === 'input' || k === 'output' ? undefined : 0);
      return typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_PRICE;
    });
    const context = price.context;
    if (bad) {
      problems.push(`${name}: ${bad} must be a number of US dollars per million tokens, 0 to ${MAX_PRICE}`);
      continue;
    }
    if (
      context !== undefined &&
      !(Number.isInteger(context) && typeof context === 'number' && context > 0 && context <= MAX_CONTEXT)
    ) {
      problems.push(`${name}: context must be a whole number of tokens`);
      continue;
    }
    const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
    prices[name] = {
      input: num(price.input),
      output: num(price.output),
      cacheRead: num(price.cacheRead),
      cacheWrite: num(price.cacheWrite),
      ...(typeof context === 'number' ? { context } : {}),
    };
  }
  return { prices, problems };
}

/**
 * The user's prices file, when there is one: read only when it is a file (not a link), of at most
 * MAX_PRICES_BYTES. Its problems are said, its good entries kept.
 */
export async function readPricesFile(
  file: string,
): Promise<{ prices: Record<string, ModelPrice>; problems: string[] }> {
  try {
    const info = await lstat(file);
    if (!info.isFile()) return { prices: {}, problems: [`${file} is not a file`] };
    if (info.size > MAX_PRICES_BYTES)
      return { prices: {}, problems: [`${file} is larger than ${MAX_PRICES_BYTES} bytes`] };
    const text = await readFile(file, 'utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { prices: {}, problems: [`${file} is not JSON`] };
    }
    const checked = checkPrices(value);
    return { prices: checked.prices, problems: checked.problems.map((p) => `${file}: ${p}`) };
  } catch {
    return { prices: {}, problems: [] }; // No prices file: the agents' tables alone.
  }
}
