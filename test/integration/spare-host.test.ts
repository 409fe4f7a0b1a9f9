// The daemon's spare host (issue 31): a dispatch hands it its job; the job runs with the environment
// and in the folder a fresh host gives it, nothing of another job's; a spare that died unseen leaves
// the job to a fresh host; the spare leaves with the daemon, whatever the way.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shortOf, useJobsHarness } from './jobs-harness.js';
import { elapse, until, untilValue, waitFor } from '../helpers/wait.js';
import { LASTING_NODE_FLAGS } from '../../src/jobs/env.js';

/** The agent: writes where it runs and its environment to $SPARE_T_OUT, named by $SPARE_T_MARK, then waits. */
const h = useJobsHarness({
  envy: {
    command: [
      'sh',
      '-c',
      'pwd > "$SPARE_T_OUT/$SPARE_T_MARK.cwd"; env | LC_ALL=C sort > "$SPARE_T_OUT/$SPARE_T_MARK.tmp"; mv "$SPARE_T_OUT/$SPARE_T_MARK.tmp" "$SPARE_T_OUT/$SPARE_T_MARK.env"; exec sleep 600',
    ],
    prompt: 'arg',
  },
  // Its agent ends at once: its host with it.
  quick: { command: ['true'], prompt: 'arg' },
});

/** The pids of the processes whose command line holds `text` (none: []). */
function pids(text: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', text], { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number): boolean => {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const environ = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').sort();

describe('the spare host', () => {
  const spares = (): number[] => pids(`__spare ${path.join(h.base, 'jobs')} `).filter(alive);
  const hostOf = (short: string): number =>
    (JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'host.json'), 'utf8')) as { pid: number }).pid;

  it('runs a job with the environment and folder a fresh host gives it, nothing of the job before; a dead spare leaves the job to a fresh host', async () => {
    const out = path.join(h.base, 'out');
    const [first, second] = [path.join(h.base, 'w1'), path.join(h.base, 'w2')];
    for (const d of [out, first, second]) mkdirSync(d);
    const env = { MADOHUB_JOB_ENV: 'SPARE_T_*', SPARE_T_OUT: out };
    const dispatch = async (mark: string, cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<string> => {
      const r = await h.mado(
        ['--bg', '--agent', 'envy', 'go'],
        undefined,
        { ...env, SPARE_T_MARK: mark, ...extra },
        cwd,
      );
      expect(r.stderr).toBe('');
      await waitFor(() => existsSync(path.join(out, `${mark}.env`)), 10000, `job ${mark}'s environment`);
      return shortOf(r.stdout);
    };
    // The daemon starts a spare as it starts: the first job is handed it, the second the next one.
    const a = await dispatch('a', first, { SPARE_T_ONLY_A: 'the first job only' });
    await waitFor(async () => spares().length === 1, 10000, 'a spare waiting');
    const b = await dispatch('b', second);
    // With the waiting spare killed, the next job's host is started afresh.
    await waitFor(async () => spares().length === 1, 10000, 'the next spare waiting');
    const [spare] = spares();
    process.kill(spare!, 'SIGKILL');
    const c = await dispatch('c', second);
    expect(alive(spare!)).toBe(false);

    const lines = (mark: string): string[] =>
      readFileSync(path.join(out, `${mark}.env`), 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('SPARE_T_MARK='));
    // The agent: the same environment, from a spare as from a fresh host; the first job's own name in it alone.
    expect(lines('a')).toContain('SPARE_T_ONLY_A=the first job only');
    expect(lines('b').filter((l) => l.startsWith('SPARE_T_ONLY_A'))).toEqual([]);
    expect(lines('b')).toEqual(lines('c'));
    expect(readFileSync(path.join(out, 'a.cwd'), 'utf8').trim()).toBe(first);
    expect(readFileSync(path.join(out, 'b.cwd'), 'utf8').trim()).toBe(second);
    expect(readFileSync(path.join(out, 'c.cwd'), 'utf8').trim()).toBe(second);
    // The hosts: the same environment and folder, and each named by its job (what `ps` shows).
    expect(environ(hostOf(b))).toEqual(environ(hostOf(c)));
    expect(readlinkSync(`/proc/${hostOf(b)}/cwd`)).toBe(second);
    expect(readlinkSync(`/proc/${hostOf(c)}/cwd`)).toBe(second);
    for (const short of [a, b, c])
      expect(pids(`__host ${path.join(h.base, 'jobs')} ${short}`)).toContain(hostOf(short));
  });

  it('leaves with the daemon: killed, or gone idle', async () => {
    const r = await h.mado(['--bg', '--agent', 'looper', 'go']);
    const short = shortOf(r.stdout);
    await waitFor(async () => spares().length === 1, 10000, 'a spare waiting');
    h.killDaemon();
    await waitFor(async () => spares().length === 0, 10000, 'the spare gone with its daemon');
    // The job's host does not depend on the daemon.
    expect(alive(hostOf(short))).toBe(true);
    // A daemon started again has its spare; with no job left it goes idle, and its spare with it.
    expect((await h.mado(['kill', short])).code).toBe(0);
    await waitFor(async () => spares().length === 1, 10000, "the new daemon's spare");
    expect(await until(async () => spares().length === 0, 15000)).toBe(true);
    expect(existsSync(path.join(h.base, 'run', 'daemon.sock'))).toBe(false);
  });
});

describe('the daemon', () => {
  it('stays while quick jobs come one after another, none alive when it looks (and its spare with it)', async () => {
    // Past the daemon's idle time (3 s), a job every 400 ms whose agent ends at once.
    for (let i = 0; i < 12; i++) {
      expect((await h.mado(['--bg', '--agent', 'quick', 'go'])).code).toBe(0);
      await elapse(400);
    }
    const log = readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8');
    expect(log.match(/listening on/g)).toHaveLength(1);
    expect(log).not.toMatch(/idle: exiting/);
  });

  it('the daemon and the hosts run with a young generation of 1 MiB, V8 sized for memory, one malloc arena and their collection at rest (their memory stays flat: bench (v), (w))', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'looper', 'go'])).stdout);
    const log = readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8');
    const daemon = Number([...log.matchAll(/listening on .* pid (\d+)\)/g)].pop()?.[1]);
    // A host is a spare handed its job (its title then names the job: its command line is gone).
    const [spare] = await untilValue(
      async () => pids(`__spare ${path.join(h.base, 'jobs')} `).filter(alive),
      (p) => p.length > 0,
      10000,
    );
    for (const pid of [daemon, spare!]) {
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual(
        expect.arrayContaining([...LASTING_NODE_FLAGS]),
      );
      expect(environ(pid)).toContain('MALLOC_ARENA_MAX=1');
    }
    expect((await h.mado(['kill', short])).code).toBe(0);
  });
});
