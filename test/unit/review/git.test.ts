// How MadoHub's gits end: an abort asks git to end (SIGTERM, so that git removes its lock files) and kills
// it only after the grace; when the process leaves, every git it runs is ended with it and none starts.
// A git on PATH stands in for one at work on a slow disk.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_END_GRACE_MS, endGitRuns, git, userGit } from '../../../src/review/git.js';
import { until } from '../../helpers/wait.js';

let base: string;
let savedPath: string | undefined;
beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'mado-git-'));
  const bin = path.join(base, 'bin');
  mkdirSync(bin);
  // It says its pid; told to end, it says so and ends (as git does, removing its locks), unless $DEAF.
  // With $HELD, it leaves a program of its own behind that holds its output open.
  writeFileSync(
    path.join(bin, 'git'),
    [
      '#!/bin/sh',
      'echo $$ >> "$FAKE_GIT_PIDS"',
      'if [ -n "$DEAF" ]; then trap "" TERM; exec sleep 30; fi',
      'if [ -n "$HELD" ]; then sh -c \'echo $$ >> "$FAKE_GIT_PIDS"; exec sleep 30\' & exit 0; fi',
      'sleep 30 </dev/null >/dev/null 2>&1 &',
      'child=$!',
      'trap \'kill $child; echo $$ >> "$FAKE_GIT_TERMED"; exit 143\' TERM',
      'wait $child',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${savedPath ?? ''}`;
  process.env.FAKE_GIT_PIDS = path.join(base, 'pids');
  process.env.FAKE_GIT_TERMED = path.join(base, 'termed');
});
afterAll(() => {
  process.env.PATH = savedPath;
  delete process.env.FAKE_GIT_PIDS;
  delete process.env.FAKE_GIT_TERMED;
  delete process.env.DEAF;
  rmSync(base, { recursive: true, force: true });
});

const lines = (file: string): string[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];
const started = (n: number): Promise<boolean> => until(() => lines(path.join(base, 'pids')).length >= n);

describe('a git asked to end', () => {
  it('an abort asks it with SIGTERM (git removes its locks), and its result says its time was up', async () => {
    const place = { gitDir: base };
    const controller = new AbortController();
    const run = git(place, ['add', '-A'], { signal: controller.signal });
    expect(await started(1)).toBe(true);
    controller.abort();
    const r = await run;
    expect(r.cut).toBe('its time was up');
    expect(lines(path.join(base, 'termed'))).toEqual(lines(path.join(base, 'pids')).slice(0, 1));
  });

  it('one deaf to SIGTERM is killed after the grace (the user’s git, bounded by its own time)', async () => {
    const run = userGit(['config', '--get', 'x'], { ...process.env, DEAF: '1' });
    expect(await started(2)).toBe(true);
    const pid = Number(lines(path.join(base, 'pids'))[1]);
    const r = await run;
    expect(r.cut).toBe('its time was up');
    expect(existsSync(`/proc/${pid}`)).toBe(false);
  });

  it('a program it left behind holding its output does not hold its result past the grace', async () => {
    const begun = Date.now();
    const r = await userGit(['--version'], { ...process.env, HELD: '1' });
    expect(r.code).toBe(0);
    expect(Date.now() - begun).toBeLessThan(GIT_END_GRACE_MS + 1500);
    expect(await started(4)).toBe(true);
    const left = Number(lines(path.join(base, 'pids'))[3]);
    process.kill(left, 'SIGKILL');
  });

  it('leaving ends every git still running, and none starts after', async () => {
    process.env.DEAF = '1';
    const runs = [git({ gitDir: base }, ['status']), git({ gitDir: base }, ['status'])];
    expect(await started(6)).toBe(true);
    await endGitRuns();
    const results = await Promise.all(runs);
    expect(results.map((r) => r.code)).toEqual([null, null]);
    const pids = lines(path.join(base, 'pids')).slice(4).map(Number);
    for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
    const after = await git({ gitDir: base }, ['status']);
    expect(after.cut).toBe('MadoHub is leaving');
    expect(lines(path.join(base, 'pids'))).toHaveLength(6);
    delete process.env.DEAF;
  });
});
