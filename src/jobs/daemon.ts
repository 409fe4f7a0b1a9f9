// The daemon: started on demand by the first client that needs it, it creates jobs and starts one
// detached PTY host per job, lists jobs, and forwards stop/kill to hosts. It exits by itself a few
// seconds after no job runs and no client is connected. Hosts do not depend on it.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, lstatSync, rmSync, unlinkSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AGENTS } from '../detect/types.js';
import type { AgentId } from '../detect/types.js';
import { request } from './client.js';
import { writeLaunch } from './host.js';
import { hostAlive, readHostInfo } from './hostinfo.js';
import { startDetached } from './detached.js';
import { appendEntry } from './joblog.js';
import type { Launch } from './host.js';
import { daemonSocket } from './paths.js';
import { checkProto, encode, LineDecoder, PROTO } from './protocol.js';
import { blankJob, createJob, listJobs, readJob, removeJob, updateJob } from './store.js';
import { commandLine, isIsolation, jobEnv, loadTemplates, pickTemplate } from './templates.js';
import type { Isolation } from './templates.js';
import type { JobSource, JobState } from './types.js';
import { MAX_INTENT, SHORT_ID, UUID } from './types.js';

export interface DispatchRequest {
  op: 'dispatch';
  short: string;
  sessionId: string;
  createdAt: number;
  source: JobSource;
  cwd: string;
  launch: { mode: 'prompt'; args: string[] } | { mode: 'resume'; sessionId: string; fork: boolean; flagArgs: string[] };
  respawnFlags: string[];
  env: Record<string, string>;
  worktree?: { branch?: string };
  /** `worktree` runs the job in a git worktree of its own; absent: its template's, else `none`. */
  isolation?: Isolation;
  agent?: string;
  seed: { intent: string; name?: string };
  cols?: number;
  rows?: number;
}

export interface DaemonOptions {
  jobsDir: string;
  runtime: string;
  /** The `mado` script, to start hosts with (`node <script> __host …`). */
  script: string;
  idleMs?: number;
}

/** How long a dispatch waits for a host to come up; one that dies is told at once. */
const HOST_START_MS = 20000;

/**
 * True when a daemon answers on the socket. A socket that refuses is stale and removed (only a
 * socket: a file or folder someone put there is left alone). A daemon's socket appears only once it
 * listens (see `publish`), so a refusal never means "still starting".
 */
export function socketLive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (!existsSync(socketPath)) return resolve(false);
    const s = connect(socketPath);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', (err: NodeJS.ErrnoException) => {
      try {
        if (err.code === 'ECONNREFUSED' && lstatSync(socketPath).isSocket()) unlinkSync(socketPath);
      } catch {
        // Gone already.
      }
      resolve(false);
    });
  });
}

/**
 * Puts the listening socket `tmp` in place at `socketPath` with link(2), which fails when a path is
 * there, so that of two daemons started at once exactly one is reached. A stale socket in the way is
 * removed and the link tried again. Returns why it could not, or null.
 */
async function publish(tmp: string, socketPath: string): Promise<'live' | 'blocked' | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      linkSync(tmp, socketPath);
      return null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await socketLive(socketPath)) return 'live';
  }
  return 'blocked';
}

/** What is at `p` that is no daemon's socket, in words. */
function inTheWay(p: string): string {
  try {
    const st = lstatSync(p);
    if (st.isDirectory()) return 'a folder';
    if (st.isSocket()) return 'a socket that takes no connection';
    return 'a file';
  } catch {
    return 'something that comes and goes';
  }
}

/** Creates `<job>/worktree` on a new branch of the repository `cwd` is in. */
export function makeWorktree(cwd: string, jobDir: string, branch: string): { path: string; branch: string } | { error: string } {
  const wt = path.join(jobDir, 'worktree');
  try {
    execFileSync('git', ['-C', cwd, 'worktree', 'add', '-b', branch, wt], { stdio: 'pipe' });
    return { path: wt, branch };
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return { error: `cannot create a git worktree from ${cwd}: ${stderr || String(err)}` };
  }
}

