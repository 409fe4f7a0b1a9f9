// The route chain a job's host keeps in the job's folder: read as hostile input, written never
// through a link, ended by the user's own input.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAIN_FILE, chainOf, jobChain, readChain, writeChain } from '../../../src/jobs/chain-record.js';
import { ChainKeeper, typedEnter } from '../../../src/jobs/host/chain-keeper.js';

const chain = { id: 'a1b2c3', hop: 2, visited: ['job:0000000a', 'term:4', 'job:0000000b'] };

describe('a job’s route chain', () => {
  it('is read as hostile input: a chain that is none reads as no chain', () => {
    expect(chainOf(chain)).toEqual(chain);
    for (const bad of [null, [], 'x', { ...chain, id: 'x'.repeat(40) }, { ...chain, id: 'XY' }, { ...chain, hop: 0 }, { ...chain, hop: 101 }, { ...chain, hop: 1.5 },
      { ...chain, visited: ['one'] }, { ...chain, visited: [1, 2] }, { ...chain, visited: ['', 'x'] }, { ...chain, visited: Array.from({ length: 102 }, () => 'x') },
      { ...chain, visited: ['x', 'y'.repeat(301)] }]) {
      expect(chainOf(bad)).toBeUndefined();
    }
  });

  it('is kept in the job’s folder, and read from there for a job entry only; a file that is none, huge or a link is no chain', () => {
    const jobs = mkdtempSync(path.join(tmpdir(), 'madohub-chain-'));
    const dir = path.join(jobs, '0000000b');
    mkdirSync(dir);
    expect(readChain(dir)).toBeUndefined();
    writeChain(dir, chain);
    expect(readChain(dir)).toEqual(chain);
    expect(jobChain(jobs, 'job:0000000b')).toEqual({ chain });
    expect(jobChain(jobs, 'job:0000000c')).toEqual({ chain: undefined });
    expect(jobChain(jobs, 'term:4')).toBeUndefined();
    writeChain(dir, undefined);
    expect(existsSync(path.join(dir, CHAIN_FILE))).toBe(false);
    writeFileSync(path.join(dir, CHAIN_FILE), `{"id":"a1","hop":1,"visited":["a","b"],"pad":"${'x'.repeat(20000)}"}`);
    expect(readChain(dir)).toBeUndefined();
    // A link planted as the file: not read through, and replaced (the file it points at stays as it was).
    const elsewhere = path.join(jobs, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify(chain));
    writeChain(dir, undefined);
    symlinkSync(elsewhere, path.join(dir, CHAIN_FILE));
    expect(readChain(dir)).toBeUndefined();
    writeChain(dir, { ...chain, hop: 3 });
    expect(readFileSync(elsewhere, 'utf8')).toBe(JSON.stringify(chain));
    expect(readChain(dir)).toMatchObject({ hop: 3 });
  });

  it('the host: none when the job starts; a route’s reply sets it, the user’s reply or an Enter typed by someone attached ends it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-chain-'));
    writeChain(dir, chain);
    const said: string[] = [];
    const keeper = new ChainKeeper(dir, (m) => said.push(m));
    expect(readChain(dir)).toBeUndefined();
    keeper.replied(chain);
    expect(readChain(dir)).toEqual(chain);
    // A terminal's own reports (a cursor position, focus) are no typing.
    keeper.typed('\x1b[12;40R\x1b[I\x1b]11;rgb:0000/0000/0000\x07');
    keeper.typed('abc');
    expect(readChain(dir)).toEqual(chain);
    keeper.typed('\r');
    expect(readChain(dir)).toBeUndefined();
    keeper.replied(chain);
    keeper.replied(undefined);
    expect(readChain(dir)).toBeUndefined();
    expect(said).toEqual([]);
  });

  it('an Enter typed is told from the one a report of the terminal carries', () => {
    expect(typedEnter('\r')).toBe(true);
    expect(typedEnter('fix it\r')).toBe(true);
    expect(typedEnter('\x1b[200~two\rlines\x1b[201~')).toBe(true);
    expect(typedEnter('abc')).toBe(false);
    expect(typedEnter('\x1b]10;rgb:ffff/ffff/ffff\x1b\\')).toBe(false);
    expect(typedEnter('\x1b[?1;2c\x1bOA')).toBe(false);
  });
});
