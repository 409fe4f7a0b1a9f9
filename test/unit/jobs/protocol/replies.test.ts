// What a daemon or a job's host answers — this machine's, or a remote host's passed on by its link —
// is checked field by field before anything reads it: a hostile peer's answer is refused with why.
import { describe, expect, it } from 'vitest';
import { asReply, listedJobOf } from '../../../../src/jobs/protocol/replies.js';
import { blankJob } from '../../../../src/jobs/store.js';

const job = { ...blankJob('0123abcd', 1), alive: true };
const route = {
  id: 'r1',
  source: 'job:0123abcd',
  target: 'job:box:89abcdef',
  targetName: 'reviewer',
  on: 'done',
  send: 'last',
  template: '',
  hops: 3,
  once: false,
  review: false,
  paused: false,
  createdAt: 1,
};

describe('replies', () => {
  it('takes each type with its fields', () => {
    const good: unknown[] = [
      { type: 'hello', role: 'host', pid: 42, proto: 2 },
      { type: 'ok' },
      { type: 'ok', short: '0123abcd', ended: true },
      { type: 'ok', queued: true, pending: 'held: draft' },
      { type: 'error', error: 'no job' },
      { type: 'jobs', jobs: [job] },
      { type: 'screen', lines: ['a'], title: 't', cursor: { x: 0, y: 1 } },
      { type: 'output', data: 'x', fd: 2 },
      { type: 'exit', code: 0 },
      { type: 'text', lines: ['a', 'b'], settled: 1 },
      { type: 'status', pid: 1, ptyPid: 2, clients: 0, pendingBytes: 0 },
      { type: 'routes', routes: [route], problems: [] },
      {
        type: 'hosts',
        hosts: [
          { host: 'box', jobs: [job] },
          { host: 'far', offline: 'refused' },
        ],
      },
    ];
    for (const reply of good) expect(asReply(reply), JSON.stringify(reply)).toEqual(reply);
  });

  it('refuses what a hostile peer may send, saying which field', () => {
    expect(asReply('ok')).toBe('a message is a JSON object');
    expect(asReply({ type: 'launch' })).toBe('unknown type "launch"');
    expect(asReply({ type: 'ok', short: '../../home' })).toBe(
      "ok: field 'short' must be a job id (8 lowercase hex digits)",
    );
    expect(asReply({ type: 'ok', pending: 7 })).toBe("ok: field 'pending' must be a string");
    expect(asReply({ type: 'error' })).toBe("error: field 'error' is missing");
    expect(asReply({ type: 'jobs', jobs: [job, { ...job, short: '../etc' }] })).toBe(
      "jobs: field 'jobs' must be a list of at most 2000 jobs, each with its id and whether it lives",
    );
    expect(asReply({ type: 'jobs', jobs: [{ ...job, alive: 'yes' }] })).toMatch(/whether it lives/);
    expect(asReply({ type: 'jobs', jobs: new Array(2001).fill(job) })).toMatch(/at most 2000 jobs/);
    expect(asReply({ type: 'screen', lines: ['a', 3], title: '', cursor: { x: 0, y: 0 } })).toMatch(/'lines'/);
    expect(asReply({ type: 'screen', lines: [], title: '', cursor: 'top' })).toMatch(/'cursor'/);
    expect(asReply({ type: 'output', data: 'x', fd: 3 })).toBe("output: field 'fd' must be 1 or 2");
    expect(asReply({ type: 'text', lines: [], settled: -1 })).toMatch(/'settled'/);
    expect(asReply({ type: 'status', pid: 1, ptyPid: 2, clients: 'many', pendingBytes: 0 })).toMatch(/'clients'/);
    expect(asReply({ type: 'routes', routes: [{ ...route, target: 'file:relative' }] })).toBe(
      "routes: field 'routes' must be a list of routes",
    );
    expect(asReply({ type: 'hosts', hosts: [{ host: 'box', jobs: [{ short: 'x', alive: true }] }] })).toMatch(
      /'hosts'/,
    );
  });

  it('a listed job is a job file, its error bounded', () => {
    expect(listedJobOf({ ...job, error: 'e'.repeat(500) })).toMatchObject({
      short: '0123abcd',
      error: 'e'.repeat(200),
    });
    expect(listedJobOf({ ...job, alive: 'yes' })).toBe("a job's alive must be true or false");
    expect(listedJobOf([])).toBe('a job is an object');
  });
});