export async function runDaemon(opts: DaemonOptions): Promise<void> {
  const socketPath = daemonSocket(opts.runtime);
  const logFile = path.join(opts.runtime, 'daemon.log');
  const say = (m: string): void => appendEntry(logFile, m);
  if (await socketLive(socketPath)) {
    say('another daemon answers on the socket; leaving');
    return;
  }
  const { templates, warnings } = loadTemplates();
  warnings.forEach(say);
  const jobDir = (short: string): string => path.join(opts.jobsDir, short);
  const clients = new Set<Socket>();

  const startHost = async (short: string, launch: Launch): Promise<string | null> => {
    writeLaunch(jobDir(short), launch);
    const host = startDetached(
      opts.script,
      ['__host', opts.jobsDir, short],
      { ...launch.env, MADOHUB_RUNTIME_DIR: opts.runtime, MADOHUB_JOBS_DIR: opts.jobsDir },
      launch.cwd,
    );
    const deadline = Date.now() + HOST_START_MS;
    for (;;) {
      if (readHostInfo(jobDir(short))) return null;
      const view = readJob(opts.jobsDir, short);
      if (view.ok && view.job.state === 'errored') return view.job.detail;
      const ended = host.ended();
      if (ended !== undefined) return `its host ${ended} before it started (see host.log in the job folder)`;
      if (Date.now() >= deadline) return `its host did not start in ${HOST_START_MS / 1000} s (see host.log in the job folder)`;
      await sleep(25);
    }
  };

  const launchFor = (
    job: Pick<JobState, 'template' | 'cwd' | 'env' | 'sessionId'>,
    prompt: string,
    resume: Launch['argv'] | undefined,
    cols = 120,
    rows = 40,
  ): Launch => {
    const { template } = pickTemplate(templates, job.template.name);
    const argv = resume ?? commandLine(template, prompt, undefined, false, job.sessionId);
    return { argv, cwd: job.cwd, env: job.env, cols, rows, typePrompt: template.prompt === 'type' && prompt ? prompt : undefined };
  };

  const dispatch = async (m: DispatchRequest): Promise<object> => {
    if (!SHORT_ID.test(m.short) || !UUID.test(m.sessionId)) return { type: 'error', error: 'bad short id or session id' };
    if (m.isolation !== undefined && !isIsolation(m.isolation)) {
      return { type: 'error', error: `isolation must be "worktree" or "none", not ${JSON.stringify(m.isolation)}` };
    }
    if (existsSync(jobDir(m.short))) {
      if (hostAlive(jobDir(m.short))) {
        // A host whose agent has ended is writing its last state and about to exit.
        return readHostInfo(jobDir(m.short))?.endedAt
          ? { type: 'error', error: 'the previous session is still ending, try again shortly' }
          : { type: 'error', error: 'session is already running' };
      }
      return { type: 'error', error: `job ${m.short} exists already` };
    }
    const picked = pickTemplate(templates, m.agent);
    // A template of one's own (not named after an agent) starts as a shell; its screen tells more.
    const agent: AgentId = (AGENTS as readonly string[]).includes(picked.template.name)
      ? (picked.template.name as AgentId)
      : 'shell';
    const prompt = m.launch.mode === 'prompt' ? m.launch.args.join(' ') : '';
    const resume =
      m.launch.mode === 'resume'
        ? commandLine(picked.template, '', { mode: 'id', id: m.launch.sessionId }, m.launch.fork).concat(m.launch.flagArgs)
        : undefined;
    const idle = !prompt && m.launch.mode === 'prompt' && m.agent === undefined;
    const job: JobState = {
      ...blankJob(m.short),
      short: m.short,
      sessionId: m.sessionId,
      createdAt: m.createdAt || Date.now(),
      template: { name: picked.template.name, description: picked.template.description, initialPrompt: prompt },
      agent,
      intent: prompt.slice(0, MAX_INTENT),
      name: m.seed.name ?? (prompt.slice(0, 40) || m.short),
      nameSource: m.seed.name ? 'user' : 'auto',
      state: 'running',
      tempo: idle ? 'blocked' : 'active',
      needs: idle ? 'a prompt' : null,
      resumeSessionId: m.launch.mode === 'resume' ? m.launch.sessionId : null,
      cwd: m.cwd,
      originCwd: m.cwd,
      source: m.source,
      respawnFlags: m.respawnFlags,
      env: jobEnv(m.env),
    };
    createJob(opts.jobsDir, job);
    // An explicit worktree is made whatever the isolation; else the isolation asked, else the template's
    // for a new session (a resumed one lives where it was started: Claude Code files sessions by folder).
    const fresh = m.launch.mode === 'prompt' && m.respawnFlags.length === 0;
    const isolation = m.isolation ?? (fresh ? picked.template.isolation : undefined);
    const worktree = m.worktree ?? (isolation === 'worktree' ? {} : undefined);
    if (worktree) {
      const made = makeWorktree(m.cwd, jobDir(m.short), worktree.branch ?? `mado/${m.short}`);
      if ('error' in made) {
        removeJob(opts.jobsDir, m.short); // A failed dispatch leaves nothing behind.
        return { type: 'error', error: made.error };
      }
      Object.assign(job, updateJob(opts.jobsDir, m.short, { cwd: made.path, worktreePath: made.path, worktreeBranch: made.branch }));
    }
    const failed = await startHost(m.short, { ...launchFor(job, prompt, resume, m.cols, m.rows), awaitingPrompt: idle });
    if (failed) {
      updateJob(opts.jobsDir, m.short, { state: 'errored', detail: failed });
      return { type: 'error', error: failed };
    }
    say(`dispatched ${m.short}`);
    return { type: 'ok', short: m.short, warning: picked.warning };
  };

  const list = (): object => {
    const jobs = listJobs(opts.jobsDir).map((v) => {
      const alive = hostAlive(jobDir(v.job.short));
      // Its host died without writing its end (its host.json is left), or never came up.
      const dead = readHostInfo(jobDir(v.job.short)) !== undefined || Date.now() - v.job.updatedAt > HOST_START_MS * 2;
      if (v.ok && v.job.state === 'running' && !alive && dead) {
        try {
          return { ...updateJob(opts.jobsDir, v.job.short, { state: 'errored', detail: 'its host process is gone' }), alive };
        } catch {
          return { ...v.job, alive };
        }
      }
      return { ...v.job, alive, ...(v.ok ? {} : { error: v.error }) };
    });
    return { type: 'jobs', jobs };
  };

  const forward = async (short: string, op: 'stop' | 'kill'): Promise<object> => {
    const info = readHostInfo(jobDir(short));
    if (!info || !hostAlive(jobDir(short))) return { type: 'error', error: `job ${short} is not running` };
    return request(info.socket, { op });
  };

  const respawn = async (short: string): Promise<object> => {
    const view = readJob(opts.jobsDir, short);
    if (!view.ok) return { type: 'error', error: view.error };
    if (hostAlive(jobDir(short))) return { type: 'error', error: 'session is already running' };
    const { template } = pickTemplate(templates, view.job.template.name);
    // The agent's own session: the one it resumed, the one it was told (Claude Code), or the one its
    // records named (Codex, written by the host).
    const resumeId = view.job.resumeSessionId ?? (template.sessionId ? view.job.sessionId : null);
    const argv =
      template.resume && resumeId
        ? commandLine(template, '', { mode: 'id', id: resumeId }, false).concat(view.job.respawnFlags)
        : commandLine(template, view.job.intent, undefined, false, view.job.sessionId);
    updateJob(opts.jobsDir, short, { state: 'running', tempo: 'active', detail: 'respawned' });
    const failed = await startHost(short, launchFor(view.job, view.job.intent, argv));
    if (failed) {
      updateJob(opts.jobsDir, short, { state: 'errored', detail: failed });
      return { type: 'error', error: failed };
    }
    return { type: 'ok', short };
  };

  const remove = async (short: string, force: boolean): Promise<object> => {
    if (!existsSync(jobDir(short))) return { type: 'error', error: `no job '${short}'` };
    if (hostAlive(jobDir(short))) {
      if (!force) return { type: 'error', error: `job ${short} is running; stop it first or use --force` };
      await forward(short, 'kill');
      for (let i = 0; i < 100 && hostAlive(jobDir(short)); i++) await sleep(20);
    }
    const view = readJob(opts.jobsDir, short);
    if (view.ok && view.job.worktreePath) {
      // The worktree goes with the job; its branch stays in the repository.
      try {
        execFileSync('git', ['-C', view.job.originCwd, 'worktree', 'remove', '--force', view.job.worktreePath], { stdio: 'pipe' });
      } catch (err) {
        say(`job ${short}: git worktree remove: ${String(err)}`);
      }
    }
    removeJob(opts.jobsDir, short);
    return { type: 'ok', short };
  };

  const handle = async (m: { op?: string; short?: string; force?: boolean }): Promise<object> => {
    switch (m.op) {
      case 'list':
        return list();
      case 'dispatch':
        return dispatch(m as unknown as DispatchRequest);
      case 'stop':
      case 'kill':
        return forward(String(m.short), m.op);
      case 'respawn':
        return respawn(String(m.short));
      case 'remove':
        return remove(String(m.short), m.force === true);
      default:
        return { type: 'error', error: `unknown op ${String(m.op)}` };
    }
  };

  const server = createServer((socket) => {
    clients.add(socket);
    const decoder = new LineDecoder();
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      let messages: unknown[];
      try {
        messages = decoder.push(chunk);
      } catch (err) {
        socket.end(encode({ type: 'error', error: String(err) }));
        return;
      }
      for (const raw of messages) {
        try {
          checkProto(raw, 'this client');
        } catch (err) {
          socket.end(encode({ type: 'error', error: err instanceof Error ? err.message : String(err) }));
          return;
        }
        handle(raw as { op?: string })
          .then((reply) => socket.end(encode(reply)))
          .catch((err: unknown) => socket.end(encode({ type: 'error', error: err instanceof Error ? err.message : String(err) })));
      }
    });
    socket.on('close', () => clients.delete(socket));
    socket.on('error', () => clients.delete(socket));
  });
  // Listen on a name of this daemon's own, then publish it: clients never find a socket that is
  // bound but not yet listening (and so never take it for a stale one).
  const tmp = path.join(opts.runtime, `d${process.pid}.s`);
  const leave = (why: string, code: number): void => {
    say(why);
    server.close();
    process.exitCode = code;
  };
  try {
    rmSync(tmp, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(tmp, resolve);
    });
    chmodSync(tmp, 0o600);
    const taken = await publish(tmp, socketPath);
    unlinkSync(tmp);
    if (taken === 'live') return leave('another daemon answers on the socket; leaving', 0);
    if (taken === 'blocked') return leave(`cannot listen on ${socketPath}: ${inTheWay(socketPath)} is in the way (remove it)`, 1);
  } catch (err) {
    rmSync(tmp, { force: true });
    return leave(`cannot listen on ${socketPath}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  say(`listening on ${socketPath} (protocol ${PROTO}, pid ${process.pid})`);

  // Exit a while after nothing runs and nobody is connected.
  const idleMs = opts.idleMs ?? 3000;
  let idleSince = Date.now();
  const check = setInterval(() => {
    const running = listJobs(opts.jobsDir).some((v) => hostAlive(jobDir(v.job.short)));
    if (running || clients.size > 0) {
      idleSince = Date.now();
      return;
    }
    if (Date.now() - idleSince >= idleMs) {
      clearInterval(check);
      say('idle: exiting');
      server.close();
      try {
        unlinkSync(socketPath);
      } catch {
        // Gone already.
      }
      process.exit(0);
    }
  }, 500);
}
