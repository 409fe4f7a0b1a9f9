// The route chain a job's host keeps in the job's folder: read as hostile input, written never
// through a link, ended by the user's own input.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAIN_FILE, chainOf, chainOfTurn, jobChain, readChain, writeChain } from '../../../src/jobs/chain-record.js';
import { blankJob, createJob } from '../../../src/jobs/store.js';
import { ChainKeeper, typedEnter } from '../../../src/jobs/host/chain-keeper.js';

const chain = { id: 'a1b2c3', hop: 2, visited: ['job:0000000a', 'term:4', 'job:0000000b'] };

describe('a job’s route chain', () => {
  it('is read as hostile input: a chain that is none reads as no chain', () => {
    expect(chainOf(chain)).toEqual(chain);
    for (const bad of [
      null,
      [],
      'x',
      { ...chain, id: 'x'.repeat(40) },
      { ...chain, id: 'XY' },
      { ...chain, hop: 0 },
      { ...chain, hop: 101 },
      { ...chain, hop: 1.5 },
      { ...chain, visited: ['one'] },
      { ...chain, visited: [1, 2] },
      { ...chain, visited: ['', 'x'] },
      { ...chain, visited: Array.from({ length: 102 }, () => 'x') },
      { ...chain, visited: ['x', 'y'.repeat(301)] },
    ]) {
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

  it('ends with the turn it was delivered for: a later turn of the job (its own, or after its menu was answered) has none', () => {
    const jobs = mkdtempSync(path.join(tmpdir(), 'madohub-chain-'));
    createJob(jobs, { ...blankJob('0000000b'), turnsEnded: 3 });
    const dir = path.join(jobs, '0000000b');
    // The host keeps it with the turns its job had ended when the route's text came.
    const keeper = new ChainKeeper(
      dir,
      () => undefined,
      () => 3,
    );
    keeper.replied(chain);
    expect(JSON.parse(readFileSync(path.join(dir, CHAIN_FILE), 'utf8'))).toEqual({ ...chain, turnsAt: 3 });
    // Under way (3 ended), and at its end (4): the route's; past it (5), no chain: its end is news, its routes start a chain of their own.
    expect(chainOfTurn(dir, 3)).toEqual(chain);
    expect(chainOfTurn(dir, 4)).toEqual(chain);
    expect(chainOfTurn(dir, 5)).toBeUndefined();
    expect(jobChain(jobs, 'job:0000000b')).toEqual({ chain });
    createJob(jobs, { ...blankJob('0000000c'), turnsEnded: 0 });
    writeChain(path.join(jobs, '0000000c'), chain, 0);
    expect(jobChain(jobs, 'job:0000000c')).toEqual({ chain });
    // A chain file of an older host (no count): as before, until the user's input ends it.
    writeChain(dir, chain);
    expect(chainOfTurn(dir, 9)).toEqual(chain);
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
