// `mado bridge` with a peer that stops reading: a job host's channel pauses its source (the host's
// socket is not read on), so nothing piles up in the bridge's memory.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonRequestThere, runBridge } from '../../../src/cli/bridge.js';
import { encode, PROTO } from '../../../src/jobs/protocol/codec.js';
import { listGapMs } from '../../../src/jobs/remote/wire.js';
import { blankJob, createJob, updateJob } from '../../../src/jobs/store.js';
import { processStamp } from '../../../src/proc/stamp.js';
import { elapse, until, waitFor } from '../../helpers/wait.js';

let server: Server | undefined;
let base = '';
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
  if (base) rmSync(base, { recursive: true, force: true });
});

/** A jobs folder and a runtime folder (0700) of the test's own, removed after it. */
function jobFolders(): { jobs: string; run: string } {
  base = mkdtempSync(path.join(tmpdir(), 'madohub-bridge-'));
  const jobs = path.join(base, 'jobs');
  const run = path.join(base, 'run');
  mkdirSync(jobs, { recursive: true });
  mkdirSync(run, { mode: 0o700 });
  chmodSync(run, 0o700);
  return { jobs, run };
}

describe('mado bridge, its peer no longer reading', () => {
  it('a job host’s channel stops reading the host: what waits for the peer stays near its bound', async () => {
    const { jobs, run } = jobFolders();
    const short = '0a0b0c0d';
    createJob(jobs, blankJob(short));
    const socket = path.join(run, `${short}.sock`);
    // A job's host that sends its output as fast as its socket takes it.
    let sent = 0;
    server = createServer((c: Socket) => {
      c.write(encode({ type: 'hello', proto: PROTO, role: 'host', pid: process.pid }));
      const chunk = encode({ type: 'output', data: 'x'.repeat(60_000) });
      const more = (): void => {
        while (c.write(chunk)) sent += chunk.length;
        sent += chunk.length;
        c.once('drain', more);
      };
      more();
      c.on('error', () => undefined);
    });
    await new Promise<void>((r) => server!.listen(socket, r));
    writeFileSync(
      path.join(jobs, short, 'host.json'),
      JSON.stringify({
        proto: PROTO,
        pid: process.pid,
        pidStart: processStamp(process.pid) ?? '',
        ptyPid: process.pid,
        ptyStart: '',
        socket,
        startedAt: Date.now(),
      }),
    );
    // The peer: it reads nothing (a frozen ssh, a suspended link).
    const output = new Writable({ highWaterMark: 64 * 1024, write: () => undefined });
    const input = new PassThrough();
    const done = runBridge({
      input,
      output,
      env: { ...process.env, MADOHUB_JOBS_DIR: jobs, MADOHUB_RUNTIME_DIR: run },
      script: 'mado',
      version: '0.0.0',
    });
    input.write(encode({ proto: PROTO, op: 'host', ch: 1, id: short }));
    // Given time to pile up (the host sends as fast as it can).
    expect(await until(() => sent > 8 * 1024 * 1024, 10000)).toBe(true);
    // What waits for the peer: its bound (4 MiB) and a message or so, not what the host sent.
    expect(output.writableLength).toBeLessThan(6 * 1024 * 1024);
    input.end();
    await done;
  }, 20000);
});

