// A host writes its job file through one writer: a failure to write is told once in host.log and as
// the job's problem, with the next write that succeeds; a full disk never throws.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobWriter } from '../../../../src/jobs/host/job-writer.js';
import { blankJob, createJob } from '../../../../src/jobs/store.js';

describe("a host's job writer", () => {
  it("writes changes; tells a file it could not write once, as the job's problem with the next write", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-writer-'));
    createJob(dir, { ...blankJob('3fa2c1d0', 1), sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13' });
    const said: string[] = [];
    const w = new JobWriter(dir, '3fa2c1d0', (m) => said.push(m));
    await w.write({ detail: 'reading' });
    w.tell('output.log', 'cannot write output.log: ENOSPC');
    w.tell('output.log', 'cannot write output.log: ENOSPC');
    await w.write((job) => ({ detail: `${job.detail} more` }));
    const job = JSON.parse(readFileSync(path.join(dir, '3fa2c1d0', 'job.json'), 'utf8')) as Record<string, unknown>;
    expect(job).toMatchObject({ detail: 'reading more', problem: 'cannot write output.log: ENOSPC' });
    expect(said).toEqual(['cannot write output.log: ENOSPC']);
  });

  it('never throws when the job file cannot be written (its folder gone); says so once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-writer-'));
    createJob(dir, { ...blankJob('3fa2c1d0', 1), sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13' });
    rmSync(path.join(dir, '3fa2c1d0'), { recursive: true });
    const said: string[] = [];
    const w = new JobWriter(dir, '3fa2c1d0', (m) => said.push(m));
    await w.write({ detail: 'a' });
    await w.write({ detail: 'b' });
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^cannot write job\.json: /);
  });
});
