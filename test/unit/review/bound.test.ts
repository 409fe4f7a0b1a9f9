// The review's checkpoints under their bound (the agents checkpointed longest ago go first), and what
// :checkhealth shows of them: git, their size, each agent whose last turn has no checkpoint.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boundCheckpoints, folderBytes, reviewHealth } from '../../../src/review/bound.js';
import { findLedger } from '../../../src/review/read.js';
import { Checkpoints, shadowDir } from '../../../src/review/checkpoint.js';

let base: string;
let root: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'mado-review-bound-'));
  root = path.join(base, 'review');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A folder of its own with a turn of one agent that writes `bytes` of random-ish text. */
async function agentTurn(rec: Checkpoints, name: string, bytes: number, at: number): Promise<string> {
  const folder = path.join(base, name);
  mkdirSync(folder, { recursive: true });
  const who = { key: `job-${name}`, agent: 'claude', name, folder };
  await rec.began(who);
  writeFileSync(
    path.join(folder, 'out.txt'),
    Array.from({ length: bytes / 16 }, (_, i) => `${`${at}-${i}`.padEnd(15)}\n`).join(''),
  );
  await rec.ended(who);
  return folder;
}

describe('the review’s bound', () => {
  it('drops the agents checkpointed longest ago until the checkpoints are under the bound, and reports what is left', async () => {
    let clock = 1000;
    const rec = new Checkpoints(root, process.env, undefined, () => clock);
    const old = await agentTurn(rec, 'aaaaaaa1', 400_000, clock);
    clock = 2000;
    await agentTurn(rec, 'aaaaaaa2', 400_000, clock);
    clock = 3000;
    await agentTurn(rec, 'aaaaaaa3', 400_000, clock);
    const all = (await folderBytes(root)).bytes;
    const health = await reviewHealth(root, all);
    expect(health).toMatchObject({ repositories: 3, agents: 3, bytes: all, skipped: [] });
    expect(health.git).toMatch(/^\d+\.\d+/);
    // A bound that holds about two agents' checkpoints: the oldest goes, whole.
    expect(await boundCheckpoints(root, Math.floor(all * 0.8))).toBe(1);
    expect(findLedger(root, 'job-aaaaaaa1')).toBeUndefined();
    expect(existsSync(shadowDir(root, old))).toBe(false);
    expect(findLedger(root, 'job-aaaaaaa2')).toBeDefined();
    expect(findLedger(root, 'job-aaaaaaa3')).toBeDefined();
    expect((await folderBytes(root)).bytes).toBeLessThanOrEqual(Math.floor(all * 0.8));
    expect(await boundCheckpoints(root, all)).toBe(0);
  });

  it('names each agent whose last turn has no checkpoint, with why', async () => {
    const rec = new Checkpoints(root, process.env, { largeBytes: 1 << 20, maxFiles: 2, timeMs: 2000 });
    const folder = path.join(base, 'many');
    mkdirSync(folder);
    for (const n of ['a', 'b', 'c']) writeFileSync(path.join(folder, n), n);
    const who = { key: 'job-0000000f', agent: 'codex', name: 'codex many', folder };
    await rec.began(who);
    await rec.ended(who);
    expect((await reviewHealth(root, 1 << 30)).skipped).toEqual([
      { name: 'codex many', turn: 1, why: 'no checkpoint: the folder has over 2 files' },
    ]);
  });
});