describe('mado bridge, following the jobs of a busy host', () => {
  it('sends a list of 2,000 jobs at most once in 500 ms (the newest), however often they change', async () => {
    const { jobs, run } = jobFolders();
    const shorts = Array.from({ length: 2000 }, (_, i) => (0x10000000 + i).toString(16));
    for (const short of shorts) createJob(jobs, blankJob(short));
    const short = shorts[0]!;
    const lists: string[] = [];
    let pending = '';
    const output = new Writable({
      write: (chunk: Buffer, _enc, next) => {
        pending += chunk.toString('utf8');
        for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
          const m = JSON.parse(pending.slice(0, nl)) as { type: string; jobs?: { short: string; detail: string }[] };
          pending = pending.slice(nl + 1);
          if (m.type === 'jobs') lists.push(m.jobs?.find((j) => j.short === short)?.detail ?? '');
        }
        next();
      },
    });
    const input = new PassThrough();
    const done = runBridge({
      input,
      output,
      env: { ...process.env, MADOHUB_JOBS_DIR: jobs, MADOHUB_RUNTIME_DIR: run },
      script: 'mado',
      version: '0.0.0',
    });
    input.write(encode({ proto: PROTO, op: 'watch', ch: 1 }));
    await waitFor(() => lists.length > 0, 10000, 'the first list');
    // A job changes every 40 ms for 3 s: the folder's watch reads the 2,000 again and again.
    const from = Date.now();
    let changes = 0;
    while (Date.now() - from < 3000) {
      await updateJob(jobs, short, { detail: `change ${++changes}` });
      await elapse(40);
    }
    // Its last change is sent, once the wait is over.
    await until(() => lists.at(-1) === `change ${changes}`);
    expect(lists.at(-1)).toBe(`change ${changes}`);
    expect(lists.length - 1).toBeLessThanOrEqual(Math.ceil((Date.now() - from) / 500) + 1);
    input.end();
    await done;
  }, 30000);

  it('waits after a list as long as its jobs ask: 500 ms for 2,000 (the most a host may list), 12.5 ms for 50', () => {
    expect([listGapMs(2000), listGapMs(50), listGapMs(0), listGapMs(10_000)]).toEqual([500, 12.5, 0, 500]);
  });
});

describe('mado bridge, a daemon request from the other side', () => {
  const op = (req: Record<string, unknown>, extra: { cwd?: string; env?: Record<string, string> } = {}) => ({
    op: 'daemon' as const,
    ch: 3,
    req,
    ...extra,
  });
  const dispatch = {
    op: 'dispatch',
    short: '0a1b2c3d',
    sessionId: '01234567-89ab-4def-8123-456789abcdef',
    createdAt: 1,
    origin: 'fleet',
    cwd: '',
    launch: { mode: 'prompt', args: ['go'] },
    respawnFlags: [],
    env: { SECRET_OF_THE_OTHER_SIDE: 'x' },
    seed: { intent: 'go' },
  };

  it('is one of the job service’s: a route, a list or a remote verb is refused with why', () => {
    expect(daemonRequestThere(op({ op: 'route-add', source: 'job:0a1b2c3d', target: 'file:/tmp/x' }), {})).toBe(
      'the daemon is asked for "route-add" through a link: only dispatch, stop, kill, respawn, remove',
    );
    expect(daemonRequestThere(op({ op: 'remote-verb', host: 'b', config: {}, argv: ['x'] }), {})).toMatch(
      /^the daemon is asked for "remote-verb"/,
    );
    expect(daemonRequestThere(op({ op: 'stop', short: '../../etc' }), {})).toMatch(/short/);
    expect(daemonRequestThere(op({ op: 'stop', short: '0a1b2c3d', wait: false }), {})).toEqual({
      op: 'stop',
      short: '0a1b2c3d',
      wait: false,
    });
  });

  it('a dispatch gets this machine’s variables (and those the job names of the other side’s), and the host’s folder', () => {
    const env = { HOME: '/home/me', PATH: '/usr/bin', ANTHROPIC_API_KEY: 'mine', UNRELATED: 'no' };
    const there = daemonRequestThere(op(dispatch, { cwd: '~/src/app', env: { MY_TOKEN: 't' } }), env);
    expect(there).toMatchObject({ op: 'dispatch', cwd: '/home/me/src/app' });
    const got = (there as { env: Record<string, string> }).env;
    expect(got.ANTHROPIC_API_KEY).toBe('mine');
    expect(got.MY_TOKEN).toBe('t');
    expect(got.SECRET_OF_THE_OTHER_SIDE).toBeUndefined();
    expect(got.UNRELATED).toBeUndefined();
    // No folder set for the host: the bridge's own.
    expect(daemonRequestThere(op(dispatch), env)).toMatchObject({ cwd: process.cwd() });
  });
});
