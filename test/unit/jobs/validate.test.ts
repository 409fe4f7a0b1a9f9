// A job file is anyone's to write: read field by field, the first field that is wrong named.
import { describe, expect, it } from 'vitest';
import { blankJob } from '../../../src/jobs/store.js';
import { JOB_FIELDS, validateJob } from '../../../src/jobs/validate.js';
import { UsageCounter } from '../../../src/usage/tally.js';

const job = { ...blankJob('3fa2c1d0', 1), sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13', agent: 'claude' };

describe('a job file', () => {
  it('passes when whole, and an unknown agent id is let through (it reads as the fallback agent)', () => {
    expect(validateJob(job)).toEqual({ ok: true, job });
    expect(validateJob({ ...job, agent: 'zephyr' })).toMatchObject({ ok: true });
    // No agent known: a job whose file could not be read.
    expect(validateJob({ ...job, agent: '' })).toMatchObject({ ok: true });
  });

  it('is refused, naming the field, when a field is wrong or missing', () => {
    expect(validateJob('{}')).toMatchObject({ ok: false });
    expect(validateJob({ ...job, agent: '../../x' })).toEqual({
      ok: false,
      error: "field 'agent' must be an agent id",
    });
    expect(validateJob({ ...job, short: 'ZZZZZZZZ' })).toMatchObject({
      ok: false,
      error: expect.stringContaining("field 'short'"),
    });
    expect(validateJob({ ...job, status: 'partying' })).toMatchObject({
      ok: false,
      error: expect.stringContaining("field 'status' must be one of"),
    });
    expect(validateJob({ ...job, detail: 'x'.repeat(10_000) })).toMatchObject({
      ok: false,
      error: expect.stringContaining("field 'detail' must be a string of at most"),
    });
    const { cwd: _, ...noCwd } = job;
    expect(validateJob(noCwd)).toMatchObject({ ok: false, error: "field 'cwd' is missing" });
  });

  it('reads a usage that is none as none, and still lists the job (its usage is no reason to lose it)', () => {
    const c = new UsageCounter();
    c.add({
      kind: 'message',
      key: 'a',
      model: 'm',
      tokens: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(validateJob({ ...job, usage: c.tally })).toEqual({ ok: true, job: { ...job, usage: c.tally } });
    for (const usage of ['lots', { ...c.tally, cells: [{ inputTokens: -1 }] }, { ...c.tally, model: 'a\u001b[2Jb' }])
      expect(validateJob({ ...job, usage })).toEqual({ ok: true, job: { ...job, usage: null } });
  });

  it('has a check for every field of the job file', () => {
    expect([...JOB_FIELDS].sort()).toEqual(Object.keys(job).sort());
  });
});
