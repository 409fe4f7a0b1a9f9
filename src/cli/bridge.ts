// `mado bridge`: the other end of a link from another machine (src/jobs/remote/link.ts), run by the
// line that machine writes into the shell its host command gives (ssh, docker exec, kubectl exec).
// It speaks on its standard input and output only: it lists this machine's jobs, runs `mado` verbs
// here for that machine and passes their output back, and connects to a job's host here for it.
// Every request passes the guard first; what waits for a slow reader is bounded; when its input
// ends (the link was closed or dropped), what it started for the link ends, and it leaves. The jobs
// themselves run on under this machine's daemon.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { readHostInfo, hostRuns } from '../jobs/hostinfo.js';
import { listedJobs } from '../jobs/listed.js';
import { Conn, ReachError } from '../jobs/protocol/client.js';
import { checkProto, encode, LineDecoder, PROTO } from '../jobs/protocol/codec.js';
import { findJob, jobsDir } from '../jobs/store.js';
import { checkNodePty } from '../jobs/node-pty-check.js';
import { daemonSocket, runtimeDir } from '../jobs/paths.js';
import { socketLive } from '../jobs/protocol/socket.js';
import { JobsWatch } from '../fleet/jobs-watch.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { newestPaced } from '../shared/debounce.js';
import { agentStateOfJob } from '../fleet/entry.js';
import { byCreation } from './agents.js';
import { CHECK_AGENTS } from './remote-check.js';
import type { CheckedAgent } from './remote-check.js';
import { BRIDGE_OPS, listGapMs, MAX_CHANNELS, MAX_LINK_MESSAGE, parseBridgeRequest } from '../jobs/remote/wire.js';
import { parseDaemonRequest } from '../jobs/protocol/daemon-requests.js';
import { localDaemon } from '../jobs/client/jobs.js';
import { quietIo } from '../jobs/client/daemon.js';
import { isServiceRequest, SERVICE_MS, SERVICE_OPS } from '../jobs/client/service.js';
import type { ServiceRequest } from '../jobs/client/service.js';
import { jobEnv } from '../jobs/env.js';
import { opNamed } from '../ops/index.js';
import type { BridgeEvent, BridgeRequest } from '../jobs/remote/wire.js';

/** What may wait for the other side to read before a verb's output is paused. */
const MAX_PENDING = 4 * 1024 * 1024;
/** The largest message a job's host sends an attached client (as attach takes it). */
const MAX_HOST_MESSAGE = 8 * 1024 * 1024;

export interface BridgeIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream & { writableLength?: number };
  env: NodeJS.ProcessEnv;
  /** The `mado` script that runs the verbs. */
  script: string;
  version: string;
}

