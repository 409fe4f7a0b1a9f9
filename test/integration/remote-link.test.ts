// The link to a host, without ssh: the host's command is a local `sh` with the "remote" side's
// folders (a second set), or a fixture that is no honest bridge. What ssh adds is in ssh-hosts.test.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Link, LinkError } from '../../src/jobs/remote/link.js';
import { dispatched, dispatchRequest, removeVia, SERVICE_MS, stopVia } from '../../src/jobs/client/service.js';
import type { AskDaemon } from '../../src/jobs/client/service.js';
import type { HostConfig } from '../../src/jobs/remote/hosts.js';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { ROOT } from './neovim.js';

const remote = useJobsHarness();
/** The real `mado bridge`, through a shell that runs with the remote side's folders. */
const shellHost = (extra: Partial<HostConfig> = {}): HostConfig => ({
  command: [
    'env',
    ...['MADOHUB_TEMPLATES', 'MADOHUB_JOBS_DIR', 'MADOHUB_RUNTIME_DIR'].map((k) => `${k}=${remote.env[k]}`),
    'sh',
  ],
  mado: `${process.execPath} ${path.join(ROOT, 'dist/mado.js')}`,
  ...extra,
});
const hostile = (mode: string): HostConfig => ({
  command: [process.execPath, path.join(FIX, 'bin/hostile-bridge'), mode],
  mado: 'mado',
});
const open = (cfg: HostConfig, connectMs = 5000): Promise<Link> =>
  Link.open('box', cfg, { env: process.env, connectMs });
const failure = async (p: Promise<unknown>): Promise<LinkError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof LinkError) return err;
    throw err;
  }
  throw new Error('it did not fail');
};

