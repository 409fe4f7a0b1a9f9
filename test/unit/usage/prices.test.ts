// Prices: the user's over the agents' tables; a model found in none has no cost; a prices file with
// garbage keeps its good entries and says what it refused.
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPrices, MAX_PRICES_BYTES, priceLookup, readPricesFile } from '../../../src/usage/prices.js';

const P = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };

describe('priceLookup', () => {
  it('takes the first table that names the model, by its name or its name without a date', () => {
    const price = priceLookup([{ a: { ...P, input: 9 } }, { a: P, 'claude-x': P }]);
    expect(price('a')?.input).toBe(9);
    expect(price('claude-x-20250929')).toEqual(P);
    expect(price('claude-x@20250929')).toEqual(P);
    // No guess from a name that only begins like one: gpt-5-mini is not gpt-5.
    expect(priceLookup([{ 'gpt-5': P }])('gpt-5-mini')).toBeUndefined();
    expect(price('__proto__')).toBeUndefined();
  });
});

describe('checkPrices', () => {
  it('keeps good prices and says each that is none', () => {
    const { prices, problems } = checkPrices({
      good: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, context: 200000 },
      short: { input: 1, output: 2 },
      neg: { input: -1, output: 2 },
      huge: { input: 1e308, output: 2 },
      text: { input: 'cheap', output: 2 },
      ctx: { input: 1, output: 1, context: 1.5 },
      'bad\u0007name': P,
      notTable: 3,
    });
    expect(prices).toEqual({
      good: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, context: 200000 },
      short: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    });
    expect(problems).toHaveLength(6);
    expect(problems.join('\n')).not.toMatch(/\u0007/);
    expect(checkPrices([1, 2]).problems).toEqual(['prices must be a table of models']);
  });
});

describe('readPricesFile', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'prices-'));
  it('reads a good file, refuses garbage, a link and a file too large, and is quiet when there is none', async () => {
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ m: P }));
    expect(await readPricesFile(good)).toEqual({ prices: { m: P }, problems: [] });
    const garbage = path.join(dir, 'garbage.json');
    writeFileSync(garbage, '{ not json');
    expect((await readPricesFile(garbage)).problems[0]).toMatch(/is not JSON/);
    const link = path.join(dir, 'link.json');
    symlinkSync(good, link);
    expect(await readPricesFile(link)).toEqual({ prices: {}, problems: [`${link} is not a file`] });
    const big = path.join(dir, 'big.json');
    writeFileSync(big, ' '.repeat(MAX_PRICES_BYTES + 1));
    expect((await readPricesFile(big)).problems[0]).toMatch(/larger than/);
    expect(await readPricesFile(path.join(dir, 'none.json'))).toEqual({ prices: {}, problems: [] });
  });
});