export function runBridge(io: BridgeIo): Promise<void> {
  const children = new Map<number, ChildProcess>();
  const hosts = new Map<number, Conn>();
  /** The jobs followed, by channel: each sends its newest list once the one before has had its time (listGapMs). */
  const watches = new Map<number, { stop(): void }>();
  const paused = new Set<ChildProcess>();
  let ended = false;
  const say = (ev: BridgeEvent | object): void => {
    if (ended) return;
    io.output.write(encode(ev));
    if ((io.output.writableLength ?? 0) > MAX_PENDING) {
      for (const c of children.values()) {
        if (paused.has(c)) continue;
        paused.add(c);
        c.stdout?.pause();
        c.stderr?.pause();
      }
    }
  };
  /** Host channels that wait for the other side to read (they read no more from their host meanwhile). */
  const blocked = new Set<() => void>();
  const over = (): boolean => (io.output.writableLength ?? 0) > MAX_PENDING;
  /** Resolves once what waits for the other side is under MAX_PENDING again, or the bridge ends. */
  const drained = (): Promise<void> =>
    over() && !ended ? new Promise((resolve) => blocked.add(resolve)) : Promise.resolve();
  io.output.on('drain', () => {
    for (const c of paused) {
      c.stdout?.resume();
      c.stderr?.resume();
    }
    paused.clear();
    for (const go of blocked) go();
    blocked.clear();
  });
  const open = (): number => children.size + hosts.size + watches.size + asking.size;

  const verb = (req: Extract<BridgeRequest, { op: 'verb' }>): void => {
    const child = spawn(process.execPath, [io.script, ...req.argv], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // This side's environment, and what the other side's job named of its own (never MadoHub's settings).
      env: verbEnv(io.env, req),
      cwd: req.cwd ? expandHome(req.cwd, io.env) : undefined,
    });
    children.set(req.ch, child);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (data: string) => say({ type: 'out', ch: req.ch, fd: 1, data }));
    child.stderr!.on('data', (data: string) => say({ type: 'out', ch: req.ch, fd: 2, data }));
    child.stdin!.on('error', () => {
      // It ended before reading: its exit tells.
    });
    child.stdin!.end(req.stdin ?? '');
    let exited = false;
    const exit = (code: number): void => {
      if (exited) return;
      exited = true;
      children.delete(req.ch);
      paused.delete(child);
      say({ type: 'exit', ch: req.ch, code });
    };
    child.once('error', (err) => {
      say({ type: 'out', ch: req.ch, fd: 2, data: `mado bridge: cannot run mado: ${err.message}\n` });
      exit(127);
    });
    // 'close': its output has all been read by then.
    child.once('close', (code, signal) => exit(code ?? (signal ? 128 + 9 : 1)));
  };

  /** Daemon requests under way, by channel (a channel counts as open while its answer is awaited). */
  const asking = new Set<number>();
  /** Channel `ch`'s one answer, to come: it counts as open until `answer` says it, then closes. */
  const answerOnce = (ch: number): ((msg: object) => void) => {
    asking.add(ch);
    return (msg) => {
      asking.delete(ch);
      say({ type: 'msg', ch, msg: { ...msg, proto: PROTO } });
      say({ type: 'closed', ch });
    };
  };
  const daemon = async (req: Extract<BridgeRequest, { op: 'daemon' }>): Promise<void> => {
    const answer = answerOnce(req.ch);
    const request = daemonRequestThere(req, io.env);
    if (typeof request === 'string') return answer({ type: 'error', error: request });
    try {
      answer(await localDaemon(quietIo(io.env, io.script))(request, SERVICE_MS[request.op]));
    } catch (err) {
      answer({ type: 'error', error: err instanceof Error ? err.message : String(err) });
    }
  };

  /** An operation of this machine's registry, run here as `mado NAME` runs it: its result is data. */
  const run = async (req: Extract<BridgeRequest, { op: 'run' }>): Promise<void> => {
    const answer = answerOnce(req.ch);
    const op = opNamed(req.name);
    if (!op) return answer({ type: 'error', error: `mado ${io.version} has no operation ${JSON.stringify(req.name)}` });
    try {
      answer({ type: 'result', result: await op.run({ io: quietIo(io.env, io.script) }, req.args) });
    } catch (err) {
      answer({ type: 'error', error: err instanceof Error ? err.message : String(err) });
    }
  };

  const host = async (req: Extract<BridgeRequest, { op: 'host' }>): Promise<void> => {
    const dir = jobsDir(io.env);
    const m = findJob(dir, req.id);
    if (!m.ok) return say({ type: 'msg', ch: req.ch, msg: { type: 'error', error: m.error, proto: PROTO } });
    const info = readHostInfo(path.join(dir, m.short));
    if (!info || !hostRuns(info))
      return say({
        type: 'msg',
        ch: req.ch,
        msg: {
          type: 'error',
          error: `job ${m.short} is not running (mado respawn ${m.short} starts it again)`,
          proto: PROTO,
        },
      });
    let conn: Conn;
    let hello: object;
    try {
      ({ conn, hello } = await Conn.open(info.socket, undefined, MAX_HOST_MESSAGE));
    } catch (err) {
      return say({
        type: 'closed',
        ch: req.ch,
        error: `cannot reach the host of job ${m.short}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
    if (ended) return conn.close();
    hosts.set(req.ch, conn);
    say({ type: 'msg', ch: req.ch, msg: hello });
    for (;;) {
      // A slow reader there pauses the source here: the job's host is not read (its socket fills, and it
      // bounds what waits for a client), nothing piles up in this process.
      await drained();
      if (ended) return;
      try {
        const reply = await conn.next(0);
        say({ type: 'msg', ch: req.ch, msg: reply });
      } catch (err) {
        if (hosts.delete(req.ch))
          say({
            type: 'closed',
            ch: req.ch,
            ...(err instanceof ReachError && err.reason !== 'closed' ? { error: err.message } : {}),
          });
        return;
      }
    }
  };

  const handle = (req: BridgeRequest): void => {
    switch (req.op) {
      case 'ping':
        return say({ type: 'pong', ch: 0 });
      case 'list':
        void listedJobs(jobsDir(io.env)).then(
          (jobs) => say({ type: 'jobs', ch: req.ch, jobs }),
          (err: unknown) =>
            say({
              type: 'closed',
              ch: req.ch,
              error: `cannot list the jobs: ${err instanceof Error ? err.message : String(err)}`,
            }),
        );
        return;
      case 'watch': {
        if (open() >= MAX_CHANNELS)
          return say({ type: 'closed', ch: req.ch, error: `${MAX_CHANNELS} channels are open` });
        let stopped = false;
        let sentJobs = 0;
        const newest = newestPaced(
          (jobs: ListedJob[]) => {
            if (stopped) return;
            sentJobs = jobs.length;
            say({ type: 'jobs', ch: req.ch, jobs });
          },
          () => listGapMs(sentJobs),
        );
        const watch = new JobsWatch(jobsDir(io.env), (jobs) => newest.put(jobs), { debug: () => undefined });
        watches.set(req.ch, {
          stop: () => {
            stopped = true;
            newest.cancel();
            void watch.stop();
          },
        });
        watch.start();
        return;
      }
      case 'verb':
        if (open() >= MAX_CHANNELS)
          return say({ type: 'closed', ch: req.ch, error: `${MAX_CHANNELS} channels are open` });
        return verb(req);
      case 'host':
        if (open() >= MAX_CHANNELS)
          return say({ type: 'closed', ch: req.ch, error: `${MAX_CHANNELS} channels are open` });
        void host(req);
        return;
      case 'daemon':
        if (open() >= MAX_CHANNELS)
          return say({ type: 'closed', ch: req.ch, error: `${MAX_CHANNELS} channels are open` });
        void daemon(req);
        return;
      case 'run':
        if (open() >= MAX_CHANNELS)
          return say({ type: 'closed', ch: req.ch, error: `${MAX_CHANNELS} channels are open` });
        void run(req);
        return;
      case 'msg':
        hosts.get(req.ch)?.send(req.msg);
        return;
      case 'close': {
        children.get(req.ch)?.kill('SIGTERM');
        const conn = hosts.get(req.ch);
        hosts.delete(req.ch);
        conn?.close();
        watches.get(req.ch)?.stop();
        watches.delete(req.ch);
        return;
      }
    }
  };

  say({ type: 'hello', role: 'bridge', pid: process.pid, version: io.version, ops: BRIDGE_OPS });
  const decoder = new LineDecoder(MAX_LINK_MESSAGE);
  return new Promise((resolve) => {
    const finish = (why?: string): void => {
      if (ended) return;
      if (why) say({ type: 'closed', ch: 0, error: why });
      ended = true;
      for (const go of blocked) go();
      blocked.clear();
      for (const c of children.values()) c.kill('SIGTERM');
      for (const c of hosts.values()) c.close();
      for (const w of watches.values()) w.stop();
      io.input.removeAllListeners('data');
      resolve();
    };
    io.input.setEncoding?.('utf8');
    io.input.on('data', (chunk: string | Buffer) => {
      let messages: unknown[];
      try {
        messages = decoder.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        for (const m of messages) checkProto(m, 'the other side');
      } catch (err) {
        return finish(err instanceof Error ? err.message : String(err));
      }
      for (const m of messages) {
        const req = parseBridgeRequest(m);
        if (typeof req === 'string') return finish(req);
        handle(req);
      }
    });
    io.input.once('end', () => finish());
    io.input.once('error', () => finish());
  });
}

/**
 * A daemon request from the other side, as this machine's daemon takes it, or why it is none: one
 * of the job service's (SERVICE_OPS), its agent's variables this machine's (and those the job
 * names of the other side's), a dispatch's empty folder the host's `cwd` there, else this one's.
 */
export function daemonRequestThere(
  op: Extract<BridgeRequest, { op: 'daemon' }>,
  env: NodeJS.ProcessEnv,
): ServiceRequest | string {
  const name = typeof op.req.op === 'string' ? op.req.op : '';
  if (!Object.hasOwn(SERVICE_MS, name))
    return `the daemon is asked for ${JSON.stringify(name.slice(0, 20))} through a link: only ${SERVICE_OPS.join(', ')}`;
  const filled: Record<string, unknown> = { ...op.req };
  if (name === 'dispatch' || name === 'respawn') filled.env = jobEnv(verbEnv(env, { env: op.env }));
  if (name === 'dispatch' && filled.cwd === '')
    filled.cwd = op.cwd ? path.resolve(expandHome(op.cwd, env)) : process.cwd();
  const request = parseDaemonRequest(filled);
  if (typeof request === 'string') return request;
  return isServiceRequest(request) ? request : `the daemon is asked for ${request.op} through a link`;
}

/**
 * A verb's environment: this side's, with what the other side's job names of its own (never MadoHub's
 * settings), those names added to the job's ($MADOHUB_JOB_ENV) so that its job gets them.
 */
function verbEnv(
  env: NodeJS.ProcessEnv,
  req: Pick<Extract<BridgeRequest, { op: 'verb' }>, 'env' | 'as'>,
): NodeJS.ProcessEnv {
  const crossed = Object.entries(req.env ?? {}).filter(([k]) => !k.startsWith('MADOHUB_'));
  const named = [env.MADOHUB_JOB_ENV, ...crossed.map(([k]) => k)].filter(Boolean).join(',');
  return {
    ...env,
    ...Object.fromEntries(crossed),
    ...(named ? { MADOHUB_JOB_ENV: named } : {}),
    ...(req.as ? { MADOHUB_VIA_HOST: req.as } : {}),
  };
}

/**
 * `mado bridge --check`: what this machine offers a link, as one JSON line for `mado host check` on
 * the other side: this mado's version and protocol, whether node-pty loads, the daemon, the jobs
 * and their agents (the first CHECK_AGENTS).
 */
export async function bridgeCheck(io: Pick<BridgeIo, 'env' | 'script' | 'version'>): Promise<string> {
  const pty = checkNodePty(path.resolve(path.dirname(io.script), '..'));
  let daemon: string;
  try {
    daemon = (await socketLive(daemonSocket(runtimeDir(io.env)))) ? 'running' : 'not running (it starts on first use)';
  } catch (err) {
    daemon = `cannot be reached: ${err instanceof Error ? err.message : String(err)}`;
  }
  // Its jobs (one a folder), and their agents in `mado agents`' order and words: the first CHECK_AGENTS.
  const listed = (await listedJobs(jobsDir(io.env))).sort(byCreation);
  const agents: CheckedAgent[] = listed
    .slice(0, CHECK_AGENTS)
    .map((j) => ({ id: j.short, agent: j.agent, state: agentStateOfJob(j), name: j.name.slice(0, 80) }));
  return JSON.stringify({
    version: io.version,
    proto: PROTO,
    pty: pty.ok ? 'ok' : pty.error,
    daemon,
    jobs: listed.length,
    agents,
  });
}

/** `~` and `~/…` as the other side's home: a folder given in hosts.json is written for that side. */
function expandHome(dir: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? '';
  if (dir === '~') return home;
  return dir.startsWith('~/') ? path.join(home, dir.slice(2)) : dir;
}
