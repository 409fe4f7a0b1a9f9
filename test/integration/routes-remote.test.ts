// A route to a remote host's job, kept by this machine's daemon: a job here ends a turn and its
// answer goes through the link to a job there, with no Neovim open on either side; while the host is
// offline the turn's answer is kept, and delivered once when it is back.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridgesOf, FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { ROOT } from './neovim.js';
import { MIN_GAP_MS } from '../../src/routes/engine.js';

const replier = {
  replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' },
  asker: { command: ['node', path.join(FIX, 'bin/asker')], prompt: 'type' },
};
// A recording notify-send (test/fixtures/notify-bin): each run is a line of its log.
const NOTIFY_BIN = path.join(ROOT, 'test/fixtures/notify-bin');

describe('a route to a remote host’s job', () => {
  const remote = useJobsHarness(replier);
  const local = useJobsHarness(replier);

  it('is kept by the daemon here and delivers through the link, Neovim closed on both sides', async () => {
    const config = path.join(local.base, 'config');
    mkdirSync(path.join(config, 'madohub'), { recursive: true });
    // A host that can be taken down: while the flag file is there, its "ssh" is refused.
    const down = path.join(local.base, 'box-down');
    const env = ['MADOHUB_TEMPLATES', 'MADOHUB_JOBS_DIR', 'MADOHUB_RUNTIME_DIR']
      .map((k) => `${k}='${remote.env[k]}'`)
      .join(' ');
    const shell = [
      'sh',
      '-c',
      `if [ -e '${down}' ]; then echo 'ssh: connect to host box port 22: Connection refused' >&2; exit 255; fi; exec env ${env} sh`,
    ];
    writeFileSync(
      path.join(config, 'madohub', 'hosts.json'),
      JSON.stringify({ box: { command: shell, mado: `${process.execPath} ${path.join(ROOT, 'dist/mado.js')}` } }),
    );
    const notified = path.join(local.base, 'notify.jsonl');
    const here = (args: string[]) =>
      local.mado(args, undefined, {
        XDG_CONFIG_HOME: config,
        MADOHUB_FIXTURE_WORK_MS: '300',
        MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_WORK_MS',
        PATH: `${NOTIFY_BIN}:${process.env.PATH ?? ''}`,
        MADOHUB_FAKE_NOTIFY_LOG: notified,
      });
    const reviewer = shortOf((await remote.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    const writer = shortOf((await here(['--bg', '--agent', 'replier', '-n', 'writer'])).stdout);
    await until(local.jobs, (j) => j[0]?.tempo === 'idle');
    // A remote host's job is named HOST:NAME; as a source it is refused.
    const added = await here(['route', 'add', 'writer', 'box:reviewer']);
    expect(added.stdout).toMatch(new RegExp(`^route [0-9a-f]+ {2}job:${writer} → box:reviewer `));
    expect((await here(['route', 'add', 'box:reviewer', 'writer'])).stderr).toMatch(
      /a remote host's job is no source of a route here/,
    );
    expect((await here(['route', 'ls', '--json'])).stdout).toContain(`"target":"job:box:${reviewer}"`);
    // The writer works a turn; its answer reaches the reviewer there.
    expect((await here(['send', 'writer', 'work'])).code).toBe(0);
    const logs = await until(
      () => remote.mado(['logs', reviewer]).then((r) => r.stdout),
      (t) => t.includes('[mado route writer → box:reviewer'),
      20000,
    );
    expect(logs).toContain('[mado route writer → box:reviewer');
    expect(logs).toContain('Turn 1 is done.');

    // The host goes down; the writer's next turn is kept, said in the daemon's log, and delivered
    // once (that turn's answer) when the host is back.
    const daemonLog = (): Promise<string> =>
      Promise.resolve(readFileSync(path.join(local.base, 'run', 'daemon.log'), 'utf8'));
    // A route fires at most every 2 s (MIN_GAP_MS): the next turn ends after that, from the first firing.
    const firedAt = Date.parse(/^(\S+) route \w+: job:\w+ → job:box:/m.exec(await daemonLog())![1]!);
    await until(
      async () => Date.now(),
      (t) => t > firedAt + MIN_GAP_MS + 100,
      MIN_GAP_MS + 500,
    );
    writeFileSync(down, '');
    for (const pid of bridgesOf(remote.env.MADOHUB_JOBS_DIR!)) process.kill(pid, 'SIGKILL');
    await until(
      async () => bridgesOf(remote.env.MADOHUB_JOBS_DIR!),
      (b) => b.length === 0,
    );
    expect((await here(['send', 'writer', 'work'])).code).toBe(0);
    expect(
      await until(daemonLog, (t) => /box:reviewer\): .*Connection refused; kept, sent once it is back/.test(t), 20000),
    ).toMatch(/kept, sent once it is back/);
    expect(await remote.mado(['logs', reviewer]).then((r) => r.stdout)).not.toContain('Turn 2 is done.');
    rmSync(down);
    const after = await until(
      () => remote.mado(['logs', reviewer]).then((r) => r.stdout),
      (t) => t.includes('Turn 2 is done.'),
      20000,
    );
    expect(after.split('Turn 2 is done.')).toHaveLength(2);
    expect(await daemonLog()).toMatch(/delivered to box:reviewer, back online/);
    // The writer's file counts its two turns (a reader that missed a Working still sees each end).
    expect((await local.jobs()).find((j) => j.short === writer)?.turnsEnded).toBe(2);

    // With no Neovim, a job there that starts waiting is told by this machine's daemon, through its
    // link to the host (up for the route), with the way to reach it.
    const asks = shortOf((await remote.mado(['--bg', '--agent', 'asker', '-n', 'asks far'])).stdout);
    const told = await until(
      async () => (existsSync(notified) ? readFileSync(notified, 'utf8') : ''),
      (t) => t.includes('asks far'),
      15000,
    );
    const run = told
      .split('\n')
      .filter((l) => l.includes('asks far'))
      .map((l) => JSON.parse(l) as { argv: string[] });
    expect(run).toHaveLength(1);
    const argv = run[0]!.argv;
    expect(argv[argv.indexOf('--') + 1]).toBe('asks far: Claude Code Waiting');
    expect(argv[argv.indexOf('--') + 2]).toBe(`Do you want to proceed? — rm -rf build\nmado --host box attach ${asks}`);
  }, 90000);
});