describe('a link to a host', () => {
  it('lists the jobs there, runs a verb there and reaches a job’s host there', async () => {
    const started = await remote.mado(['--bg', '--agent', 'looper', '-n', 'parser', 'go']);
    const short = shortOf(started.stdout);
    const link = await open(shellHost());
    try {
      expect(link.version).toMatch(/^\d+\.\d+\.\d+/);
      const jobs = await until(
        () => link.list(5000),
        (js) => js[0]?.alive === true,
      );
      expect(jobs.map((j) => [j.short, j.name, j.alive])).toEqual([[short, 'parser', true]]);
      let out = '';
      const code = await link.verb(['send', 'parser', 'hello'], { onOut: (_fd, d) => (out += d) });
      expect(code).toBe(0);
      // The looper works and idles in turn: the reply is sent, or waits for its turn's end.
      expect(out).toMatch(new RegExp(`^(sent to ${short}|queued for ${short}: sent when its turn ends)\n$`));
      // A verb that fails there fails here with its status and its words.
      let err = '';
      expect(await link.verb(['stop', 'nosuchjob'], { onOut: (fd, d) => fd === 2 && (err += d) })).toBe(1);
      expect(err).toBe("mado stop: no job 'nosuchjob'\n");
      const peer = await link.host('parser', 5000);
      peer.send({ op: 'attach', cols: 80, rows: 24 });
      const screen = await peer.next(5000);
      expect(screen.type).toBe('screen');
      peer.close();
      // A job that is not there is said, and the link stays up.
      await expect(link.host('nosuchjob', 5000)).rejects.toThrow("no job 'nosuchjob'");
      expect((await link.list(5000)).length).toBe(1);
    } finally {
      link.close();
    }
  });

  it('asks its daemon as this machine’s is asked: a dispatch, a stop that says it ended, a removal; an older bridge is said', async () => {
    const link = await open(shellHost());
    try {
      const ask: AskDaemon = (request, ms) => link.daemon(request, ms);
      const request = dispatchRequest(
        { agent: 'looper', prompt: 'go', forkSession: false, origin: 'fleet', cwd: '', name: 'over the link' },
        {},
      );
      expect(dispatched(request, await ask(request, SERVICE_MS.dispatch))).toEqual({ short: request.short });
      const there = await until(
        () => link.list(5000),
        (js) => js.some((j) => j.short === request.short && j.alive),
      );
      expect(there.find((j) => j.short === request.short)).toMatchObject({
        name: 'over the link',
        alive: true,
        cwd: process.cwd(),
      });
      // Removing a running job is refused there, in that daemon's words.
      await expect(removeVia(ask, request.short, false)).rejects.toThrow(/^box: .*running/);
      expect(await stopVia(ask, request.short, 'stop')).toBe(true);
      await removeVia(ask, request.short, false);
      expect((await link.list(5000)).some((j) => j.short === request.short)).toBe(false);
    } finally {
      link.close();
    }
    const older = await open(hostile('names'));
    try {
      // A request the job service does not make is carried by no link.
      await expect(older.daemon({ op: 'list' }, 1000)).rejects.toThrow('list is not done on a remote host');
      await expect(older.daemon({ op: 'stop', short: '0a0b0c0d' }, 1000)).rejects.toThrow(
        "box's mado 0.1.0 takes no daemon requests: update MadoHub on box (see :help madohub-hosts)",
      );
      expect(older.down).toBeUndefined();
    } finally {
      older.close();
    }
  });

  it('a job started there gets what it names of this side’s environment, and nothing else', async () => {
    // The "remote" shell runs here: what its command gets here is the other side's own environment.
    const link = await Link.open('box', shellHost(), { env: { ...process.env, UNNAMED_HERE: 'x' }, connectMs: 5000 });
    try {
      let out = '';
      const code = await link.verb(['--bg', '--agent', 'looper', '-n', 'envtest', 'go'], {
        env: { NAMED_FOR_JOB: 'crossed', MADOHUB_JOBS_DIR: '/elsewhere' },
        onOut: (_fd, d) => (out += d),
      });
      expect(code).toBe(0);
      const short = shortOf(out);
      const jobs = await until(
        () => link.list(5000),
        (js) => js.some((j) => j.short === short && j.alive),
      );
      expect(jobs.find((j) => j.short === short)?.alive).toBe(true);
      const info = JSON.parse(readFileSync(path.join(remote.env.MADOHUB_JOBS_DIR!, short, 'host.json'), 'utf8')) as {
        ptyPid: number;
      };
      const env = readFileSync(`/proc/${info.ptyPid}/environ`, 'utf8').split('\0');
      expect(env).toContain('NAMED_FOR_JOB=crossed');
      // This side's own settings never cross, nor what the job did not name.
      expect(env).not.toContain('MADOHUB_JOBS_DIR=/elsewhere');
      expect(env.some((e) => e.startsWith('UNNAMED_HERE='))).toBe(false);
    } finally {
      link.close();
    }
  });

  it('passes over what a shell prints before the bridge’s hello', async () => {
    const link = await open(hostile('noise'));
    expect(link.down).toBeUndefined();
    link.close();
  });

  it('a verb whose end never comes (its exit on another channel, pings still answered) is given up at its deadline', async () => {
    const link = await open(hostile('wrong-channel'));
    try {
      const t0 = Date.now();
      const late = await failure(link.verb(['jobs'], { deadlineMs: 800, onOut: () => undefined }));
      expect([late.reason, late.message]).toEqual(['timeout', '`mado jobs` on box did not end in 0.8 s']);
      expect(Date.now() - t0).toBeLessThan(3000);
      // The link itself lives on.
      expect(link.down).toBeUndefined();
    } finally {
      link.close();
    }
  });

  it('is refused, with why, when the other side is no bridge, another version, silent, or not there', async () => {
    expect((await failure(open(hostile('garbage')))).message).toBe(
      "box printed 201 lines that are no bridge's hello (is `mado bridge` MadoHub's?)",
    );
    expect((await failure(open(hostile('huge')))).message).toBe('box printed a line of over 256 KiB before its hello');
    expect((await failure(open(hostile('newer')))).message).toBe(
      "box's mado 9.0.0 speaks protocol 3, this mado speaks 2: update MadoHub here (see :help madohub-hosts)",
    );
    expect((await failure(open(hostile('older')))).message).toBe(
      "box's mado 0.0.1 speaks protocol 1, this mado speaks 2: update MadoHub on box (see :help madohub-hosts)",
    );
    const t0 = Date.now();
    const silent = await failure(open(hostile('silent'), 1000));
    expect([silent.reason, silent.message]).toEqual(['timeout', 'box did not answer in 1 s']);
    expect(Date.now() - t0).toBeLessThan(1900);
    const refused = await failure(
      open({
        command: ['sh', '-c', 'echo "root@127.0.0.1: Permission denied (publickey)." >&2; exit 255'],
        mado: 'mado',
      }),
    );
    expect([refused.reason, refused.message]).toEqual([
      'unreachable',
      'the link to box ended with status 255: root@127.0.0.1: Permission denied (publickey).',
    ]);
    // Its last words come after its exit (a process of its own still writing them): they are waited for.
    const late = await failure(
      open({
        command: ['sh', '-c', '(sleep 0.1; echo "ssh: Could not resolve hostname box" >&2) & exit 255'],
        mado: 'mado',
      }),
    );
    expect(late.message).toBe('the link to box ended with status 255: ssh: Could not resolve hostname box');
    const noMado = await failure(open(shellHost({ mado: 'mado-not-installed' })));
    expect(noMado.reason).toBe('no-mado');
    expect(noMado.message).toMatch(
      /^box has no `mado-not-installed` to run: .*not found \(install MadoHub there, or set its "mado" in hosts.json: see :help madohub-hosts\)$/,
    );
    const noCommand = await failure(open({ command: ['/nonexistent/ssh'], mado: 'mado' }));
    expect(noCommand.message).toBe('cannot run /nonexistent/ssh for box: spawn /nonexistent/ssh ENOENT');
  });

  it('drops a link that says garbage, too much, or a list that is none, after its hello', async () => {
    for (const [mode, said] of [
      ['garbage-after', 'box: not a protocol message: "not json at all"'],
      ['bad-list', /^box: a job it listed is none: /],
    ] as const) {
      const link = await open(hostile(mode));
      const err = await failure(link.list(5000));
      expect(err.message).toMatch(said);
      expect(link.down?.message).toMatch(said);
    }
    // A followed list is read as it is shown: one that is none drops the link then.
    const watched = await open(hostile('bad-list'));
    let shown = 0;
    watched.watch(() => shown++);
    const refused = await new Promise<LinkError>((resolve) => watched.onDown(resolve));
    expect(refused.message).toMatch(/^box: a job it listed is none: /);
    const older = await open(hostile('old-list'));
    older.watch(() => shown++);
    expect((await new Promise<LinkError>((resolve) => older.onDown(resolve))).message).toBe(
      'box: box speaks protocol 1, this mado speaks protocol 2',
    );
    expect(shown).toBe(0);
    const link = await open(hostile('huge-after'));
    const down = await new Promise<LinkError>((resolve) => link.onDown(resolve));
    expect(down.message).toBe('box: a message is larger than 8192 KiB');
  });

  it('a host re-listing 2,000 jobs every 100 ms is shown at most one list in 500 ms, the newest', async () => {
    const link = await open(hostile('relists'));
    try {
      const shown: string[] = [];
      const watch = link.watch((jobs) => shown.push(`${jobs.length} ${jobs[0]?.detail ?? ''}`));
      await until(
        async () => shown.length,
        (n) => n >= 1,
      );
      const from = Date.now();
      const firstShown = shown.length;
      // Some 15 lists sent meanwhile (fewer when the machine is loaded): each shown would be 15.
      await until(
        async () => Date.now() - from,
        (ms) => ms >= 1500,
      );
      const elapsed = Date.now() - from;
      watch.close();
      expect(shown.length - firstShown).toBeLessThanOrEqual(Math.floor(elapsed / 500) + 1);
      expect(shown.at(-1)).toMatch(/^2000 list \d+$/);
      // Lists dropped unread: the newest shown is not the next one sent.
      const numbers = shown.map((s) => Number(s.split(' ').at(-1)));
      expect(numbers.at(-1)! - numbers[0]!).toBeGreaterThan(shown.length - 1);
      expect(link.down).toBeUndefined();
    } finally {
      link.close();
    }
  });

  it('a frozen link (its command stopped) is dropped within 2 s, and its channels told', async () => {
    const link = await open(shellHost());
    const listed = link.list(60000);
    await listed;
    process.kill(link.remotePid, 'SIGSTOP');
    const t0 = Date.now();
    const verb = link.verb(['agents'], { onOut: () => undefined });
    const err = await failure(verb);
    expect(Date.now() - t0).toBeLessThan(2800);
    expect(err.message).toBe('box said nothing for 2 s (a frozen link, or a network that drops packets)');
    expect(link.down?.reason).toBe('frozen');
  });

  it('mado host check returns once the report is in, though the host command left a process behind that holds its output', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'madohub-check-config-'));
    mkdirSync(path.join(config, 'madohub'));
    const cfg = shellHost();
    // The "ssh" leaves a sleeper behind with its output open, as a login script's agent may.
    const left = path.join(config, 'left.pid');
    const command = ['sh', '-c', `sleep 30 & echo $! > '${left}'; exec ${cfg.command.map((a) => `'${a}'`).join(' ')}`];
    writeFileSync(
      path.join(config, 'madohub', 'hosts.json'),
      JSON.stringify({ box: { command, mado: cfg.mado, connect_ms: 20000 } }),
    );
    const started = Date.now();
    const checked = await remote.mado(['host', 'check', 'box'], undefined, { XDG_CONFIG_HOME: config });
    const took = Date.now() - started;
    process.kill(Number(readFileSync(left, 'utf8').trim()), 'SIGKILL');
    expect(checked.stdout).toMatch(/\nbox is ready\n$/);
    expect(checked.code).toBe(0);
    // Within its bound (20 s), and well before the sleeper ends (30 s): not waiting on it at all.
    expect(took).toBeLessThan(15000);
  }, 40000);

  it('a hostile host’s names reach `mado agents --all` without their control characters', async () => {
    const local = await remote.mado(['agents', '--all'], undefined, {
      XDG_CONFIG_HOME: path.join(FIX, 'hosts-config'),
    });
    expect(local.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(local.stdout).toMatch(/^HOST +ID +STATUS/);
    expect(local.stdout).toMatch(/\nnames +0a0b0c0d +running .*\?\[2Jwipe\? .*\/srv\/\?\[31mred +\?\]0;owned\? detail/);
    expect(local.stdout).toMatch(/\nsilent +- +offline +silent did not answer in 2 s/);
    expect(local.code).toBe(0);
  });
});
