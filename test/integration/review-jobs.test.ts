// `mado review` of a background job (issue 29): its host takes a checkpoint of the folder at each turn's start and
// end, and each turn shows its own change — added, modified, deleted, renamed — over several turns, in
// a git folder (the user's repository untouched) and a plain one, with a second agent in the folder.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLedger } from '../../src/review/ledger.js';
import { shadowDir } from '../../src/review/checkpoint.js';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { untilValue } from '../helpers/wait.js';

const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });

interface Review {
  turn: number;
  endedAt: number | null;
  others: string[];
  files: { path: string; status: string; oldPath?: string; diff: string }[];
}

/** The job's turn `n` once its start's checkpoint is taken: its agent's work ends then (the file it waits for). */
async function letTurnEnd(folder: string, short: string, n: number, go: string): Promise<void> {
  const gitDir = shadowDir(path.join(h.base, 'state', 'madohub', 'review'), realpathSync(folder));
  const started = await untilValue(
    async () => readLedger(gitDir, `job-${short}`)?.turns.find((t) => t.turn === n),
    (t) => t?.start !== undefined,
    15000,
  );
  expect(started?.start).toMatch(/^[0-9a-f]{40}$/);
  writeFileSync(`${go}-${n}`, '');
}

/** The job's environment: its agent's work ends as the file `file` names ({n}: the turn) exists. */
const untilFile = (file: string): NodeJS.ProcessEnv => ({
  MADOHUB_FIXTURE_WORK_UNTIL: file,
  MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_WORK_UNTIL',
});

const reviewOf = async (short: string, turn?: number): Promise<Review> => {
  const r = await h.mado(['review', '--json', ...(turn ? ['--turn', String(turn)] : []), short]);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Review;
};

describe('mado review', () => {
  for (const kind of ['git', 'plain'] as const)
    it(`each turn of a job shows its own change (a ${kind} folder)`, async () => {
      let folder: string;
      let git: ((...args: string[]) => string) | undefined;
      if (kind === 'git') ({ repo: folder, git } = h.gitRepo());
      else mkdirSync((folder = path.join(h.base, 'plain')));
      writeFileSync(path.join(folder, 'keep.txt'), 'one\ntwo\n');
      writeFileSync(path.join(folder, 'gone.txt'), 'bye\n');
      writeFileSync(path.join(folder, 'old.txt'), 'a\nb\nc\nd\n');
      const refs = git?.('for-each-ref');
      const go = path.join(h.base, 'go');
      const env = untilFile(`${go}-{n}`);
      const edits = 'edit write keep.txt one\\nTWO\\n ; write new.txt fresh\\n ; rm gone.txt ; mv old.txt renamed.txt';
      const short = shortOf(
        (await h.mado(['--bg', '--agent', 'replier', '-n', 'coder', edits], '', env, folder)).stdout,
      );
      await letTurnEnd(folder, short, 1, go);
      const first = await until(
        () => reviewOf(short),
        (r) => r.turn === 1 && r.endedAt !== null,
        15000,
      );
      expect(first.files.map((f) => [f.status, f.path, f.oldPath ?? ''])).toEqual([
        ['deleted', 'gone.txt', ''],
        ['modified', 'keep.txt', ''],
        ['added', 'new.txt', ''],
        ['renamed', 'renamed.txt', 'old.txt'],
      ]);
      expect(first.files[1]?.diff).toMatch(/-two\n\+TWO\n/);

      // The second turn (a reply): its own change only; the first stays as it was.
      expect(
        (await h.mado(['send', short, 'edit write second.txt 2\\n ; write keep.txt one\\nTWO\\nthree\\n'])).code,
      ).toBe(0);
      await letTurnEnd(folder, short, 2, go);
      const second = await until(
        () => reviewOf(short),
        (r) => r.turn === 2 && r.endedAt !== null,
        15000,
      );
      expect(second.files.map((f) => [f.status, f.path])).toEqual([
        ['modified', 'keep.txt'],
        ['added', 'second.txt'],
      ]);
      expect(second.files[0]?.diff).toMatch(/ TWO\n\+three\n/);
      expect((await reviewOf(short, 1)).files).toEqual(first.files);
      // Its file says how many files its last turn changed (its row says so until seen).
      expect((await until(h.jobs, (j) => j[0]?.turnChanged === 2))[0]?.turnChanged).toBe(2);

      // In words: the head line, then the diff.
      const words = await h.mado(['review', short]);
      expect(words.stdout).toMatch(
        /^coder · turn 2 \(kept 1–2\) · \d{4}-\d\d-\d\d \d\d:\d\d → \d\d:\d\d · \/.*\n2 file\(s\) changed, \+2 -0\n\ndiff --git a\/keep.txt b\/keep.txt\n/,
      );
      const none = await h.mado(['review', '--turn', '9', short]);
      expect(none).toMatchObject({ code: 1, stdout: '' });
      expect(none.stderr).toMatch(/no turn 9 is kept \(turns 1–2 are\)/);
      expect((await h.mado(['review', '--turn', 'x', short])).stderr).toMatch(/--turn needs a turn's number/);
      // The user's repository: no ref, stash or object of MadoHub's.
      if (git) {
        expect(git('for-each-ref')).toBe(refs);
        expect(git('stash', 'list')).toBe('');
      }
    });

  it('another agent that worked in the folder during the turn is named', async () => {
    mkdirSync(path.join(h.base, 'shared'));
    const folder = path.join(h.base, 'shared');
    const go = path.join(h.base, 'go');
    const other = path.join(h.base, 'other');
    const a = shortOf(
      (
        await h.mado(
          ['--bg', '--agent', 'replier', '-n', 'claude work', 'edit write a.txt a'],
          '',
          untilFile(`${go}-{n}`),
          folder,
        )
      ).stdout,
    );
    await untilValue(
      async () =>
        readLedger(shadowDir(path.join(h.base, 'state', 'madohub', 'review'), realpathSync(folder)), `job-${a}`),
      (l) => l?.turns[0]?.start !== undefined,
      15000,
    );
    const b = shortOf(
      (
        await h.mado(
          ['--bg', '--agent', 'replier', '-n', 'codex work', 'edit write b.txt b'],
          '',
          untilFile(`${other}-{n}`),
          folder,
        )
      ).stdout,
    );
    await letTurnEnd(folder, b, 1, other);
    await until(
      () => reviewOf(b),
      (r) => r.turn === 1 && r.endedAt !== null,
      15000,
    );
    writeFileSync(`${go}-1`, '');
    const r = await until(
      () => reviewOf(a),
      (x) => x.turn === 1 && x.endedAt !== null,
      15000,
    );
    expect(r.others).toEqual(['codex work']);
    expect(r.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt']);
    expect((await h.mado(['review', a])).stdout).toMatch(/\ncodex work also worked here during this turn\n/);
  });
});
