// `answer` as one operation: its arguments from the command line and from anywhere else, checked at
// its door; its result, from another machine too, checked before it is said.
import { describe, expect, it } from 'vitest';
import { answer } from '../../../src/ops/answer.js';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

describe('the answer operation', () => {
  it('takes an ID and a choice from 1 to 9 on the command line', () => {
    expect(answer.fromArgv(['fix-parser', '2'])).toEqual({ id: 'fix-parser', choice: 2 });
    expect(() => answer.fromArgv(['fix-parser', '0'])).toThrow("N is a choice from 1 to 9, not '0'");
    expect(() => answer.fromArgv(['fix-parser', '12'])).toThrow(UsageError);
    expect(() => answer.fromArgv(['fix-parser'])).toThrow(UsageError);
  });

  it('refuses arguments that are none before it does anything', async () => {
    const io = quietIo({ MADOHUB_JOBS_DIR: '/nonexistent/madohub-jobs' }, '/nonexistent/mado');
    await expect(answer.run({ io }, { id: 'x', choice: 10 })).rejects.toThrow(
      "field 'choice' must be a whole number from 1 to 9",
    );
    await expect(answer.run({ io }, { id: 'x', choice: '1' })).rejects.toThrow(UsageError);
  });

  it('says the option chosen, and refuses a result that is none of its', () => {
    expect(answer.show({ short: '0123abcd', choice: 1, option: 'Yes' })).toBe('answered 0123abcd: 1. Yes\n');
    expect(answer.show({ short: '0123abcd', choice: 2, option: '' })).toBe('answered 0123abcd: 2\n');
    expect(() => answer.show({ short: '0123abcd', choice: 2, option: 'x'.repeat(201) })).toThrow(JobError);
    expect(() => answer.show({ short: '0123abcd', option: 'Yes' })).toThrow(JobError);
    // A hostile host's option that would write to the terminal is no option.
    expect(() => answer.show({ short: '0123abcd', choice: 1, option: 'Yes\u001b]0;pwned\u0007' })).toThrow(JobError);
  });
});
