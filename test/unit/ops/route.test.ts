// `route` as an operation: its command line (add, ls, rm and their flags), its arguments refused at
// its door before the daemon is asked, its result said in the words of :MadoRoute's options, and a
// result that is none of its (a hostile host's) refused.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { opOfVerb } from '../../../src/ops/index.js';
import { route } from '../../../src/ops/route.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

const home = mkdtempSync(path.join(tmpdir(), 'madohub-ops-route-'));
const io = quietIo(
  { HOME: home, MADOHUB_JOBS_DIR: path.join(home, 'jobs'), MADOHUB_RUNTIME_DIR: path.join(home, 'run') },
  '/nonexistent/mado',
);

const aRoute = {
  id: 'r1',
  source: 'job:0123abcd',
  target: 'job:89abcdef',
  targetName: 'review',
  on: 'done',
  send: 'last',
  template: '',
  hops: 3,
  once: true,
  review: false,
  paused: false,
  createdAt: 1,
};

describe('the route operation', () => {
  it("is mado route add|ls|rm, with add's flags as :MadoRoute names them", () => {
    expect(opOfVerb('route')).toBe(route);
    expect(route.fromArgv(['add', '--on', 'turn', '--send', 'diff', '--hops', '3', '--once', 'a', 'b'])).toEqual({
      action: 'add',
      source: 'a',
      target: 'b',
      on: 'turn',
      send: 'diff',
      hops: 3,
      once: true,
    });
    expect(route.fromArgv(['add', 'a', 'file:out.md'])).toEqual({ action: 'add', source: 'a', target: 'file:out.md' });
    expect(route.fromArgv(['ls', '--json'])).toEqual({ action: 'ls', json: true });
    expect(route.fromArgv(['rm', 'r1'])).toEqual({ action: 'rm', id: 'r1' });
  });

  it('refuses a command line that is none, with why', () => {
    expect(() => route.fromArgv([])).toThrow('mado route needs add, ls or rm');
    expect(() => route.fromArgv(['move'])).toThrow("unknown route command 'move' (add, ls, rm)");
    expect(() => route.fromArgv(['add', 'a'])).toThrow(UsageError);
    expect(() => route.fromArgv(['add', '--hops', 'many', 'a', 'b'])).toThrow("--hops needs a number, not 'many'");
    expect(() => route.fromArgv(['rm'])).toThrow(UsageError);
    expect(() => route.fromArgv(['ls', 'x'])).toThrow(UsageError);
  });

  it('refuses arguments that are none before it asks anything', async () => {
    await expect(route.run({ io }, { action: 'move' })).rejects.toThrow("field 'action' must be one of add|ls|rm");
    await expect(route.run({ io }, { action: 'add', source: 'a', hops: 500 })).rejects.toThrow("field 'hops'");
    await expect(route.run({ io }, { action: 'add', source: 'a' })).rejects.toThrow('needs a SOURCE and a TARGET');
    await expect(route.run({ io }, { action: 'add', source: 'file:x', target: 'b' })).rejects.toThrow(
      'a file is no source',
    );
    await expect(route.run({ io }, { action: 'rm' })).rejects.toThrow('needs a route ID');
  });

  it("says what it did in the words of the route's options", () => {
    expect(route.show({ action: 'add', routes: [aRoute], problems: [] })).toBe(
      'route r1  job:0123abcd → review  on=done send=last hops=3 once\n',
    );
    expect(route.show({ action: 'ls', routes: [], problems: [] })).toBe('no routes\n');
    expect(route.show({ action: 'rm', routes: [], problems: [], id: 'r1' })).toBe('removed route r1\n');
  });

  it("refuses a result that is none of its (a hostile host's)", () => {
    expect(() => route.show({ action: 'ls', routes: [{ ...aRoute, source: '../../etc' }], problems: [] })).toThrow(
      JobError,
    );
    expect(() => route.show({ action: 'ls', routes: [], problems: ['a\x1b[2Jb'] })).toThrow(JobError);
    expect(() => route.show({ action: 'ls' })).toThrow(JobError);
  });
});
