// `dispatch` as one operation: `mado --bg`'s words, the picker's and a bridge's arguments, all
// checked at its door before any daemon is asked; its result, from another machine too, checked.
import { describe, expect, it } from 'vitest';
import { dispatch } from '../../../src/ops/dispatch.js';
import { opOfVerb } from '../../../src/ops/index.js';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

const io = quietIo({ MADOHUB_JOBS_DIR: '/nonexistent/madohub-jobs' }, '/nonexistent/mado');

describe('the dispatch operation', () => {
  it('is mado --bg and --background on the command line', () => {
    expect(opOfVerb('--bg')).toBe(dispatch);
    expect(opOfVerb('--background')).toBe(dispatch);
    expect(dispatch.startsAgent).toBe(true);
  });

  it('reads --bg words as its arguments', () => {
    expect(dispatch.fromArgv(['--agent', 'codex', '-n', 'fix', '-w', 'fix', 'the', 'parser'])).toEqual({
      agent: 'codex',
      name: 'fix',
      prompt: 'fix the parser',
      forkSession: false,
      worktree: true,
    });
    expect(dispatch.fromArgv(['--resume', 'abc-123', '--fork-session', '--worktree=topic', 'go'])).toEqual({
      prompt: 'go',
      resume: 'abc-123',
      forkSession: true,
      worktree: true,
      branch: 'topic',
    });
    expect(dispatch.fromArgv(['-c', '--session-id', 'x', '--', '--not-a-flag'])).toEqual({
      prompt: '--not-a-flag',
      continue: true,
      forkSession: false,
      warnings: ['--session-id is ignored: mado gives each job its own session id'],
    });
    expect(() => dispatch.fromArgv(['--bogus'])).toThrow(UsageError);
    expect(() => dispatch.fromArgv(['--resume', '../../etc'])).toThrow(UsageError);
  });

  it('reads standard input only when the words say so (what comes soon, with a task on the line)', () => {
    expect(dispatch.stdin(['fix', 'it'])?.firstByteMs).toBeGreaterThan(0);
    expect(dispatch.stdin([])).toEqual({ firstByteMs: undefined });
    expect(dispatch.stdin(['--agent', 'codex'])).toEqual({ firstByteMs: undefined });
  });

  it('refuses arguments that are none before it asks any daemon', async () => {
    const refused = async (args: unknown, why: string | RegExp): Promise<void> => {
      await expect(dispatch.run({ io }, args)).rejects.toThrow(why);
      await expect(dispatch.run({ io }, args)).rejects.toBeInstanceOf(UsageError);
    };
    await refused({ prompt: 7 }, "field 'prompt' must be a string");
    await refused({ resume: 'a b' }, "field 'resume' must be a session id");
    await refused({ origin: 'spare' }, "field 'origin' must be one of shell|fleet|slash");
    await refused({ prompt: 'x'.repeat(121 * 1024) }, "field 'prompt'");
    await refused({ prompt: 'é'.repeat(100 * 1024) }, 'a job takes at most 120 KiB');
    await refused({ cwd: 'relative/dir' }, "a job's folder is an absolute path");
    await refused({ cwd: '/tmp', forkSession: true }, '--fork-session needs --resume ID or --continue');
    await refused({ cwd: '/tmp', resume: 'abc', continue: true }, 'exclude each other');
    await refused({ cwd: '/tmp', branch: 'topic' }, 'a branch is for a worktree');
  });

  it('says its result in words, and refuses one that is none of its (a hostile host’s)', () => {
    expect(dispatch.show({ short: '0123abcd' })).toMatch(/^backgrounded · 0123abcd\n {2}mado jobs/);
    expect(dispatch.resultProblem({ short: '0123abcd', warning: 'no session id' })).toBeNull();
    expect(() => dispatch.show({ short: '\u001b]52;c;x\u0007' })).toThrow(JobError);
    expect(() => dispatch.show({ short: '0123abcd', warning: 7 })).toThrow(JobError);
  });
});
