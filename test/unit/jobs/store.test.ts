import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { beforeEach, describe, expect, it } from 'vitest';
import { matchId, matchJob, newSessionId, newShortId } from '../../../src/jobs/ids.js';
import { JOB_FILE_VERSION as PROTO } from '../../../src/jobs/types.js';
import { blankJob, createJob, jobsDir, listJobs, readJob, removeJob, updateJob } from '../../../src/jobs/store.js';
import type { JobFile } from '../../../src/jobs/types.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'madohub-jobs-'));
});

function sample(): JobFile {
  const short = newShortId();
  return {
    ...blankJob(short),
    sessionId: newSessionId(),
    status: 'running',
    tempo: 'active',
    agent: 'claude',
    intent: 'fix the failing parser test',
    name: 'parser fix',
    template: { name: 'claude', description: 'Claude Code', initialPrompt: '' },
    cwd: '/home/dev/proj',
    originCwd: '/home/dev/proj',
  };
}

describe('job records', () => {
  it('the jobs dir follows MADOHUB_JOBS_DIR, then XDG_STATE_HOME, then HOME', () => {
    expect(jobsDir({ MADOHUB_JOBS_DIR: '/j' })).toBe('/j');
    expect(jobsDir({ XDG_STATE_HOME: '/s' })).toBe('/s/madohub/jobs');
    expect(jobsDir({ HOME: '/h' })).toBe('/h/.local/state/madohub/jobs');
  });

  it('round trip: create, read, update (updatedAt bumped, other fields kept)', async () => {
    const job = createJob(dir, sample());
    expect(job.short).toMatch(/^[0-9a-f]{8}$/);
    expect(job.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const read = readJob(dir, job.short);
    expect(read).toEqual({ ok: true, job });
    const next = await updateJob(dir, job.short, { tempo: 'blocked', needs: 'approval' });
    expect(next.updatedAt).toBeGreaterThan(job.updatedAt);
    expect(next).toMatchObject({ tempo: 'blocked', needs: 'approval', name: 'parser fix', intent: job.intent });
    expect(readJob(dir, job.short)).toEqual({ ok: true, job: next });
  });

  it('keeps the bounds: intent 200, detail 120, firstTerminalAt set once', async () => {
    const job = createJob(dir, { ...sample(), intent: 'x'.repeat(500) });
    expect(job.intent).toHaveLength(200);
    await updateJob(dir, job.short, { detail: 'y'.repeat(300), firstTerminalAt: 111 });
    const next = await updateJob(dir, job.short, { firstTerminalAt: 222 });
    expect(next.detail).toHaveLength(120);
    expect(next.firstTerminalAt).toBe(111);
  });

  it('firstTerminalAt is set by the first terminal state, and kept when the job runs and ends again', async () => {
    const job = createJob(dir, sample());
    expect((await updateJob(dir, job.short, { tempo: 'active' })).firstTerminalAt).toBeNull();
    const before = Date.now();
    const done = await updateJob(dir, job.short, { status: 'done' });
    expect(done.firstTerminalAt).toBeGreaterThanOrEqual(before);
    await updateJob(dir, job.short, { status: 'running' });
    expect((await updateJob(dir, job.short, { status: 'killed' })).firstTerminalAt).toBe(done.firstTerminalAt);
  });

  it('a corrupt or unreadable file lists as errored with a clear detail, never a crash', async () => {
    const a = createJob(dir, sample());
    const b = createJob(dir, sample());
    const c = createJob(dir, sample());
    writeFileSync(path.join(dir, a.short, 'job.json'), '{"proto": 1, "short": ');
    const bad = JSON.parse(readFileSync(path.join(dir, b.short, 'job.json'), 'utf8')) as Record<string, unknown>;
    bad.tempo = 'sleepy';
    writeFileSync(path.join(dir, b.short, 'job.json'), JSON.stringify(bad));
    const views = new Map(listJobs(dir).map((v) => [v.job.short, v]));
    expect(views.get(a.short)).toMatchObject({
      ok: false,
      error: 'job.json is corrupt (not JSON)',
      job: { status: 'errored' },
    });
    expect(views.get(b.short)).toMatchObject({
      ok: false,
      error: "job.json: field 'tempo' must be one of active|idle|blocked",
    });
    expect(views.get(b.short)!.job.detail).toBe("job.json: field 'tempo' must be one of active|idle|blocked");
    expect(views.get(c.short)).toMatchObject({ ok: true });
    await expect(updateJob(dir, a.short, { pinned: true })).rejects.toThrow(/corrupt/);
  });

  it('a file of a newer proto is refused, naming both versions', async () => {
    const job = createJob(dir, sample());
    writeFileSync(path.join(dir, job.short, 'job.json'), JSON.stringify({ ...job, proto: PROTO + 1 }));
    const view = readJob(dir, job.short);
    expect(view.ok).toBe(false);
    expect(!view.ok && view.error).toBe(
      `job.json: this job file speaks protocol ${PROTO + 1}, this mado speaks protocol ${PROTO}`,
    );
    await expect(updateJob(dir, job.short, { pinned: true })).rejects.toThrow(`protocol ${PROTO + 1}`);
  });

  it('reads a job file of version 1 (state.json, with state, source and env) and replaces it at the next write', async () => {
    const job = createJob(dir, sample());
    const { status, origin, ...rest } = job;
    rmSync(path.join(dir, job.short, 'job.json'));
    const v1 = { ...rest, proto: 1, state: status, source: origin, env: { ANTHROPIC_API_KEY: 'sk-old' } };
    writeFileSync(path.join(dir, job.short, 'state.json'), JSON.stringify(v1));
    const read = readJob(dir, job.short);
    expect(read).toEqual({ ok: true, job: { ...job, proto: PROTO } });
    await updateJob(dir, job.short, { pinned: true });
    expect(readdirSync(path.join(dir, job.short)).sort()).toEqual(['job.json']);
    expect(readFileSync(path.join(dir, job.short, 'job.json'), 'utf8')).not.toContain('sk-old');
  });

  it('removes a job folder', () => {
    const job = createJob(dir, sample());
    removeJob(dir, job.short);
    expect(listJobs(dir)).toEqual([]);
  });

  it('two writers at once lose no field: 2 processes × 150 updates of different fields', async () => {
    const job = createJob(dir, { ...sample(), sortOrder: 0, stateSortOrder: 0 });
    const bundle = path.join(dir, 'store.cjs');
    buildSync({
      entryPoints: [path.resolve(__dirname, '../../../src/jobs/store.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'silent',
    });
    const writer = (field: 'sortOrder' | 'stateSortOrder'): Promise<number> =>
      new Promise((resolve) => {
        const code = `const s = require(${JSON.stringify(bundle)});
          (async () => { for (let i = 0; i < 150; i++) await s.updateJob(${JSON.stringify(dir)}, ${JSON.stringify(job.short)}, (j) => ({ ${field}: j.${field} + 1 })); })();`;
        spawn(process.execPath, ['-e', code], { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? -1));
      });
    const codes = await Promise.all([writer('sortOrder'), writer('stateSortOrder')]);
    expect(codes).toEqual([0, 0]);
    const final = readJob(dir, job.short);
    expect(final.ok && [final.job.sortOrder, final.job.stateSortOrder]).toEqual([150, 150]);
  }, 30000);
});

describe('job ids', () => {
  const shorts = ['3fa2c1d0', '3fb70011', 'a0000001'];
  it('a full id or a unique prefix', () => {
    expect(matchId(shorts, 'a0000001')).toEqual({ ok: true, short: 'a0000001' });
    expect(matchId(shorts, 'a')).toEqual({ ok: true, short: 'a0000001' });
    expect(matchId(shorts, '3FB')).toEqual({ ok: true, short: '3fb70011' });
  });
  it('unknown and ambiguous ids say so', () => {
    expect(matchId(shorts, 'abc')).toEqual({ ok: false, error: "no job 'abc'" });
    expect(matchId(shorts, '3f')).toEqual({ ok: false, error: "'3f' matches 2 jobs" });
    expect(matchId(shorts, '')).toEqual({ ok: false, error: 'no job id given' });
  });
  it('else a name, exactly; names are read only when no id matches', () => {
    let reads = 0;
    const names = (): { short: string; name: string }[] => {
      reads++;
      return [
        { short: '3fa2c1d0', name: 'parser fix' },
        { short: '3fb70011', name: 'docs' },
        { short: 'a0000001', name: 'docs' },
      ];
    };
    expect(matchJob(shorts, 'a', names)).toEqual({ ok: true, short: 'a0000001' });
    expect(reads).toBe(0);
    expect(matchJob(shorts, 'parser fix', names)).toEqual({ ok: true, short: '3fa2c1d0' });
    expect(matchJob(shorts, 'docs', names)).toEqual({
      ok: false,
      error: "2 jobs are named 'docs': 3fb70011, a0000001",
    });
    expect(matchJob(shorts, 'parser', names)).toEqual({ ok: false, error: "no job 'parser'" });
    expect(matchJob(shorts, '3f', names)).toEqual({ ok: false, error: "'3f' matches 2 jobs" });
  });
  it('new ids have the right shape', () => {
    expect(newShortId()).toMatch(/^[0-9a-f]{8}$/);
    expect(newSessionId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});
