// The jobs' harness ends what a test left running before the test's folders go: a process a host
// had started (a git checkpointing a turn) that outlived its host once wrote into the state folder
// while it was removed (rmdir: ENOTEMPTY, CI of stop 43).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killJobsOf } from './jobs-harness.js';
import { until } from '../helpers/wait.js';

const base = mkdtempSync(path.join(tmpdir(), 'madohub-harness-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A process that writes a new file into `folder` every few milliseconds, as a git writing objects. */
const WRITER = `const fs = require('node:fs');
let n = 0;
setInterval(() => { try { fs.writeFileSync(process.argv[1] + '/' + n++, 'x'); } catch {} }, 5);`;

describe('killJobsOf', () => {
  it('ends a process of the jobs folder that its host left behind, and returns once it is gone', async () => {
    const jobs = path.join(base, 'jobs');
    const objects = path.join(base, 'state', 'objects');
    mkdirSync(jobs, { recursive: true });
    mkdirSync(objects, { recursive: true });
    const writer = spawn(process.execPath, ['-e', WRITER, objects], {
      // First in its environment, as a command run through `env -i NAME=…` has it.
      env: { MADOHUB_JOBS_DIR: jobs, PATH: process.env.PATH },
      stdio: 'ignore',
    });
    expect(await until(() => readdirSync(objects).length > 3)).toBe(true);
    await killJobsOf(jobs);
    rmSync(path.join(base, 'state'), { recursive: true });
    // Nothing writes into the folder once it is gone: the writer ended before killJobsOf returned.
    expect(await until(() => writer.exitCode !== null || writer.signalCode !== null)).toBe(true);
    expect(existsSync(objects)).toBe(false);
  });
});
