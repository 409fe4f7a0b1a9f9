// Background jobs with real processes: the built `mado`, its daemon, one PTY host per job, and
// fixture agents. Every test has its own jobs folder, runtime folder and templates.
import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, createServer } from 'node:net';
import * as pty from 'node-pty';
import { describe, expect, it } from 'vitest';
import { request } from '../../src/jobs/protocol/client.js';
import type { Reply } from '../../src/jobs/protocol/replies.js';
import { blankJob } from '../../src/jobs/store.js';
import { FIX, MADO, shortOf, until, useJobsHarness } from './jobs-harness.js';
import type { Run } from './jobs-harness.js';
import { holds } from '../helpers/wait.js';

const h = useJobsHarness();
const { mado, jobs, gitRepo, killDaemon } = {
  mado: (...a: Parameters<typeof h.mado>) => h.mado(...a),
  jobs: () => h.jobs(),
  gitRepo: () => h.gitRepo(),
  killDaemon: () => h.killDaemon(),
};

describe('mado jobs', () => {
  it('dispatch → running → blocked on a question → answered through attach → done', async () => {
    const r = await mado(['--bg', '--agent', 'asker', '-n', 'ask', 'check', 'the', 'build']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backgrounded · [0-9a-f]{8}\n {2}mado jobs {2}/);
    const short = shortOf(r.stdout);
    // The runtime folder is private, and so are the sockets in it.
    const run = path.join(h.base, 'run');
    expect(statSync(run).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(run, 'daemon.sock')).mode & 0o777).toBe(0o600);
    const blocked = await until(jobs, (j) => j[0]?.tempo === 'blocked');
    expect(statSync(path.join(run, `host-${short}.sock`)).mode & 0o777).toBe(0o600);
    expect(blocked[0]).toMatchObject({
      short,
      status: 'running',
      tempo: 'blocked',
      needs: 'Do you want to proceed? — rm -rf build',
      agent: 'claude',
      name: 'ask',
      intent: 'check the build',
    });
    expect((blocked[0]!.block as { questions: { options: string[] }[] }).questions[0]!.options[0]).toBe('Yes');

    // Attach in a real terminal, answer, see the screen, detach with Ctrl-].
    const term = pty.spawn(process.execPath, [MADO, 'attach', short.slice(0, 4)], {
      cols: 100,
      rows: 40,
      env: h.env as Record<string, string>,
    });
    let seen = '';
    term.onData((d) => (seen += d));
    const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    await until(
      async () => seen,
      (s) => s.includes('Do you want to proceed?'),
    );
    term.write('1');
    const done = await until(jobs, (j) => j[0]?.status === 'done');
    expect(done[0]).toMatchObject({ status: 'done', tempo: 'idle', needs: null });
    expect(typeof done[0]!.firstTerminalAt).toBe('number');
    // The job ended under the view: attach fails (1), saying so (a detach alone exits 0).
    expect(await exited).toBe(1);
    expect(seen).toMatch(/mado attach: [0-9a-f]{8} exited with status 0/);
  });

  it('a job survives the daemon being killed; a new daemon lists it; stop keeps its folder', async () => {
    const short = shortOf((await mado(['--bg', '--agent', 'looper', 'loop'])).stdout);
    await until(jobs, (j) => j[0]?.tempo === 'active');
    // Kill the daemon (hosts do not depend on it).
    killDaemon();
    const listed = await mado(['agents']);
    expect(listed.stdout).toContain(short);
    expect(listed.stdout).toMatch(/running\s+(working|idle)\s/);
    const logs = await mado(['logs', short]);
    expect(logs.stdout).toContain('Claude Code');
    // Starts a new daemon on demand, and returns once the job has stopped.
    const stop = await mado(['stop', short]);
    expect(stop).toMatchObject({ code: 0, stdout: `stopped ${short}\n` });
    expect((await jobs())[0]).toMatchObject({ status: 'stopped', detail: 'stopped', alive: false });
    expect(existsSync(path.join(h.base, 'jobs', short, 'job.json'))).toBe(true);
  });

  it('respawn, rm refused while running, kill, rm', async () => {
    const short = shortOf((await mado(['--bg', '--agent', 'looper', 'x'])).stdout);
    await until(jobs, (j) => j[0]?.tempo === 'active');
    expect(await mado(['respawn', short])).toMatchObject({
      code: 1,
      stderr: `mado respawn: session is already running\n`,
    });
    expect((await mado(['rm', short])).stderr).toBe(`mado rm: job ${short} is running; stop it first or use --force\n`);
    expect((await mado(['kill', short])).code).toBe(0);
    await until(jobs, (j) => j[0]?.status !== 'running');
    expect((await mado(['respawn', short])).code).toBe(0);
    await until(jobs, (j) => j[0]?.status === 'running' && j[0]?.alive === true);
    expect((await mado(['rm', '--force', short])).stdout).toBe(`removed ${short}\n`);
    expect(await jobs()).toEqual([]);
    // Nothing runs and nobody is connected: the daemon leaves by itself a few seconds later.
    const sock = path.join(h.base, 'run', 'daemon.sock');
    expect(
      await until(
        async () => existsSync(sock),
        (up) => !up,
        15000,
      ),
    ).toBe(false);
    expect(readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8')).toMatch(/idle: exiting\n$/);
  });

  it('a job is done when its agent ends a turn, runs again when it works, and firstTerminalAt stays the first', async () => {
    const short = shortOf((await mado(['--bg', '--agent', 'turns', 'go'])).stdout);
    const [first] = await until(jobs, (j) => j[0]?.status === 'done');
    expect(first).toMatchObject({
      short,
      status: 'done',
      tempo: 'idle',
      alive: true,
      detail: expect.stringMatching(/for \d+s/),
    });
    const since = first!.firstTerminalAt as number;
    expect(since).toBeGreaterThan(0);
    expect((await until(jobs, (j) => j[0]?.status === 'running'))[0]).toMatchObject({ tempo: 'active', alive: true });
    const [second] = await until(jobs, (j) => j[0]?.status === 'done');
    expect(second).toMatchObject({ status: 'done', firstTerminalAt: since });
    // Stopped between turns, it stays stopped.
    expect((await mado(['stop', short])).code).toBe(0);
    await until(jobs, (j) => j[0]?.status === 'stopped');
    expect(await holds(async () => (await jobs())[0]?.status === 'stopped', 1200, 100)).toBe(true);
    expect((await jobs())[0]).toMatchObject({
      status: 'stopped',
      detail: 'stopped',
      alive: false,
      firstTerminalAt: since,
    });
  });

  it('with no prompt and no agent, the job starts idle and shows as blocked', async () => {
    const r = await mado(['--bg']);
    expect(r.code, r.stderr).toBe(0);
    // Its screen read: blocked on a prompt.
    const [job] = await until(jobs, (j) => j.length === 1 && j[0]?.tempo === 'blocked');
    expect(job).toMatchObject({ status: 'running', tempo: 'blocked', needs: 'a prompt', agent: 'claude' });
  });

  it('an unknown id, and the disable switch', async () => {
    expect(await mado(['logs', 'abc'])).toMatchObject({ code: 1, stderr: "mado logs: no job 'abc'\n" });
    const off = await mado(['agents'], undefined, { MADOHUB_DISABLE_AGENT_VIEW: '1' });
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/the agent view is off/);
  });

  it('a stale socket is cleaned up; two clients dispatching at once both land', async () => {
    const run = path.join(h.base, 'run');
    mkdirSync(run, { recursive: true, mode: 0o700 });
    // A socket file nobody listens on: left by a daemon that was killed.
    const sock = path.join(run, 'daemon.sock');
    const dead = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(sock)}, () => console.log('up'))`,
    ]);
    await new Promise<void>((r) => dead.stdout!.once('data', () => r()));
    dead.kill('SIGKILL');
    await new Promise<void>((r) => dead.once('exit', () => r()));
    expect(existsSync(path.join(run, 'daemon.sock'))).toBe(true);
    const [a, b] = await Promise.all([
      mado(['--bg', '--agent', 'looper', 'a']),
      mado(['--bg', '--agent', 'looper', 'b']),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const all = await until(jobs, (j) => j.length === 2);
    expect(all.map((j) => j.intent).sort()).toEqual(['a', 'b']);
  });

  it('daemons started at once: exactly one is reached, the others leave, and a file in the way is kept', async () => {
    const run = path.join(h.base, 'run');
    mkdirSync(run, { recursive: true, mode: 0o700 });
    const daemons = Array.from({ length: 4 }, () =>
      spawn(process.execPath, [MADO, '__daemon'], { env: h.env, stdio: 'ignore' }),
    );
    // Clients poll meanwhile: none may take a socket that is bound but not yet listening for a stale one.
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((p) => mado(['--bg', '--agent', 'looper', p])));
    expect([a!.code, b!.code, c!.code], [a, b, c].map((r) => r!.stderr).join('')).toEqual([0, 0, 0]);
    // Of all the daemons started (these four, and any a client started), one listens and the rest leave.
    const exited = await until(
      async () => daemons.filter((d) => d.exitCode !== null),
      (e) => e.length >= 3,
    );
    expect(exited.map((d) => d.exitCode)).toEqual(Array(exited.length).fill(0));
    const log = readFileSync(path.join(run, 'daemon.log'), 'utf8');
    expect(log.match(/listening on /g)).toHaveLength(1);
    expect(log).not.toMatch(/cannot listen/);
    expect(log.match(/another daemon answers on the socket; leaving/g)!.length).toBeGreaterThanOrEqual(3);
    expect(readdirSync(run).filter((f) => /^d\d+\.s$/.test(f))).toEqual([]);
    expect((await until(jobs, (j) => j.length === 3)).map((j) => j.intent).sort()).toEqual(['a', 'b', 'c']);
    for (const d of daemons) d.kill('SIGKILL');
    killDaemon();

    // A plain file where the socket goes is someone's: never removed, and the message says so.
    rmSync(path.join(run, 'daemon.sock'));
    writeFileSync(path.join(run, 'daemon.sock'), 'mine');
    const r = await mado(['agents']);
    expect(r.code).toBe(0);
    const blocked = await mado(['--bg', '--agent', 'looper', 'd']);
    expect(blocked.stderr).toMatch(
      /it did not start \(it exited with status 1; its log says: cannot listen on .*daemon\.sock: a file is in the way \(remove it\)\)/,
    );
    expect(readFileSync(path.join(run, 'daemon.sock'), 'utf8')).toBe('mine');
  });

  it('piped standard input is appended to the prompt and cut at 16 KiB', async () => {
    const r = await mado(['--bg', '--agent', 'looper', 'review'], 'x'.repeat(20000));
    expect(r.stderr).toBe('mado: standard input cut at 16 KiB (20 KiB given)\n');
    const [job] = await until(jobs, (j) => j.length === 1);
    expect((job!.template as { initialPrompt: string }).initialPrompt.length).toBe('review\n\n'.length + 16384);
  });

  it('respawn resumes the agent’s own session: Claude Code is told it, Codex’s is read from its rollout', async () => {
    const launch = (short: string): string[] =>
      (JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'launch.json'), 'utf8')) as { argv: string[] }).argv;
    const c = shortOf((await mado(['--bg', '--agent', 'claude', 'hello'])).stdout);
    const [cj] = await until(jobs, (j) => j.length === 1);
    expect(launch(c).slice(1)).toEqual(['--session-id', cj!.sessionId, '--', 'hello']);
    const x = shortOf((await mado(['--bg', '--agent', 'codex', 'hi'])).stdout);
    const withId = await until(jobs, (j) =>
      j.some((job) => job.short === x && typeof job.resumeSessionId === 'string'),
    );
    const codexSession = withId.find((job) => job.short === x)!.resumeSessionId as string;
    expect(codexSession).toMatch(/^[0-9a-f-]{36}$/);
    for (const short of [c, x]) expect((await mado(['stop', short])).code).toBe(0);
    await until(jobs, (j) => j.every((job) => job.status === 'stopped'));
    for (const short of [c, x]) expect((await mado(['respawn', short])).code).toBe(0);
    expect(launch(c).slice(1)).toEqual(['--resume', cj!.sessionId]);
    expect(launch(x).slice(1)).toEqual(['resume', codexSession]);
  });

  it('detaching with Ctrl-] leaves the job running; closing the client too', async () => {
    const short = shortOf((await mado(['--bg', '--agent', 'looper', 'x'])).stdout);
    await until(jobs, (j) => j[0]?.tempo === 'active');
    const term = pty.spawn(process.execPath, [MADO, 'attach', short], {
      cols: 90,
      rows: 30,
      env: h.env as Record<string, string>,
    });
    let seen = '';
    term.onData((d) => (seen += d));
    await until(
      async () => seen,
      (t) => t.includes('Claude Code'),
    );
    term.write('\x1d');
    const code = await new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    expect(code).toBe(0);
    expect(seen).toContain(`[detached from ${short}; it keeps running]`);
    const second = pty.spawn(process.execPath, [MADO, 'attach', short], {
      cols: 90,
      rows: 30,
      env: h.env as Record<string, string>,
    });
    let secondSeen = '';
    second.onData((d) => (secondSeen += d));
    // Attached (the job's screen drawn), then killed: the job runs on.
    await until(
      async () => secondSeen,
      (t) => t.includes('Claude Code'),
    );
    second.kill('SIGKILL');
    const runsOn = async (): Promise<boolean> => {
      const [j] = await jobs();
      return j?.status === 'running' && j.alive === true;
    };
    expect(await holds(runsOn, 300, 100)).toBe(true);
  });

  it('the daemon refuses another protocol version and a short id already alive', async () => {
    await mado(['--bg', '--agent', 'looper', 'x']);
    const [job] = await until(jobs, (j) => j[0]?.alive === true);
    const sock = path.join(h.base, 'run', 'daemon.sock');
    // A raw request of protocol 99 (the protocol module puts its own version; override it).
    const reply = await new Promise<string>((resolve) => {
      const c = connect(sock);
      let text = '';
      c.on('connect', () => c.write('{"proto":99,"op":"list"}\n'));
      c.on('data', (d: Buffer) => (text += d.toString()));
      c.on('close', () => resolve(text));
    });
    const [hello, refusal] = reply
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(hello).toMatchObject({ proto: 2, type: 'hello', role: 'daemon' });
    expect(refusal).toMatchObject({
      type: 'error',
      error: 'this client speaks protocol 99, this mado speaks protocol 2',
    });
    const again = await request(sock, {
      op: 'dispatch',
      ...job,
      env: {},
      launch: { mode: 'prompt', args: [] },
      seed: { intent: '' },
    });
    expect(again).toMatchObject({ type: 'error', error: 'session is already running' });
  });

  it('a dispatch whose answer is late succeeds when the job is listed, and is retried once otherwise', async () => {
    const run = path.join(h.base, 'run');
    mkdirSync(run, { recursive: true, mode: 0o700 });
    // A daemon of our own that never answers a first dispatch.
    const dispatched: string[] = [];
    let listIt = true;
    const fake = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.on('error', () => socket.destroy()); // a liveness probe hangs up at once
      socket.write(`${JSON.stringify({ proto: 2, type: 'hello', role: 'daemon', pid: process.pid })}\n`);
      socket.on('data', (chunk: string) => {
        for (const line of chunk.split('\n').filter(Boolean)) {
          const m = JSON.parse(line) as { op: string; short?: string };
          if (m.op === 'dispatch') {
            dispatched.push(m.short!);
            if (dispatched.length >= 2) socket.end(`${JSON.stringify({ proto: 2, type: 'ok', short: m.short })}\n`);
          } else if (m.op === 'list') {
            // Listed as a daemon lists them: each job's file, and whether its host lives.
            const jobs = listIt ? dispatched.map((short) => ({ ...blankJob(short), alive: true })) : [];
            socket.end(`${JSON.stringify({ proto: 2, type: 'jobs', jobs })}\n`);
          }
        }
      });
    });
    await new Promise<void>((r) => fake.listen(path.join(run, 'daemon.sock'), r));
    try {
      const listed = await mado(['--bg', 'x'], undefined, { MADOHUB_ACK_MS: '300' });
      expect(listed.code).toBe(0);
      expect(dispatched).toHaveLength(1);
      expect(listed.stdout).toContain(`backgrounded · ${dispatched[0]}`);
      listIt = false;
      dispatched.length = 0;
      const retried = await mado(['--bg', 'y'], undefined, { MADOHUB_ACK_MS: '300' });
      expect(retried.code).toBe(0);
      expect(dispatched).toHaveLength(2);
      expect(dispatched[0]).toBe(dispatched[1]);
    } finally {
      await new Promise<void>((r) => fake.close(() => r()));
    }
  });

  it('a job between turns (done, its agent up) is "already running"; one whose agent has ended and whose host still writes is "still ending"', async () => {
    await mado(['--bg', '--agent', 'looper', 'x']);
    const [job] = await until(jobs, (j) => j[0]?.alive === true);
    const dir = path.join(h.base, 'jobs', job!.short as string);
    const rewrite = (file: string, patch: object): void =>
      writeFileSync(
        path.join(dir, file),
        JSON.stringify({ ...JSON.parse(readFileSync(path.join(dir, file), 'utf8')), ...patch }),
      );
    const again = (): Promise<Reply> =>
      request(path.join(h.base, 'run', 'daemon.sock'), {
        op: 'dispatch',
        ...job,
        env: {},
        launch: { mode: 'prompt', args: [] },
        seed: { intent: '' },
      });
    rewrite('job.json', { status: 'done' });
    expect(await again()).toMatchObject({ type: 'error', error: 'session is already running' });
    // What the host writes first when its agent exits.
    rewrite('host.json', { endedAt: Date.now() });
    expect(await again()).toMatchObject({
      type: 'error',
      error: 'the previous session is still ending, try again shortly',
    });
  });

  it('an unreachable daemon: a message that says what to do', async () => {
    // A runtime folder whose socket path is too long for a Unix socket (the kernel would cut it).
    const deep = path.join(h.base, 'r'.repeat(60), 's'.repeat(60));
    const r = await mado(['--bg', 'x'], undefined, { MADOHUB_RUNTIME_DIR: deep });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^mado --bg: cannot reach the mado daemon: the socket path .*daemon\.sock is \d+ bytes, and a socket's path can have at most 107: set MADOHUB_RUNTIME_DIR \(or XDG_RUNTIME_DIR\) to a shorter folder\n$/,
    );
  });

  it('a daemon that cannot start: a message that names its log, and the log says why', async () => {
    // A folder where the socket should be: no stale socket to clean up, and nothing can listen there.
    const run = path.join(h.base, 'run');
    mkdirSync(path.join(run, 'daemon.sock'), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(run, 'daemon.sock', 'keep'), '');
    const sock = path.join(run, 'daemon.sock');
    const started = Date.now();
    const r = await mado(['--bg', '--agent', 'looper', 'x']);
    // The daemon's death is told at once, with the line of its log that says why.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mado --bg: cannot reach the mado daemon at ${sock}: it did not start (it exited with status 1; its log says: ` +
        `cannot listen on ${sock}: a folder is in the way (remove it)). ` +
        `See ${path.join(run, 'daemon.log')}, or run \`node ${MADO} __daemon\` in a terminal to see its errors.\n`,
    );
    expect(readFileSync(path.join(run, 'daemon.log'), 'utf8')).toMatch(
      /cannot listen on .*daemon\.sock: a folder is in the way \(remove it\)\n$/,
    );
    // What was in the way is left alone, and the daemon left nothing of its own behind.
    expect(readdirSync(run).sort()).toEqual(['daemon.log', 'daemon.sock']);
    expect(readdirSync(path.join(run, 'daemon.sock'))).toEqual(['keep']);
    // A host that fails with no one to read its standard error writes the failure into its log.
    const job = path.join(h.base, 'jobs', 'abcd1234');
    mkdirSync(job, { recursive: true });
    expect((await mado(['__host', path.join(h.base, 'jobs'), 'abcd1234'])).code).toBe(1);
    expect(readFileSync(path.join(job, 'host.log'), 'utf8')).toBe(
      `${readFileSync(path.join(job, 'host.log'), 'utf8').slice(0, 25)}cannot read launch.json: ENOENT\n`,
    );
    rmSync(job, { recursive: true });
    expect(existsSync(path.join(h.base, 'jobs')) ? readdirSync(path.join(h.base, 'jobs')) : []).toEqual([]);
  });

  it('`mado` through its link: its verbs, the daemon and the hosts run without NODE_EXTRA_CA_CERTS; the agents keep it', async () => {
    // Linked the way npm links a bin; a CA file that does not exist makes Node say when it reads it.
    const bin = path.join(h.base, 'bin');
    mkdirSync(bin);
    symlinkSync(MADO, path.join(bin, 'mado'));
    const viaLink = (args: string[]): Promise<Run> =>
      new Promise((resolve) => {
        const e = {
          ...h.env,
          PATH: `${bin}${path.delimiter}${h.env.PATH}`,
          NODE_EXTRA_CA_CERTS: path.join(h.base, 'no-ca.pem'),
        };
        execFile('mado', args, { env: e }, (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout, stderr }),
        ).stdin?.end();
      });
    const listed = await viaLink(['agents']);
    expect(listed).toEqual({ code: 0, stdout: 'no jobs\n', stderr: '' });
    const detect = await viaLink(['detect', path.join(FIX, 'screens.json')]);
    // Node before 23 reads the CA file as it starts, and says when it cannot: mado's Node never reads it.
    expect(detect).toMatchObject({ code: 0, stderr: '' });
    const bg = await viaLink(['--bg', '--agent', 'looper', 'x']);
    expect(bg.code).toBe(0);
    const dir = path.join(h.base, 'jobs', shortOf(bg.stdout));
    // The job's environment is never written down: the agent gets it from its host.
    const state = JSON.parse(readFileSync(path.join(dir, 'job.json'), 'utf8')) as { env?: Record<string, string> };
    expect(state.env).toBeUndefined();
    // The daemon and the host speak only on local sockets and start without it; the agent has it.
    const [job] = await until(jobs, (j) => j[0]?.alive === true);
    const { pid, ptyPid } = JSON.parse(readFileSync(path.join(dir, 'host.json'), 'utf8')) as {
      pid: number;
      ptyPid: number;
    };
    const environ = (p: number): string[] => readFileSync(`/proc/${p}/environ`, 'utf8').split('\0');
    // Started by this `mado`, the daemon runs it by the link's path.
    const daemonPid = Number(
      execFileSync('pgrep', ['-f', `${path.join(bin, 'mado')} __daemon`], { encoding: 'utf8' }).trim(),
    );
    expect(job).toMatchObject({ alive: true });
    expect(environ(daemonPid).filter((e) => e.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
    expect(environ(pid).filter((e) => e.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
    expect(environ(ptyPid)).toContain(`NODE_EXTRA_CA_CERTS=${path.join(h.base, 'no-ca.pem')}`);
  });

  it('isolation: a template’s "worktree" puts new jobs in a worktree; "none" and resumes stay put; others are refused', async () => {
    const { repo } = gitRepo();
    const sock = path.join(h.base, 'run', 'daemon.sock');
    expect((await mado(['--bg', '--agent', 'looper', 'up'])).code).toBe(0); // the daemon is up
    const dispatch = (short: string, extra: object): Promise<Reply> =>
      request(sock, {
        op: 'dispatch',
        short,
        sessionId: `${short}-6f1e-4c7e-9d51-3f0d5c1e2a11`,
        createdAt: Date.now(),
        origin: 'shell',
        cwd: repo,
        launch: { mode: 'prompt', args: ['x'] },
        respawnFlags: [],
        env: { PATH: h.env.PATH! },
        agent: 'isolated',
        seed: { intent: 'x' },
        ...extra,
      });
    expect(await dispatch('1a1a1a1a', {})).toMatchObject({ type: 'ok' });
    expect(await dispatch('2b2b2b2b', { isolation: 'none' })).toMatchObject({ type: 'ok' });
    expect(
      await dispatch('3c3c3c3c', { launch: { mode: 'resume', sessionId: 'abc', fork: false, flagArgs: [] } }),
    ).toMatchObject({ type: 'ok' });
    expect(await dispatch('4d4d4d4d', { isolation: 'sandbox' })).toMatchObject({
      type: 'error',
      error: "dispatch: field 'isolation' must be one of worktree|none",
    });
    // A template that resumes no session is refused a resume (its agent would start a new one, unsaid).
    expect(
      await dispatch('5e5e5e5e', {
        agent: 'looper',
        launch: { mode: 'resume', sessionId: 'abc', fork: false, flagArgs: [] },
      }),
    ).toMatchObject({
      type: 'error',
      error: "the template 'looper' resumes no session (see :help madohub-templates)",
    });
    // Asked only whether it would start: nothing is made.
    expect(await dispatch('6f6f6f6f', { check: true })).toMatchObject({ type: 'ok' });
    expect(existsSync(path.join(h.base, 'jobs', '6f6f6f6f'))).toBe(false);
    const byShort = new Map((await jobs()).map((j) => [j.short, j]));
    expect(byShort.get('1a1a1a1a')).toMatchObject({
      cwd: path.join(h.base, 'jobs', '1a1a1a1a', 'worktree'),
      originCwd: repo,
      worktreeBranch: 'mado/1a1a1a1a',
    });
    expect(byShort.get('2b2b2b2b')).toMatchObject({ cwd: repo, worktreePath: null });
    expect(byShort.get('3c3c3c3c')).toMatchObject({ cwd: repo, worktreePath: null });
    expect(byShort.has('4d4d4d4d')).toBe(false);
    expect(existsSync(path.join(h.base, 'jobs', '4d4d4d4d'))).toBe(false);
  });

  it('--worktree runs the job in a git worktree of its own, and rm removes it', async () => {
    const { repo, git } = gitRepo();
    const inDir = (cwd: string, args: string[]): Promise<Run> =>
      new Promise<Run>((resolve) => {
        execFile(process.execPath, [MADO, ...args], { env: h.env, cwd }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ).stdin?.end();
      });
    const r = await inDir(repo, ['--bg', '--worktree', '--agent', 'looper', 'x']);
    expect(r.code, r.stderr).toBe(0);
    const short = shortOf(r.stdout);
    const [job] = await until(jobs, (j) => j.length === 1);
    const wt = path.join(h.base, 'jobs', short, 'worktree');
    expect(job).toMatchObject({ cwd: wt, originCwd: repo, worktreePath: wt, worktreeBranch: `mado/${short}` });
    expect(git('worktree', 'list')).toContain(wt);
    expect((await mado(['rm', '--force', short])).code).toBe(0);
    expect(git('worktree', 'list')).not.toContain(wt);
    expect(git('branch', '--list', `mado/${short}`)).toContain(`mado/${short}`);
    // Outside a repository: a clear error, and no job left behind.
    const outside = mkdtempSync(path.join(tmpdir(), 'madohub-norepo-'));
    const bad = await inDir(outside, ['--bg', '--worktree', '--agent', 'looper', 'y']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^mado --bg: cannot create a git worktree from .*: fatal: not a git repository/);
    expect(await jobs()).toEqual([]);
  });
});
