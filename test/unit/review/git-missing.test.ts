// A process that leaves while a git it asked for could not even start (`git` not on PATH): its leaving
// waits for nothing (such a child never exits: it never ran).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { GIT_END_GRACE_MS, endGitRuns, git } from '../../../src/review/git.js';

const empty = mkdtempSync(path.join(tmpdir(), 'mado-no-git-'));
const savedPath = process.env.PATH;
afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(empty, { recursive: true, force: true });
});

it('a git that could not run: its result says so, and leaving does not wait on it', async () => {
  process.env.PATH = empty;
  const run = git({ gitDir: empty }, ['status']);
  // Asked to leave before its failure is even told.
  const left = await Promise.race([
    endGitRuns().then(() => 'left'),
    new Promise((resolve) => setTimeout(() => resolve('waited'), GIT_END_GRACE_MS)),
  ]);
  expect(left).toBe('left');
  expect((await run).cut).toMatch(/^git could not run: .*ENOENT/);
});
