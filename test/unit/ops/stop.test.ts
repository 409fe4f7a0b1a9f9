// `stop` as one operation: its arguments from the command line and from anywhere else, checked at
// its door; its result, from another machine too, checked before it is said.
import { describe, expect, it } from 'vitest';
import { stop } from '../../../src/ops/stop.js';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

describe('the stop operation', () => {
  it('takes an ID, and --no-wait, on the command line', () => {
    expect(stop.fromArgv(['fix-parser'])).toEqual({ id: 'fix-parser', wait: true });
    expect(stop.fromArgv(['--no-wait', 'fix-parser'])).toEqual({ id: 'fix-parser', wait: false });
    expect(() => stop.fromArgv([])).toThrow(UsageError);
    expect(() => stop.fromArgv(['--force', 'x'])).toThrow(UsageError);
  });

  it('refuses arguments that are none before it does anything', async () => {
    const io = quietIo({ MADOHUB_JOBS_DIR: '/nonexistent/madohub-jobs' }, '/nonexistent/mado');
    await expect(stop.run({ io }, { id: 'x', wait: 0 })).rejects.toThrow("field 'wait' must be true or false");
    await expect(stop.run({ io }, [])).rejects.toThrow(UsageError);
  });

  it('says whether the job has ended, and refuses a result that is none of its', () => {
    expect(stop.show({ short: '0123abcd', ended: true })).toBe('stopped 0123abcd\n');
    expect(stop.show({ short: '0123abcd', ended: false })).toBe('stopping 0123abcd\n');
    expect(() => stop.show({ short: '0123abcd', ended: 'yes' })).toThrow(JobError);
  });
});
