// `logs` and `screen` as operations: their arguments checked at their door, an ended job's output read
// from its log as data (no host: its output log replayed), their results checked before they are said.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { outputLog } from '../../../src/jobs/host/output-log.js';
import { blankJob, createJob } from '../../../src/jobs/store.js';
import { logs } from '../../../src/ops/logs.js';
import { screen } from '../../../src/ops/screen.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

const jobs = mkdtempSync(path.join(tmpdir(), 'madohub-ops-logs-'));
const io = quietIo({ MADOHUB_JOBS_DIR: jobs, MADOHUB_RUNTIME_DIR: path.join(jobs, 'run') }, '/nonexistent/mado');
const SHORT = '0123abcd';

beforeAll(() => {
  const dir = path.join(jobs, SHORT);
  createJob(dir, { ...blankJob(SHORT), status: 'done', name: 'fix parser' });
  // What the agent printed: 200 numbered lines, a colour, and a bell, which a terminal rings, not prints.
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);
  writeFileSync(outputLog(dir), `\x1b[32m${lines.join('\r\n')}\x1b[0m\r\nbell\x07 end\r\n`);
});

describe('the logs operation', () => {
  it('takes -n N, -f and --raw on the command line; -n is a number', () => {
    expect(logs.fromArgv(['fix'])).toEqual({ id: 'fix', follow: false, raw: false });
    expect(logs.fromArgv(['-n', '5', '-f', 'fix'])).toEqual({ id: 'fix', lines: 5, follow: true, raw: false });
    expect(() => logs.fromArgv(['-n', 'x', 'fix'])).toThrow("-n needs a number of lines, not 'x'");
    expect(() => logs.fromArgv([])).toThrow(UsageError);
  });

  it("answers an ended job's output as lines, by a prefix of its id too; the last N when asked", async () => {
    const all = await logs.run({ io }, { id: '0123' });
    expect(all).toMatchObject({ short: SHORT });
    const read = all as { lines: string[] };
    expect(read.lines[0]).toBe('line 1');
    expect(read.lines).toContain('line 200');
    expect(read.lines.join('\n')).not.toMatch(/[\x00-\x08\x1b]/);
    expect(await logs.run({ io }, { id: SHORT, lines: 2 })).toEqual({ short: SHORT, lines: ['line 200', 'bell end'] });
  });

  it('following and raw bytes are for a terminal, not data; a bad argument is refused first', async () => {
    await expect(logs.run({ io }, { id: SHORT, follow: true })).rejects.toThrow('-f and --raw are for a terminal');
    await expect(logs.run({ io }, { id: SHORT, lines: -1 })).rejects.toThrow("field 'lines' must be");
    await expect(logs.run({ io }, { id: 'nosuchjob' })).rejects.toThrow("no job 'nosuchjob'");
  });

  it('prints at a terminal what it answers as data', async () => {
    let out = '';
    await logs.print({ io: { ...io, out: (t) => void (out += t) } }, { id: SHORT, lines: 1 });
    expect(out).toBe('bell end\n');
    expect(logs.show({ short: SHORT, lines: ['a', 'b'] })).toBe('a\nb\n');
    expect(() => logs.show({ short: SHORT, lines: [1] })).toThrow(JobError);
  });
});

describe('the screen operation', () => {
  it("answers an ended job's last 150 lines, not live", async () => {
    const shown = (await screen.run({ io }, { id: SHORT })) as { short: string; lines: string[]; live: boolean };
    expect(shown.short).toBe(SHORT);
    expect(shown.live).toBe(false);
    expect(shown.lines).toHaveLength(150);
    expect(shown.lines.at(-1)).toBe('bell end');
    expect(screen.fromArgv(['fix'])).toEqual({ id: 'fix' });
    expect(() => screen.fromArgv(['fix', 'more'])).toThrow(UsageError);
  });

  it('refuses a result that is none of its (a hostile host’s)', () => {
    expect(screen.show({ short: SHORT, lines: ['x'], live: true })).toBe('x\n');
    expect(() => screen.show({ short: '../etc', lines: [], live: true })).toThrow(JobError);
    expect(screen.resultProblem({ short: SHORT, lines: 'x', live: true })).toBe('{ short, lines, live }');
    // Lines that would write to the terminal (an OSC 52 clipboard write), break a buffer line or turn text around.
    for (const line of ['\u001b]52;c;aGk=\u0007', 'two\nlines', 'abc\u202edcba'])
      expect(() => screen.show({ short: SHORT, lines: ['ok', line], live: true })).toThrow(JobError);
    expect(() => logs.show({ short: SHORT, lines: ['\u009b31m red'] })).toThrow(JobError);
  });
});
