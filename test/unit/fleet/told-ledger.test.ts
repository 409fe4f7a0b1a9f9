import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_TOLD, TOLD_FILE, ToldLedger, waitKey } from '../../../src/fleet/told-ledger.js';

describe('ToldLedger', () => {
  let dir: string;
  let said: string[];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'told-'));
    said = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps waits for every teller of the folder (another ledger reads what this one wrote), the newest MAX_TOLD, 0600', () => {
    const a = new ToldLedger(dir, (m) => said.push(m));
    const b = new ToldLedger(dir, (m) => said.push(m));
    const key = waitKey('job:box:1a2b3c4d', 2, 'Run it?');
    expect(b.has(key)).toBe(false);
    a.add(key);
    expect(b.has(key)).toBe(true);
    for (let i = 0; i < MAX_TOLD + 5; i++) b.add(waitKey('job:1a2b3c4d', i, ''));
    expect(a.has(key)).toBe(false);
    expect(a.has(waitKey('job:1a2b3c4d', MAX_TOLD + 4, ''))).toBe(true);
    expect(statSync(path.join(dir, TOLD_FILE)).mode & 0o777).toBe(0o600);
    expect(said).toEqual([]);
  });

  it('a key is bounded whatever the question; a corrupt or foreign file is none; a link is replaced, not written through', () => {
    expect(waitKey('job:1a2b3c4d', 1, 'x'.repeat(10_000)).length).toBeLessThanOrEqual(400);
    const file = path.join(dir, TOLD_FILE);
    writeFileSync(file, '{"waits": [1, {"x": 2}');
    const l = new ToldLedger(dir, (m) => said.push(m));
    expect(l.has('job:1a2b3c4d\t1\t')).toBe(false);
    rmSync(file);
    const elsewhere = path.join(dir, 'elsewhere');
    writeFileSync(elsewhere, 'theirs');
    symlinkSync(elsewhere, file);
    l.add('job:1a2b3c4d\t1\t');
    expect(readFileSync(elsewhere, 'utf8')).toBe('theirs');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(l.has('job:1a2b3c4d\t1\t')).toBe(true);
  });

  it('a folder it cannot write to is said, not thrown', () => {
    const l = new ToldLedger(path.join(dir, 'gone'), (m) => said.push(m));
    l.add('job:1a2b3c4d\t1\t');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^cannot keep the waits told \(told\.json\): /);
  });
});
