import { describe, expect, it } from 'vitest';
import { blankJob } from '../../../../src/jobs/store.js';
import { bridgeHelloOf, listedJobsOf, parseBridgeEvent, parseBridgeRequest } from '../../../../src/jobs/remote/wire.js';

const job = { ...blankJob('0123abcd', 1), alive: true };

describe('the link’s wire', () => {
  it('takes the bridge’s events, each checked', () => {
    expect(parseBridgeEvent({ type: 'pong', ch: 0 })).toEqual({ type: 'pong', ch: 0 });
    expect(parseBridgeEvent({ type: 'out', ch: 3, fd: 2, data: 'x' })).toEqual({
      type: 'out',
      ch: 3,
      fd: 2,
      data: 'x',
    });
    expect(parseBridgeEvent({ type: 'exit', ch: 3, code: 1 })).toEqual({ type: 'exit', ch: 3, code: 1 });
    expect(parseBridgeEvent({ type: 'jobs', ch: 1, jobs: [job] })).toEqual({ type: 'jobs', ch: 1, jobs: [job] });
    expect(parseBridgeEvent({ type: 'closed', ch: 0, error: 'bye' })).toEqual({ type: 'closed', ch: 0, error: 'bye' });
  });

  it('refuses what a hostile bridge may say', () => {
    expect(parseBridgeEvent('garbage')).toBe('a message is a JSON object');
    expect(parseBridgeEvent({ ch: 1 })).toBe('unknown type undefined');
    expect(parseBridgeEvent({ type: 'out', fd: 1, data: 'x' })).toBe("out: field 'ch' is missing");
    expect(parseBridgeEvent({ type: 'out', ch: 0, fd: 1, data: 'x' })).toMatch(
      /^out: field 'ch' must be a whole number from 1/,
    );
    expect(parseBridgeEvent({ type: 'out', ch: 1, fd: 3, data: 'x' })).toBe("out: field 'fd' must be 1 or 2");
    expect(parseBridgeEvent({ type: 'out', ch: 1, fd: 1, data: 7 })).toBe("out: field 'data' must be a string");
    expect(parseBridgeEvent({ type: 'exit', ch: 1, code: 'x' })).toBe(
      "exit: field 'code' must be a whole number from -1 to 255",
    );
    expect(parseBridgeEvent({ type: 'jobs', ch: 1, jobs: new Array(2001).fill(job) })).toBe(
      "jobs: field 'jobs' must be a list of at most 2000 jobs",
    );
    expect(parseBridgeEvent({ type: 'jobs', ch: 1, jobs: 'all' })).toBe(
      "jobs: field 'jobs' must be a list of at most 2000 jobs",
    );
    // A list's jobs are checked as it is shown (the newest of a burst): one job that is none spoils
    // the list, refused whole.
    expect(listedJobsOf([job, { ...job, short: '../etc' }])).toMatch(/^a job it listed is none: .*short/);
    expect(listedJobsOf([{ ...job, alive: 'yes' }])).toMatch(/alive/);
    expect(listedJobsOf([job])).toEqual([expect.objectContaining({ short: job.short, alive: true })]);
    expect(parseBridgeEvent({ type: 'launch', ch: 1 })).toBe('unknown type "launch"');
    expect(parseBridgeEvent({ type: '__proto__', ch: 1 })).toBe('unknown type "__proto__"');
    expect(parseBridgeEvent({ type: 'msg', ch: 1, msg: 'x' })).toBe("msg: field 'msg' must be an object");
    expect(
      (parseBridgeEvent({ type: 'closed', ch: 1, error: 'e'.repeat(9000) }) as { error: string }).error,
    ).toHaveLength(500);
  });

  it('knows a bridge’s hello, and no other', () => {
    expect(bridgeHelloOf({ type: 'hello', role: 'bridge', pid: 7, version: '0.1.0', proto: 2 })).toEqual({
      version: '0.1.0',
      proto: 2,
      pid: 7,
      ops: [],
    });
    expect(
      bridgeHelloOf({ type: 'hello', role: 'bridge', pid: 7, version: '0.1.0', proto: 2, ops: ['list', 7, 'daemon'] })!
        .ops,
    ).toEqual(['list', 'daemon']);
    expect(bridgeHelloOf({ type: 'hello', role: 'daemon', pid: 7 })).toBeUndefined();
    expect(bridgeHelloOf({ type: 'hello', role: 'bridge', version: 'v'.repeat(100) })!.version).toHaveLength(40);
    expect(bridgeHelloOf({ type: 'hello', role: 'bridge', version: '1.0\u001b]0;x\u0007' })!.version).toBe('1.0?]0;x?');
  });

  it('lets through only the requests a bridge serves', () => {
    expect(parseBridgeRequest({ op: 'verb', ch: 1, argv: ['agents'], as: 'box' })).toEqual({
      op: 'verb',
      ch: 1,
      argv: ['agents'],
      as: 'box',
    });
    expect(parseBridgeRequest({ op: 'verb', ch: 1, argv: ['x'], as: 'a b' })).toMatch(/as/);
    expect(parseBridgeRequest({ op: 'verb', ch: 1, argv: new Array(300).fill('x') })).toMatch(/argv/);
    expect(parseBridgeRequest({ op: 'exec', ch: 1 })).toMatch(/exec/);
    expect(parseBridgeRequest({ op: 'msg', ch: 1, msg: [] })).toMatch(/msg/);
    expect(parseBridgeRequest({ op: 'list', ch: 0 })).toMatch(/ch/);
  });
});
