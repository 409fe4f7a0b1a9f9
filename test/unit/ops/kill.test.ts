// `kill` as one operation: its arguments from the command line and from anywhere else, checked at
// its door; its result, from another machine too, checked before it is said.
import { describe, expect, it } from 'vitest';
import { kill } from '../../../src/ops/kill.js';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

describe('the kill operation', () => {
  it('takes one ID on the command line', () => {
    expect(kill.fromArgv(['fix-parser'])).toEqual({ id: 'fix-parser' });
    expect(() => kill.fromArgv([])).toThrow(UsageError);
    expect(() => kill.fromArgv(['a', 'b'])).toThrow(UsageError);
  });

  it('refuses arguments that are none before it does anything', async () => {
    const io = quietIo({ MADOHUB_JOBS_DIR: '/nonexistent/madohub-jobs' }, '/nonexistent/mado');
    await expect(kill.run({ io }, { id: 7 })).rejects.toThrow("field 'id' must be a string");
    await expect(kill.run({ io }, 'abc')).rejects.toThrow(UsageError);
    await expect(kill.run({ io }, { id: 'x'.repeat(201) })).rejects.toThrow(UsageError);
  });

  it('says a result in words, and refuses one that is none of its (a hostile host’s)', () => {
    expect(kill.show({ short: '0123abcd', ended: true })).toBe('killed 0123abcd\n');
    expect(() => kill.show({ short: '\u001b]52;c;x\u0007', ended: true })).toThrow(JobError);
    expect(() => kill.show({ short: '0123abcd' })).toThrow(JobError);
    expect(kill.resultProblem({ short: '0123abcd', ended: false })).toBeNull();
  });
});
