// The guards of the jobs protocol: a request to the daemon or to a host is a JSON object whose op is
// known and whose fields pass that op's checks; anything else is refused with why, before any handler.
import { describe, expect, it } from 'vitest';
import { parseDaemonRequest } from '../../../../src/jobs/protocol/daemon-requests.js';
import { parseHostRequest } from '../../../../src/jobs/protocol/host-requests.js';

const dispatch = {
  op: 'dispatch',
  short: '3fa2c1d0',
  sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13',
  createdAt: 1,
  origin: 'shell',
  cwd: '/home/dev/proj',
  launch: { mode: 'prompt', args: ['fix it'] },
  respawnFlags: [],
  env: { PATH: '/usr/bin' },
  seed: { intent: 'fix it' },
};

describe('requests to the daemon', () => {
  it('pass when whole', () => {
    expect(parseDaemonRequest(dispatch)).toEqual(dispatch);
    expect(parseDaemonRequest({ op: 'list' })).toEqual({ op: 'list' });
    expect(parseDaemonRequest({ op: 'stop', short: '3fa2c1d0', wait: false })).toMatchObject({ op: 'stop' });
    expect(
      parseDaemonRequest({ ...dispatch, launch: { mode: 'resume', sessionId: 'abc', fork: true, flagArgs: [] } }),
    ).toMatchObject({ op: 'dispatch' });
  });

  it('are refused with the field that fails, whatever comes', () => {
    expect(parseDaemonRequest(null)).toBe('a request is a JSON object');
    expect(parseDaemonRequest([])).toBe('a request is a JSON object');
    expect(parseDaemonRequest({ op: 'format-disk' })).toBe('unknown op "format-disk"');
    expect(parseDaemonRequest({ op: 'toString' })).toBe('unknown op "toString"');
    expect(parseDaemonRequest({ ...dispatch, short: '../../etc' })).toBe(
      "dispatch: field 'short' must be a job id (8 lowercase hex digits)",
    );
    expect(parseDaemonRequest({ ...dispatch, cwd: 'relative' })).toBe("dispatch: field 'cwd' must be an absolute path");
    expect(parseDaemonRequest({ ...dispatch, origin: 'elsewhere' })).toBe(
      "dispatch: field 'origin' must be one of shell|slash|fleet|spare|respawn|left_arrow",
    );
    expect(parseDaemonRequest({ ...dispatch, env: { PATH: 1 } })).toBe(
      "dispatch: field 'env' must be a table of strings",
    );
    expect(parseDaemonRequest({ ...dispatch, launch: { mode: 'exec', cmd: 'rm' } })).toBe(
      'dispatch: field \'launch\' must be a launch of mode "prompt" or "resume"',
    );
    expect(parseDaemonRequest({ ...dispatch, cols: 100000 })).toBe(
      "dispatch: field 'cols' must be a whole number from 2 to 1000",
    );
    const { seed: _, ...noSeed } = dispatch;
    expect(parseDaemonRequest(noSeed)).toBe("dispatch: field 'seed' is missing");
    expect(parseDaemonRequest({ op: 'remove', short: '3fa2c1d0' })).toBe("remove: field 'force' is missing");
    expect(parseDaemonRequest({ op: 'route-add', source: 'job:3fa2c1d0', target: 'x'.repeat(5000) })).toBe(
      "route-add: field 'target' must be a string of at most 4096 characters",
    );
    expect(parseDaemonRequest({ op: 'route-add', source: 'job:3fa2c1d0', target: 'job:00000000', hops: 0 })).toBe(
      "route-add: field 'hops' must be a whole number from 1 to 100",
    );
  });
});

describe('requests to a host', () => {
  it('pass when whole', () => {
    expect(
      parseHostRequest({
        op: 'send',
        text: 'go on',
        waitMenus: true,
        busyMs: 1000,
        chain: { id: 'c1', hop: 1, visited: ['job:3fa2c1d0', 'job:00000000'] },
      }),
    ).toMatchObject({ op: 'send' });
    expect(parseHostRequest({ op: 'attach' })).toEqual({ op: 'attach' });
    expect(parseHostRequest({ op: 'resize', cols: 80, rows: 24 })).toMatchObject({ op: 'resize' });
  });

  it('are refused with the field that fails', () => {
    expect(parseHostRequest({ op: 'resize', cols: 1, rows: 24 })).toBe(
      "resize: field 'cols' must be a whole number from 2 to 1000",
    );
    expect(parseHostRequest({ op: 'choose', choice: 0 })).toBe(
      "choose: field 'choice' must be a whole number from 1 to 9",
    );
    expect(parseHostRequest({ op: 'input', data: 7 })).toBe("input: field 'data' must be a string");
    expect(parseHostRequest({ op: 'send', text: 'x', busyMs: -1 })).toMatch(
      /^send: field 'busyMs' must be a whole number from 1 to/,
    );
    expect(parseHostRequest({ op: 'send', text: 'x', chain: { id: 'c', hop: 'one', visited: [] } })).toMatch(
      /^send: field 'chain' must be/,
    );
    expect(parseHostRequest({ op: 'exec' })).toBe('unknown op "exec"');
  });
});
