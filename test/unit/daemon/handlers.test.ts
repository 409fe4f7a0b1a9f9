// The daemon's operations, each on a jobs folder of its own with no host running: what they refuse,
// and what they leave. (Starting hosts is the integration tests'.)
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DaemonContext } from '../../../src/daemon/context.js';
import { handleDispatch } from '../../../src/daemon/handle-dispatch.js';
import { handleList } from '../../../src/daemon/handle-list.js';
import { handleRemove } from '../../../src/daemon/handle-remove.js';
import type { DispatchRequest } from '../../../src/jobs/protocol/daemon-requests.js';
import { blankJob, createJob } from '../../../src/jobs/store.js';

const templatesBefore = process.env.MADOHUB_TEMPLATES;
afterEach(() => {
  if (templatesBefore === undefined) delete process.env.MADOHUB_TEMPLATES;
  else process.env.MADOHUB_TEMPLATES = templatesBefore;
});

let ctx: DaemonContext & { said: string[] };
let cwd: string;
beforeEach(() => {
  const base = mkdtempSync(path.join(tmpdir(), 'madohub-daemon-unit-'));
  const said: string[] = [];
  ctx = {
    jobsDir: path.join(base, 'jobs'),
    runtime: path.join(base, 'run'),
    script: '/nonexistent/mado',
    say: (m) => said.push(m),
    said,
  };
  mkdirSync(ctx.jobsDir);
  cwd = path.join(base, 'proj');
  mkdirSync(cwd);
  // No templates of the user's: the agents' own serve.
  process.env.MADOHUB_TEMPLATES = path.join(base, 'no-templates.json');
});

const dispatch = (patch: Partial<DispatchRequest> = {}): DispatchRequest => ({
  op: 'dispatch',
  short: '3fa2c1d0',
  sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13',
  createdAt: 1,
  origin: 'shell',
  cwd,
  launch: { mode: 'prompt', args: ['fix it'] },
  respawnFlags: [],
  env: { PATH: '/nonexistent' },
  seed: { intent: 'fix it' },
  ...patch,
});

describe('dispatch', () => {
  it('refuses, before any job is made: an unknown agent, a missing folder, a program not on the PATH, a bad branch, a session id that is none', async () => {
    expect(await handleDispatch(ctx, dispatch({ agent: 'nosuch' }))).toMatchObject({
      type: 'error',
      error: expect.stringMatching(/^unknown agent 'nosuch' \(known: claude, /),
    });
    expect(await handleDispatch(ctx, dispatch({ cwd: '/nonexistent/folder' }))).toEqual({
      type: 'error',
      error: 'no folder /nonexistent/folder',
    });
    expect(await handleDispatch(ctx, dispatch())).toMatchObject({
      type: 'error',
      error: expect.stringContaining("the agent program 'claude' is not on the job's PATH"),
    });
    expect(await handleDispatch(ctx, dispatch({ worktree: { branch: '-rf' } }))).toMatchObject({ type: 'error' });
    expect(
      await handleDispatch(
        ctx,
        dispatch({ launch: { mode: 'resume', sessionId: '--dangerously', fork: false, flagArgs: [] } }),
      ),
    ).toEqual({ type: 'error', error: 'the session id to resume is not one' });
    expect(existsSync(path.join(ctx.jobsDir, '3fa2c1d0'))).toBe(false);
  });

  it('refuses an id whose job exists', async () => {
    createJob(ctx.jobsDir, { ...blankJob('3fa2c1d0', 1), sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13' });
    expect(await handleDispatch(ctx, dispatch())).toEqual({ type: 'error', error: 'job 3fa2c1d0 exists already' });
  });
});

describe('list and remove', () => {
  it('list every job, a job file that is none as an errored job; remove an ended one, and say no to one not there', async () => {
    createJob(ctx.jobsDir, {
      ...blankJob('3fa2c1d0', 1),
      sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13',
      status: 'done',
    });
    mkdirSync(path.join(ctx.jobsDir, 'aaaaaaaa'));
    writeFileSync(path.join(ctx.jobsDir, 'aaaaaaaa', 'job.json'), '{ not json');
    const listed = await handleList(ctx);
    expect(listed).toMatchObject({ type: 'jobs' });
    const jobs = (listed as { jobs: { short: string; status: string }[] }).jobs;
    expect(jobs.map((j) => [j.short, j.status]).sort()).toEqual([
      ['3fa2c1d0', 'done'],
      ['aaaaaaaa', 'errored'],
    ]);
    expect(await handleRemove(ctx, { op: 'remove', short: '3fa2c1d0', force: false })).toEqual({
      type: 'ok',
      short: '3fa2c1d0',
    });
    expect(existsSync(path.join(ctx.jobsDir, '3fa2c1d0'))).toBe(false);
    expect(await handleRemove(ctx, { op: 'remove', short: 'bbbbbbbb', force: false })).toEqual({
      type: 'error',
      error: "no job 'bbbbbbbb'",
    });
    expect(ctx.said).toContain('removed 3fa2c1d0');
  });
});
