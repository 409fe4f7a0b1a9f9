import { describe, expect, it } from 'vitest';
import { endOf } from '../../../../src/jobs/host/ending.js';

describe('how a job’s file tells its agent’s end', () => {
  it('stopped or killed by the user, killed by a signal, done, errored with its status; nothing left waiting', () => {
    const idle = { tempo: 'idle', needs: null, block: null, pendingReply: null };
    expect(endOf('stopped', 0, undefined)).toEqual({ status: 'stopped', detail: 'stopped', ...idle });
    expect(endOf('killed', 0, 9)).toEqual({ status: 'killed', detail: 'killed', ...idle });
    // node-pty says status 0 and the signal: no finish.
    expect(endOf(undefined, 0, 9)).toEqual({ status: 'errored', detail: 'killed by SIGKILL', ...idle });
    expect(endOf(undefined, 0, undefined)).toEqual({ status: 'done', ...idle });
    expect(endOf(undefined, 3, undefined)).toEqual({ status: 'errored', detail: 'exited with status 3', ...idle });
  });
});
