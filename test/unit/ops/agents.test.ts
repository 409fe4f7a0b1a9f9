// `jobs` (also `agents`) as an operation: its command line, this machine's jobs answered as data in
// the verbs' order (pinned first, then oldest first), printed as the table or JSON, every host's with
// --all (none configured: this machine's, with a HOST column), a result none of its refused.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { blankJob, createJob } from '../../../src/jobs/store.js';
import { agents } from '../../../src/ops/agents.js';
import { opOfVerb } from '../../../src/ops/index.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

const home = mkdtempSync(path.join(tmpdir(), 'madohub-ops-agents-'));
const jobs = path.join(home, 'jobs');
const env = {
  HOME: home,
  MADOHUB_JOBS_DIR: jobs,
  MADOHUB_RUNTIME_DIR: path.join(home, 'run'),
  XDG_CONFIG_HOME: path.join(home, 'config'),
};
const io = quietIo(env, '/nonexistent/mado');

beforeAll(() => {
  const made = (short: string, name: string, createdAt: number, pinned = false) =>
    createJob(jobs, {
      ...blankJob(short),
      status: 'stopped',
      name,
      cwd: path.join(home, 'work'),
      createdAt,
      updatedAt: createdAt,
      pinned,
    });
  made('00000002', 'second', 2000);
  made('00000001', 'first', 1000);
  made('00000003', 'pinned', 3000, true);
});

describe('the jobs operation', () => {
  it('is mado jobs and mado agents; takes --json and --all (-a), nothing else', () => {
    expect(opOfVerb('jobs')).toBe(agents);
    expect(opOfVerb('agents')).toBe(agents);
    expect(agents.fromArgv([])).toEqual({ json: false, all: false });
    expect(agents.fromArgv(['--json', '-a'])).toEqual({ json: true, all: true });
    expect(() => agents.fromArgv(['fix'])).toThrow(UsageError);
    expect(() => agents.fromArgv(['--nope'])).toThrow(UsageError);
  });

  it("answers this machine's jobs as data: pinned first, then oldest first", async () => {
    const listed = (await agents.run({ io }, {})) as {
      all: boolean;
      listings: { host: string; jobs: { short: string }[] }[];
    };
    expect(listed.all).toBe(false);
    expect(listed.listings.map((l) => l.host)).toEqual(['local']);
    expect(listed.listings[0]!.jobs.map((j) => j.short)).toEqual(['00000003', '00000001', '00000002']);
    await expect(agents.run({ io }, { json: 'yes' })).rejects.toThrow("field 'json' must be");
  });

  it('prints the table (folders under home as ~), or JSON with each usage as an entry carries it', async () => {
    let out = '';
    const at = { io: { ...io, out: (t: string) => void (out += t) } };
    await agents.print(at, { json: false });
    const rows = out.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID +STATUS +STATE +AGENT +AGE +NAME +FOLDER +USAGE/);
    expect(rows.slice(1).map((r) => r.split(/ +/)[0])).toEqual(['00000003', '00000001', '00000002']);
    expect(rows[1]).toContain('~/work');
    out = '';
    await agents.print(at, { json: true });
    const json = JSON.parse(out) as { short: string; usage: unknown }[];
    expect(json.map((j) => j.short)).toEqual(['00000003', '00000001', '00000002']);
    expect(json[0]!.usage).toBeNull();
  });

  it("with --all and no host configured: this machine's jobs with a HOST column, or { jobs, hosts }", async () => {
    let out = '';
    const at = { io: { ...io, out: (t: string) => void (out += t) } };
    await agents.print(at, { all: true });
    expect(out.split('\n')[0]).toMatch(/^HOST +ID +STATUS/);
    expect(out.split('\n')[1]).toMatch(/^local +00000003 /);
    out = '';
    await agents.print(at, { all: true, json: true });
    const across = JSON.parse(out) as { jobs: { short: string; host: string }[]; hosts: unknown[] };
    expect(across.jobs.map((j) => `${j.host}:${j.short}`)).toEqual([
      'local:00000003',
      'local:00000001',
      'local:00000002',
    ]);
    expect(across.hosts).toEqual([{ host: 'local', online: true }]);
  });

  it("says an empty list, and refuses a result that is none of its (a hostile host's)", () => {
    expect(agents.show({ all: false, listings: [{ host: 'local', jobs: [] }] })).toBe('no jobs\n');
    expect(() =>
      agents.show({ all: false, listings: [{ host: 'local', jobs: [{ short: '../../x', alive: true }] }] }),
    ).toThrow(JobError);
    expect(() => agents.show({ listings: [] })).toThrow(JobError);
  });
});
