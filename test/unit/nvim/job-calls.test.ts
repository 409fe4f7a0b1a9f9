import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatchLine } from '../../../src/nvim/job-calls.js';
import { opCall } from '../../../src/nvim/op-calls.js';
import { Remotes } from '../../../src/jobs/remote/remotes.js';

describe('a job call that names a host', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'madohub-jobcalls-'));
  const env = { ...process.env, MADOHUB_JOBS_DIR: path.join(dir, 'jobs'), MADOHUB_RUNTIME_DIR: path.join(dir, 'run') };
  const none = new Remotes(env, () => undefined, { debug: () => undefined });

  it('that is no host is this machine’s job of that name (a name with a colon)', async () => {
    await expect(opCall({ op: 'run', name: 'logs', args: { id: ' parser' }, host: 'fix' }, none, env)).rejects.toThrow(
      "no job 'fix: parser'",
    );
  });

  it('a dispatch to a host that is none is said', async () => {
    await expect(
      dispatchLine({ op: 'dispatch', line: '@claude --host nobox go', cwd: dir }, none, env),
    ).rejects.toThrow("no host 'nobox'");
  });
});
