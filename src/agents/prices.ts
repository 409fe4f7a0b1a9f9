// The prices MadoHub reckons costs with: the user's (`setup({ prices = … })`, then the prices file
// `<config>/madohub/prices.json`) over every agent's own table.
import path from 'node:path';
import { configHome } from '../shared/xdg.js';
import { priceLookup, readPricesFile } from '../usage/prices.js';
import type { PriceLookup } from '../usage/prices.js';
import type { PriceTable } from '../usage/types.js';
import { AGENT_MODULES } from './registry.js';

const AGENT_TABLES: readonly PriceTable[] = AGENT_MODULES.flatMap((a) => (a.usage ? [a.usage.prices] : []));

let fromSetup: PriceTable = {};
let fromFile: PriceTable = {};
let lookup: PriceLookup = priceLookup(AGENT_TABLES);

const remake = (): void => {
  lookup = priceLookup([fromSetup, fromFile, ...AGENT_TABLES]);
};

/** The price of a model: the user's first, then the agents' tables. */
export const priceOf: PriceLookup = (model) => lookup(model);

/** `<config>/madohub/prices.json`, or `$MADOHUB_PRICES`. */
export const pricesFile = (env: NodeJS.ProcessEnv = process.env): string =>
  env.MADOHUB_PRICES || path.join(configHome(env), 'madohub', 'prices.json');

/** setup()'s prices (checked by the caller: usage/prices.ts checkPrices). */
export function useSetupPrices(table: PriceTable): void {
  fromSetup = table;
  remake();
}

/** Reads the prices file again; answers what is wrong with it (nothing when it is not there). */
export async function loadPricesFile(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const { prices, problems } = await readPricesFile(pricesFile(env));
  fromFile = prices;
  remake();
  return problems;
}
