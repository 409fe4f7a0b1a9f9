// Background jobs under hostile input and injected faults: secrets, planted sockets, hostile ids and
// names, killed and stopped processes, FIFOs, huge files and messages, slow clients, held locks.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_MODULES } from '../../src/agents/index.js';
import { request } from '../../src/jobs/protocol/client.js';
import { MAX_PENDING_BYTES } from '../../src/jobs/protocol/serve.js';
import { processStamp } from '../../src/proc/stamp.js';
import { blankJob, createJob } from '../../src/jobs/store.js';
import { FIX, killDaemonOf, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { ROOT } from './neovim.js';
import { contextSwitches } from '../helpers/proc.js';
import { elapse, holds } from '../helpers/wait.js';

/** A job file of a job whose agent runs, as the daemon writes it; its folder. */
function createJobFile(jobs: string, short: string): string {
  createJob(jobs, {
    ...blankJob(short),
    sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a13',
    status: 'running',
    tempo: 'active',
  });
  return path.join(jobs, short, 'job.json');
}

const pidFile = (base: string): string => path.join(base, 'stubborn.pids');
const h = useJobsHarness({
  stubborn: { command: ['node', path.join(FIX, 'bin/stubborn'), '/dev/null'], prompt: 'type' },
  spew: { command: ['node', path.join(FIX, 'bin/spew')], prompt: 'type' },
  // 3 MB of output at once, then quiet.
  burst: {
    command: ['node', '-e', "process.stdout.write('x'.repeat(3 * 1024 * 1024)); setInterval(() => {}, 1000)"],
    prompt: 'type',
  },
  // Exits at once, and well.
  quick: { command: ['true'], prompt: 'type' },
  // Draws its prompt, then waits for input and prints nothing more.
  quiet: { command: ['node', '-e', "process.stdout.write('ready> '); process.stdin.resume()"], prompt: 'type' },
  missing: { command: ['no-such-agent-program'], prompt: 'type' },
});

/** True while `pid` runs (a zombie left unreaped by this sandbox's init counts as gone). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const hostInfo = (short: string): { pid: number; ptyPid: number; socket: string } =>
  JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'host.json'), 'utf8')) as {
    pid: number;
    ptyPid: number;
    socket: string;
  };
const sock = (): string => path.join(h.base, 'run', 'daemon.sock');
/** A job of `agent`, up and listed alive. */
async function started(agent: string, prompt = 'x'): Promise<string> {
  const r = await h.mado(['--bg', '--agent', agent, prompt]);
  expect(r.code, r.stderr).toBe(0);
  const short = shortOf(r.stdout);
  await until(h.jobs, (j) => j.some((x) => x.short === short && x.alive === true));
  return short;
}
/** Removes job `short`'s folder (its host may be writing in it); whether its host and agent then end within 5 s. */
async function removedEnds(short: string, info: { pid: number; ptyPid: number }): Promise<boolean> {
  rmSync(path.join(h.base, 'jobs', short), { recursive: true, maxRetries: 20, retryDelay: 20 });
  return !(await until(
    async () => alive(info.pid) || alive(info.ptyPid),
    (a) => !a,
    // The daemon reads the folder once its changes are 100 ms quiet, and a host nobody watches looks
    // every second: on a loaded machine (two test files and a 50-job soak beside them) that took over
    // 5 s once; a host that stays for good still fails.
    15000,
  ));
}
const rssMiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

describe('secrets and access', () => {
  it('no key or token is listed or stored; the agent has them; the daemon does not; every file of a job is 0600', async () => {
    const secrets = {
      ANTHROPIC_API_KEY: 'sk-ant-secret-1',
      OPENAI_API_KEY: 'sk-openai-secret-2',
      CLAUDE_CODE_OAUTH_TOKEN: 'oauth-secret-3',
    };
    const r = await h.mado(['--bg', '--agent', 'looper', 'x'], undefined, secrets);
    expect(r.code, r.stderr).toBe(0);
    const short = shortOf(r.stdout);
    await until(h.jobs, (j) => j[0]?.alive === true);
    const listed = await h.mado(['agents', '--json']);
    const table = await h.mado(['agents']);
    const dir = path.join(h.base, 'jobs', short);
    const files = readdirSync(dir);
    const readOrNone = (f: string): string => {
      try {
        return readFileSync(path.join(dir, f), 'utf8');
      } catch {
        return ''; // A lock that went meanwhile.
      }
    };
    const stored = files.map(readOrNone).join('\n');
    for (const value of Object.values(secrets)) {
      expect(listed.stdout).not.toContain(value);
      expect(table.stdout).not.toContain(value);
      expect(stored).not.toContain(value);
    }
    const environ = (pid: number): string => readFileSync(`/proc/${pid}/environ`, 'utf8');
    const info = hostInfo(short);
    expect(environ(info.ptyPid)).toContain('ANTHROPIC_API_KEY=sk-ant-secret-1');
    expect(environ(info.pid)).not.toContain('sk-ant-secret-1');
    const daemonPid = Number(/pid (\d+)\)/.exec(readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8'))![1]);
    expect(environ(daemonPid)).not.toContain('secret');
    // The job's files (a lock or a temporary file of a write under way may stand beside them: 0600 too).
    expect(files.filter((f) => f !== 'job.lock' && !f.endsWith('.tmp')).sort()).toEqual([
      'host.json',
      'host.log',
      'job.json',
      'launch.json',
      'output.log',
    ]);
    for (const f of files) {
      const mode = statSync(path.join(dir, f), { throwIfNoEntry: false })?.mode;
      if (mode !== undefined) expect([f, mode & 0o777]).toEqual([f, 0o600]);
    }
  });

  it('refuses a runtime folder open to others, and a socket of another user; nothing is sent to them', async () => {
    const run = path.join(h.base, 'run');
    mkdirSync(run, { recursive: true, mode: 0o700 });
    const heard: string[] = [];
    const planted = createServer((s) => s.on('data', (d) => heard.push(String(d))));
    await new Promise<void>((r) => planted.listen(sock(), r));
    try {
      chmodSync(run, 0o777);
      const open = await h.mado(['--bg', '--agent', 'looper', 'x'], undefined, { ANTHROPIC_API_KEY: 'k-1' });
      expect(open.code).toBe(1);
      expect(open.stderr).toBe(
        `mado --bg: cannot reach the mado daemon: refusing the runtime folder: ${run} is open to others (mode 777); it must be 0700 (chmod 700 ${run})\n`,
      );
      chmodSync(run, 0o700);
      chownSync(sock(), 65534, 65534);
      const theirs = await h.mado(['--bg', '--agent', 'looper', 'x'], undefined, { ANTHROPIC_API_KEY: 'k-1' });
      expect(theirs.code).toBe(1);
      expect(theirs.stderr).toContain(
        `refusing to connect to ${sock()}: ${sock()} belongs to uid 65534, not to this user`,
      );
      expect(heard).toEqual([]);
    } finally {
      planted.close();
    }
  });

  it('every op checks its id: a path in place of one removes nothing', async () => {
    await started('looper');
    const victim = path.join(h.base, 'victim');
    mkdirSync(victim);
    for (const op of ['remove', 'stop', 'kill', 'respawn']) {
      const reply = await request(sock(), { op, short: '../../victim', force: true, env: {} });
      expect(reply).toEqual({
        proto: 2,
        type: 'error',
        error: `${op}: field 'short' must be a job id (8 lowercase hex digits)`,
      });
    }
    expect(existsSync(victim)).toBe(true);
  });

  it('a branch or a session id that reads as an option is refused; the repository is untouched', async () => {
    const { repo, git } = h.gitRepo();
    const before = git('config', '--list', '--local');
    const r = await h.mado(
      ['--bg', '--worktree=--set-upstream-to=main', '--agent', 'looper', 'x'],
      undefined,
      {},
      repo,
    );
    expect(r).toMatchObject({
      code: 2,
      stderr: "mado --bg: --worktree=BRANCH needs a branch name, not '--set-upstream-to=main'\n",
    });
    expect((await h.mado(['--bg', '--resume=--some-flag'])).stderr).toBe(
      "mado --bg: --resume needs a session id, not '--some-flag'\n",
    );
    await started('looper');
    // Straight to the daemon: git's own rule, and the session id to resume.
    const dispatch = (extra: object): Promise<unknown> =>
      request(sock(), {
        op: 'dispatch',
        short: 'abcdef01',
        sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a11',
        createdAt: 1,
        origin: 'shell',
        cwd: repo,
        launch: { mode: 'prompt', args: ['x'] },
        respawnFlags: [],
        env: { PATH: process.env.PATH! },
        agent: 'looper',
        seed: { intent: 'x' },
        ...extra,
      });
    expect(await dispatch({ worktree: { branch: '-x' } })).toMatchObject({ error: "'-x' is not a valid branch name" });
    expect(await dispatch({ worktree: { branch: 'a..b' } })).toMatchObject({
      error: "'a..b' is not a valid branch name",
    });
    expect(await dispatch({ launch: { mode: 'resume', sessionId: '--x', fork: false, flagArgs: [] } })).toMatchObject({
      error: 'the session id to resume is not one',
    });
    expect(git('config', '--list', '--local')).toBe(before);
    expect(existsSync(path.join(h.base, 'jobs', 'abcdef01'))).toBe(false);
  });

  it('control characters in names and details are printed as ?', async () => {
    const r = await h.mado(['--bg', '-n', 'evil\x1b]0;pwned\x07\x1b[31mred', '--agent', 'looper', 'x']);
    expect(r.code, r.stderr).toBe(0);
    await until(h.jobs, (j) => j.length === 1);
    const table = await h.mado(['agents']);
    expect(table.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(table.stdout).toContain('evil?]0;pwned??[31mred');
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+STATE\s+AGENT\s+AGE\s+NAME\s+FOLDER\s+USAGE\s+DETAIL$/);
  });
});

describe('nothing lost', () => {
  it('rm keeps a worktree with uncommitted changes or commits on no other branch unless --force', async () => {
    const { repo, git } = h.gitRepo();
    const r = await h.mado(['--bg', '--worktree', '--agent', 'looper', 'x'], undefined, {}, repo);
    const short = shortOf(r.stdout);
    await until(h.jobs, (j) => j[0]?.alive === true);
    expect((await h.mado(['kill', short])).code).toBe(0);
    const wt = path.join(h.base, 'jobs', short, 'worktree');
    writeFileSync(path.join(wt, 'notes.txt'), 'a day of work');
    const dirty = await h.mado(['rm', short]);
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toBe(
      `mado rm: job ${short}'s worktree ${wt} has 1 uncommitted change (notes.txt); commit or push them, or use --force\n`,
    );
    execFileSync('git', ['-C', wt, 'add', '.']);
    execFileSync('git', ['-C', wt, '-c', 'user.email=t@e.invalid', '-c', 'user.name=t', 'commit', '-qm', 'the work']);
    const unmerged = await h.mado(['rm', short]);
    expect(unmerged.stderr).toMatch(
      /has commit on no other branch: [0-9a-f]+ the work; commit or push them, or use --force\n$/,
    );
    expect(existsSync(path.join(wt, 'notes.txt'))).toBe(true);
    // Merged elsewhere, nothing is lost: it goes.
    git('branch', 'keep', `mado/${short}`);
    expect((await h.mado(['rm', short])).code).toBe(0);
    expect(existsSync(wt)).toBe(false);
    // --force removes work all the same.
    const r2 = await h.mado(['--bg', '--worktree', '--agent', 'looper', 'y'], undefined, {}, repo);
    const s2 = shortOf(r2.stdout);
    await until(h.jobs, (j) => j.some((x) => x.short === s2 && x.alive === true));
    writeFileSync(path.join(h.base, 'jobs', s2, 'worktree', 'scratch.txt'), 'x');
    expect((await h.mado(['rm', s2])).stderr).toMatch(/is running; stop it first or use --force/);
    const forced = await h.mado(['rm', '--force', s2]);
    // Failed: what it said (one CI run under load saw exit 1 here, not reproduced).
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(path.join(h.base, 'jobs', s2))).toBe(false);
  });

  it('a host killed with -9: listed errored, its files cleaned, its stubborn agent and child ended; a reused pid is not taken for it', async () => {
    const pids = pidFile(h.base);
    const templates = JSON.parse(readFileSync(h.env.MADOHUB_TEMPLATES!, 'utf8')) as Record<string, object>;
    templates.stubborn = { command: ['node', path.join(FIX, 'bin/stubborn'), pids], prompt: 'type' };
    writeFileSync(h.env.MADOHUB_TEMPLATES!, JSON.stringify(templates));
    const short = await started('stubborn');
    const info = hostInfo(short);
    // The agent writes its pids once Node has started it (after its host is up).
    await until(
      async () => existsSync(pids) && readFileSync(pids, 'utf8').endsWith('\n'),
      (ok) => ok,
      5000,
    );
    const [agent, child] = readFileSync(pids, 'utf8').trim().split(' ').map(Number);
    process.kill(info.pid, 'SIGKILL');
    const [job] = await until(h.jobs, (j) => j[0]?.status === 'errored');
    expect(job).toMatchObject({ status: 'errored', detail: 'its host died', alive: false });
    expect(
      await until(
        async () => alive(agent!) || alive(child!),
        (a) => !a,
        5000,
      ),
    ).toBe(false);
    expect(existsSync(path.join(h.base, 'jobs', short, 'host.json'))).toBe(false);
    expect(existsSync(info.socket)).toBe(false);
    // The job can be respawned and removed.
    expect((await h.mado(['respawn', short])).code).toBe(0);
    expect((await h.mado(['rm', '--force', short])).code).toBe(0);
    // A host.json whose pid now belongs to another process (a reboot, a wrapped pid) is a dead host's.
    const s2 = await started('looper');
    const file = path.join(h.base, 'jobs', s2, 'host.json');
    const real = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    process.kill(real.pid as number, 'SIGKILL');
    writeFileSync(file, JSON.stringify({ ...real, pid: process.pid, pidStart: '1' }));
    expect((await until(h.jobs, (j) => j[0]?.status === 'errored'))[0]).toMatchObject({
      detail: 'its host died',
      alive: false,
    });
    expect(alive(process.pid)).toBe(true);
  });

  it('a host whose folder is removed ends its agent and leaves; rm racing respawn leaves no host behind', async () => {
    const short = await started('looper');
    const info = hostInfo(short);
    // Removed by hand while its host writes in it (a file may come between the listing and the rmdir).
    expect(await removedEnds(short, info)).toBe(true);
    const s2 = await started('looper');
    expect((await h.mado(['kill', s2])).code).toBe(0);
    const [respawned, removed] = await Promise.all([h.mado(['respawn', s2]), h.mado(['rm', '--force', s2])]);
    expect([respawned.code, removed.code]).toContain(0);
    // Whatever order they ran in, no host runs without its folder (once the loser has seen it lost).
    const hostsOf = (): string => {
      try {
        return execFileSync('pgrep', ['-f', `__host ${path.join(h.base, 'jobs')} ${s2}`], { encoding: 'utf8' }).trim();
      } catch {
        return ''; // pgrep found none.
      }
    };
    const settled = (): boolean => existsSync(path.join(h.base, 'jobs', s2)) === (hostsOf() !== '');
    expect(
      await until(
        async () => settled(),
        (ok) => ok,
        10000,
      ),
    ).toBe(true);
  });

  it("a quiet job's host wakes for nothing while it is watched; once nobody watches, it looks for its folder itself", async () => {
    const short = await started('quiet');
    const info = hostInfo(short);
    const switches = (): number => contextSwitches(info.pid);
    // Watched by the daemon, its start done: two seconds without a wakeup (a host that looked for its
    // folder every second woke twice or more in each).
    const quietFor = async (): Promise<number> => {
      const before = switches();
      await elapse(2000);
      return switches() - before;
    };
    expect(await until(quietFor, (n) => n === 0, 20000)).toBe(0);
    // Nobody watches it now (the daemon killed): its folder removed, it ends its agent and leaves.
    killDaemonOf(h.base);
    expect(await removedEnds(short, info)).toBe(true);
  }, 90000);

  it('a full or read-only disk does not kill a job, and a dispatch that fails leaves nothing', async () => {
    const jobsDir = path.join(h.base, 'small');
    mkdirSync(jobsDir);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', jobsDir], { stdio: 'ignore' });
    } catch {
      console.warn('cannot mount a tmpfs here (not root?): the full-disk test is skipped');
      return;
    }
    try {
      const small = { MADOHUB_JOBS_DIR: jobsDir };
      const r = await h.mado(['--bg', '--agent', 'burst'], undefined, small);
      expect(r.code, r.stderr).toBe(0);
      const short = shortOf(r.stdout);
      const dir = path.join(jobsDir, short);
      // Its output fills the disk at once: the host and its agent live on.
      await until(
        async () => existsSync(path.join(dir, 'host.json')),
        (there) => there,
        5000,
      );
      const info = JSON.parse(readFileSync(path.join(dir, 'host.json'), 'utf8')) as { pid: number; ptyPid: number };
      expect(await holds(() => alive(info.pid) && alive(info.ptyPid), 1500)).toBe(true);
      // Once the disk has room again, the job file tells what happened, once.
      execFileSync('mount', ['-o', 'remount,size=16m', jobsDir]);
      const jobFile = async (): Promise<{ problem: string | null }> =>
        JSON.parse(readFileSync(path.join(dir, 'job.json'), 'utf8')) as { problem: string | null };
      expect((await until(jobFile, (j) => j.problem !== null, 5000)).problem).toBe('cannot write output.log: ENOSPC');
      expect((await h.mado(['agents'], undefined, small)).stdout).toContain('(! cannot write output.log: ENOSPC)');
      // Full again, to the last byte.
      execFileSync('sh', ['-c', `dd if=/dev/zero of=${path.join(jobsDir, 'filler')} bs=64k 2>/dev/null; true`]);
      // A remount fails while a file is open for writing (the host appends its output): try again.
      await until(
        async () => {
          try {
            execFileSync('mount', ['-o', 'remount,ro', jobsDir], { stdio: 'ignore' });
            return true;
          } catch {
            return false;
          }
        },
        (done) => done,
        5000,
      );
      expect(readFileSync('/proc/mounts', 'utf8')).toMatch(new RegExp(`${jobsDir} tmpfs ro[,\\s]`));
      expect(await holds(() => alive(info.pid) && alive(info.ptyPid), 500)).toBe(true);
      const listed = await h.mado(['agents', '--json'], undefined, small);
      expect(JSON.parse(listed.stdout)[0]).toMatchObject({ short, alive: true });
      // Its agent ends while nothing can be written: the host leaves all the same.
      process.kill(info.ptyPid, 'SIGKILL');
      expect(
        await until(
          async () => alive(info.pid),
          (a) => !a,
          6000,
        ),
      ).toBe(false);
      execFileSync('mount', ['-o', 'remount,rw', jobsDir]);
      // The disk still full: a new dispatch fails with the reason, and leaves no folder or temp file.
      const before = readdirSync(jobsDir).sort();
      const full = await h.mado(['--bg', '--agent', 'looper', 'y'], undefined, small);
      expect(full.code).toBe(1);
      expect(full.stderr).toMatch(/^mado --bg: cannot (create the job's folder|start the job): ENOSPC\n$/);
      expect(readdirSync(jobsDir).sort()).toEqual(before);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      execFileSync('umount', ['-l', jobsDir]);
    }
  });
});

describe('no hang, bounded memory', () => {
  it('a daemon that hangs up mid-dispatch or is stopped is told at once; no stack trace; no job appears later', async () => {
    const run = path.join(h.base, 'run');
    mkdirSync(run, { recursive: true, mode: 0o700 });
    const rude = createServer((s) => {
      s.on('error', () => s.destroy());
      s.write(`${JSON.stringify({ proto: 2, type: 'hello', role: 'daemon', pid: 1 })}\n`);
      s.on('data', () => s.destroy());
    });
    await new Promise<void>((r) => rude.listen(sock(), r));
    let t = Date.now();
    const hung = await h.mado(['--bg', '--agent', 'looper', 'x']);
    rude.close();
    expect(Date.now() - t).toBeLessThan(15000);
    expect(hung.code).toBe(1);
    expect(hung.stderr).toMatch(
      /^mado --bg: the mado daemon ended before it answered: .* closed the connection before it answered\n$/,
    );

    await started('looper');
    const daemonPid = Number(
      [...readFileSync(path.join(run, 'daemon.log'), 'utf8').matchAll(/pid (\d+)\)/g)].pop()![1],
    );
    process.kill(daemonPid, 'SIGSTOP');
    try {
      t = Date.now();
      const stopped = await h.mado(['--bg', '--agent', 'looper', 'y']);
      expect(Date.now() - t).toBeLessThan(15000);
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toMatch(
        /^mado --bg: the mado daemon does not answer \(its process may be stopped, .*\): .* said nothing in 3 s\n$/,
      );
      expect(stopped.stderr).not.toMatch(/\n\s+at /);
    } finally {
      process.kill(daemonPid, 'SIGCONT');
    }
    // Its request, held while it was stopped, is not carried out a second time once it goes on.
    expect(await holds(async () => (await h.jobs()).length <= 1, 1000, 100)).toBe(true);
    expect((await h.jobs()).map((j) => j.intent)).toEqual(['x']);
  });

  it('a daemon that leaves (idle) as a request comes, before its hello, is asked again: a new one takes the job', async () => {
    const run = path.join(h.base, 'run');
    mkdirSync(run, { recursive: true, mode: 0o700 });
    // Takes the client's check that it listens, then, as a daemon leaving idle does, hangs up on the
    // request's connection before its hello and goes (socket removed).
    let connections = 0;
    const leaving = createServer((s) => {
      s.on('error', () => s.destroy());
      if (++connections < 2) return;
      s.destroy();
      leaving.close();
      rmSync(sock(), { force: true });
    });
    await new Promise<void>((r) => leaving.listen(sock(), r));
    const t = Date.now();
    const run1 = await h.mado(['--bg', '--agent', 'looper', 'after the idle one']);
    expect(Date.now() - t).toBeLessThan(15000);
    expect(run1.stderr).toBe('');
    expect(run1.code).toBe(0);
    expect(connections).toBe(2);
    expect((await h.jobs()).map((j) => j.intent)).toEqual(['after the idle one']);
  });

  it('a stopped host: logs fall back to its output log, stop and kill to signals, attach says it cannot reach it', async () => {
    const short = await started('looper');
    // Its agent has drawn (and the host has logged it) before the host stops.
    await until(
      async () => (await h.mado(['logs', short])).stdout,
      (t) => t.includes('Claude Code'),
    );
    const info = hostInfo(short);
    process.kill(info.pid, 'SIGSTOP');
    try {
      // Within a second (the host's greeting and answer are bounded; its log answers then), 5 times.
      for (let i = 0; i < 5; i++) {
        const at = Date.now();
        const logs = await h.mado(['logs', short]);
        const took = Date.now() - at;
        expect(logs.code).toBe(0);
        expect(logs.stdout).toContain('Claude Code');
        // What the host may take is bounded at 0.9 s (it took 3.1 s); `mado` itself takes ~0.1 s to start.
        expect(took).toBeLessThan(2500);
      }
      const attach = await h.mado(['attach', short]);
      expect(attach).toMatchObject({ code: 1 });
      expect(attach.stderr).toMatch(
        new RegExp(
          `^mado attach: cannot reach the host of job ${short}: .*said nothing in 3 s \\(mado stop ${short} ends it\\)\\n$`,
        ),
      );
      const stop = await h.mado(['stop', short]);
      expect(stop).toMatchObject({ code: 0, stdout: `stopped ${short}\n` });
      expect([alive(info.pid), alive(info.ptyPid)]).toEqual([false, false]);
      expect((await h.jobs())[0]).toMatchObject({ status: 'stopped', alive: false });
    } finally {
      try {
        process.kill(info.pid, 'SIGCONT');
      } catch {
        // Killed.
      }
    }
  });

  it('a FIFO, a huge file, or a folder in place of state.json lists as errored, and the daemon keeps working', async () => {
    const jobs = path.join(h.base, 'jobs');
    for (const s of ['aaaaaaa1', 'aaaaaaa2', 'aaaaaaa3']) mkdirSync(path.join(jobs, s), { recursive: true });
    execFileSync('mkfifo', [path.join(jobs, 'aaaaaaa1', 'job.json')]);
    writeFileSync(path.join(jobs, 'aaaaaaa2', 'job.json'), '');
    truncateSync(path.join(jobs, 'aaaaaaa2', 'job.json'), 200 * 1024 * 1024);
    mkdirSync(path.join(jobs, 'aaaaaaa3', 'job.json'));
    const listed = await h.mado(['agents', '--json']);
    expect(listed.code).toBe(0);
    const byShort = new Map(
      (JSON.parse(listed.stdout) as { short: string; status: string; detail: string }[]).map((j) => [j.short, j]),
    );
    expect(byShort.get('aaaaaaa1')).toMatchObject({
      status: 'errored',
      detail: 'cannot read job.json: not a regular file',
    });
    expect(byShort.get('aaaaaaa2')).toMatchObject({
      status: 'errored',
      detail: 'cannot read job.json: larger than 256 KiB (204800 KiB)',
    });
    expect(byShort.get('aaaaaaa3')).toMatchObject({
      status: 'errored',
      detail: 'cannot read job.json: not a regular file',
    });
    // The daemon starts, lists and dispatches beside them.
    await started('looper');
    const reply = await request(sock(), { op: 'list' });
    expect(reply.type === 'jobs' && reply.jobs.length).toBe(4);
  });

  it("a job folder this user cannot read (another user's, left by sudo) lists as errored with the reason; the rest lists", async () => {
    // Run as user nobody: the folders are root's, as a sudo would leave them, but for one job.
    const jobs = path.join(h.base, 'jobs');
    const mine = createJobFile(jobs, 'bbbbbbb1');
    createJobFile(jobs, 'bbbbbbb2');
    chmodSync(h.base, 0o755);
    chmodSync(jobs, 0o755);
    execFileSync('chown', ['-R', '65534:65534', path.dirname(mine)]);
    // The listing bundle, where user nobody can read it.
    const bundle = path.join(h.base, 'mado-agents.js');
    writeFileSync(bundle, readFileSync(path.join(ROOT, 'dist', 'mado-agents.js')));
    chmodSync(bundle, 0o644);
    let out: string;
    try {
      out = execFileSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bundle, 'agents', '--json'],
        {
          env: { PATH: process.env.PATH, MADOHUB_JOBS_DIR: jobs, HOME: '/nonexistent' },
          encoding: 'utf8',
        },
      );
    } catch (err) {
      if (process.getuid?.() !== 0) return console.warn('not root: cannot run as another user here; skipped');
      throw err;
    }
    const byShort = new Map(
      (JSON.parse(out) as { short: string; status: string; detail: string }[]).map((j) => [j.short, j]),
    );
    expect(byShort.get('bbbbbbb1')).toMatchObject({ status: 'running' });
    expect(byShort.get('bbbbbbb2')).toMatchObject({ status: 'errored', detail: 'cannot read job.json: EACCES' });
  });

  it('a message larger than the bound is refused and closes the connection; the daemon stays small', async () => {
    await started('looper');
    const daemonPid = Number(
      [...readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8').matchAll(/pid (\d+)\)/g)].pop()![1],
    );
    const text = await new Promise<string>((resolve) => {
      const c = connect(sock());
      let got = '';
      c.on('data', (d) => (got += String(d)));
      c.on('error', () => undefined);
      c.on('close', () => resolve(got));
      const chunk = 'x'.repeat(1024 * 1024);
      let sent = 0;
      const more = (): void => {
        while (sent < 300 && c.writable) {
          sent++;
          if (!c.write(chunk)) return void c.once('drain', more);
        }
      };
      more();
    });
    expect(text).toContain('"error":"a message is larger than 1024 KiB"');
    expect(rssMiB(daemonPid)).toBeLessThan(200);
    expect((await request(sock(), { op: 'list' })).type).toBe('jobs');
  });

  it('an attached client that stops reading does not grow the host; it catches up with a fresh screen', async () => {
    const short = await started('spew');
    const info = hostInfo(short);
    const before = rssMiB(info.pid);
    const c = connect(info.socket);
    c.write(`${JSON.stringify({ proto: 2, op: 'attach', cols: 120, rows: 40 })}\n`);
    c.pause();
    // The agent writes on (its output logged) while the client reads nothing.
    const logged = (): number =>
      ['output.log', 'output.log.1'].reduce(
        (n, f) => n + (statSync(path.join(h.base, 'jobs', short, f), { throwIfNoEntry: false })?.size ?? 0),
        0,
      );
    expect(
      await until(
        async () => logged(),
        (n) => n > 4 * 1024 * 1024,
        20000,
      ),
    ).toBeGreaterThan(4 * 1024 * 1024);
    // What waits for it stays under the bound (1 MiB, and the one message that crossed it), while the
    // agent wrote far more; the host's memory does not follow the agent's output.
    const status = await request(info.socket, { op: 'status' });
    expect(status).toMatchObject({ type: 'status', clients: 1 });
    expect(status.type === 'status' && status.pendingBytes).toBeLessThan(MAX_PENDING_BYTES + 1024 * 1024);
    expect(logged()).toBeGreaterThan(4 * 1024 * 1024);
    expect(rssMiB(info.pid) - before).toBeLessThan(200);
    let got = '';
    c.on('data', (d) => (got += String(d)));
    c.resume();
    await until(
      async () => got,
      (g) => g.includes('"type":"screen"'),
      5000,
    );
    expect(got).toContain('"type":"screen"');
    c.destroy();
  });

  it('a prompt too large for a command line is refused at once, naming the limit; nothing is created', async () => {
    await started('looper');
    const reply = await request(sock(), {
      op: 'dispatch',
      short: 'abcdef02',
      sessionId: '0b6c6f1e-6f1e-4c7e-9d51-3f0d5c1e2a12',
      createdAt: 1,
      origin: 'shell',
      cwd: h.base,
      launch: { mode: 'prompt', args: ['p'.repeat(200 * 1024)] },
      respawnFlags: [],
      env: { PATH: process.env.PATH! },
      agent: 'looper',
      seed: { intent: 'x' },
    });
    expect(reply).toMatchObject({
      type: 'error',
      error:
        'the prompt is 200 KiB, and a job takes at most 120 KiB: put the text in a file and name the file in the prompt',
    });
    expect(existsSync(path.join(h.base, 'jobs', 'abcdef02'))).toBe(false);
  });

  it('a lock held on one job does not block the others', async () => {
    const a = await started('looper', 'a');
    const b = await started('looper', 'b');
    // A writer that holds a's lock and lives (this test process), for as long as this test says.
    const lock = path.join(h.base, 'jobs', a, 'job.lock');
    // Taken as a writer takes it (made, not written over: a's host may hold it for a write of its own,
    // and would then remove it).
    const take = async (): Promise<boolean> => {
      try {
        writeFileSync(lock, `${process.pid} ${processStamp(process.pid)}`, { flag: 'wx' });
        return true;
      } catch {
        return false;
      }
    };
    expect(await until(take, (taken) => taken, 5000)).toBe(true);
    // Kept fresh: a lock older than 10 s is taken for one its writer left.
    const fresh = setInterval(() => utimesSync(lock, new Date(), new Date()), 1000);
    try {
      const agentOfA = JSON.parse(readFileSync(path.join(h.base, 'jobs', a, 'host.json'), 'utf8')) as {
        ptyPid: number;
      };
      const onA = h.mado(['kill', a]);
      // Once a's agent is killed, its host waits for the lock to write its end.
      await until(
        async () => existsSync(`/proc/${agentOfA.ptyPid}`),
        (alive) => !alive,
        10000,
      );
      // Meanwhile, a's lock held all along (whatever the time it takes on a busy machine): b is killed
      // and its end written, and the jobs are listed.
      const [killedB, listed] = await Promise.all([h.mado(['kill', b]), h.mado(['agents', '--json'])]);
      expect(killedB.code, killedB.stderr).toBe(0);
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { short: string }[]).map((j) => j.short).sort()).toEqual([a, b].sort());
      const jobB = async (): Promise<{ status?: string }> =>
        JSON.parse(readFileSync(path.join(h.base, 'jobs', b, 'job.json'), 'utf8')) as { status?: string };
      expect((await until(jobB, (j) => j.status === 'killed', 10000)).status).toBe('killed');
      expect(existsSync(lock)).toBe(true);
      clearInterval(fresh);
      rmSync(lock);
      expect((await onA).code).toBe(0);
    } finally {
      clearInterval(fresh);
    }
  });
});

describe('what an agent does at once', () => {
  it('one that exits at once with status 0 is done; a missing program is named in the answer', async () => {
    const r = await h.mado(['--bg', '--agent', 'quick', 'x']);
    expect(r.code, r.stderr).toBe(0);
    expect((await until(h.jobs, (j) => j[0]?.status !== 'running'))[0]).toMatchObject({ status: 'done' });
    const missing = await h.mado(['--bg', '--agent', 'missing', 'x']);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toBe(
      "mado --bg: the agent program 'no-such-agent-program' is not on the job's PATH (install it, or name it in a template: see :help madohub-templates)\n",
    );
    const unknown = await h.mado(['--bg', '--agent', 'nosuch', 'x']);
    // The default first, then every other agent as registered, then the user's templates.
    const known = ['claude', ...AGENT_MODULES.map((a) => a.id).filter((id) => id !== 'claude'), 'asker', 'looper'].join(
      ', ',
    );
    expect(unknown.stderr).toMatch(new RegExp(`^mado --bg: unknown agent 'nosuch' \\(known: ${known}, .*\\)\n$`));
    expect((await h.jobs()).length).toBe(1);
  });
});
