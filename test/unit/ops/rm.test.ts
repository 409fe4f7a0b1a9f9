// `rm` as one operation: its arguments from the command line and from anywhere else, checked at its
// door; its result, from another machine too, checked before it is said.
import { describe, expect, it } from 'vitest';
import { rm } from '../../../src/ops/rm.js';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

describe('the rm operation', () => {
  it('takes an ID, and --force or -f, on the command line', () => {
    expect(rm.fromArgv(['fix-parser'])).toEqual({ id: 'fix-parser', force: false });
    expect(rm.fromArgv(['-f', 'fix-parser'])).toEqual({ id: 'fix-parser', force: true });
    expect(rm.fromArgv(['fix-parser', '--force'])).toEqual({ id: 'fix-parser', force: true });
    expect(() => rm.fromArgv([])).toThrow(UsageError);
    expect(() => rm.fromArgv(['--all', 'x'])).toThrow(UsageError);
  });

  it('refuses arguments that are none before it does anything', async () => {
    const io = quietIo({ MADOHUB_JOBS_DIR: '/nonexistent/madohub-jobs' }, '/nonexistent/mado');
    await expect(rm.run({ io }, { id: 'x', force: 'yes' })).rejects.toThrow("field 'force' must be true or false");
    await expect(rm.run({ io }, { force: true })).rejects.toThrow("field 'id' is missing");
  });

  it('says a result in words, and refuses one that is none of its (a hostile host’s)', () => {
    expect(rm.show({ short: '0123abcd' })).toBe('removed 0123abcd\n');
    expect(() => rm.show({ short: '../../home' })).toThrow(JobError);
    expect(() => rm.show(null)).toThrow(JobError);
  });
});
