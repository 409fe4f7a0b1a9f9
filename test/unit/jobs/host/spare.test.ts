// What a spare host is handed (issue 31): one job, checked before it is taken; what is no job, too
// large or not whole is refused with why, and an input that ends with nothing lets the spare go.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseSpareJob, readSpareInput, spareLine } from '../../../../src/jobs/host/spare.js';

const job = { short: 'abcd1234', cwd: '/home/dev/project', env: { PATH: '/usr/bin', HOME: '/home/dev' } };

describe("a spare host's job", () => {
  it('is the line the daemon writes, read back whole', async () => {
    const text = await readSpareInput(Readable.from([spareLine(job)]));
    expect(parseSpareJob(text!)).toEqual(job);
  });

  it('refuses what is no job: not JSON, a hostile id, a folder that is not absolute, an environment of other than strings', () => {
    expect(parseSpareJob('{"short":')).toBe('the job handed to the spare host is not JSON');
    for (const short of ['../../etc', 'ABCD1234', 'abcd123', 7, undefined])
      expect(parseSpareJob(JSON.stringify({ ...job, short }))).toBe('the spare host was handed no job');
    for (const cwd of ['project', '', 3])
      expect(parseSpareJob(JSON.stringify({ ...job, cwd }))).toBe('job abcd1234: no folder to start in');
    for (const env of [{ PATH: 1 }, ['PATH'], 'PATH=/bin', null])
      expect(parseSpareJob(JSON.stringify({ ...job, env }))).toBe(
        'job abcd1234: its environment is not a table of strings',
      );
  });

  it('is nothing when the input ends empty (the daemon let the spare go), and refused over 1 MiB', async () => {
    expect(await readSpareInput(Readable.from([]))).toBeUndefined();
    expect(await readSpareInput(Readable.from(['\n']))).toBeUndefined();
    const big = { ...job, env: { HUGE: 'x'.repeat(1024 * 1024) } };
    await expect(readSpareInput(Readable.from([spareLine(big)]))).rejects.toThrow(
      'the job handed to the spare host is too large',
    );
  });
});
