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
import { JobsWatch, wholeLists } from '../fleet/jobs-watch.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { newestPaced } from '../shared/debounce.js';
import { agentStateOfJob } from '../fleet/entry.js';
import { byCreation } from '../fleet/job-table.js';
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

/** `mado bridge` on its standard input and output: serves the other side until its input ends. */
export function runBridge(io: BridgeIo): Promise<void> {
  return new Bridge(io).serve();
}

/** A bridge: the requests of the other side, each on its channel, and what it started for them. */
class Bridge {
  /** Verbs running, by channel. */
  private readonly children = new Map<number, ChildProcess>();
  /** Connections to jobs' hosts, by channel. */
  private readonly hosts = new Map<number, Conn>();
  /** The jobs followed, by channel: each sends its newest list once the one before has had its time (listGapMs). */
  private readonly watches = new Map<number, { stop(): void }>();
  /** Daemon requests and operations under way, by channel (open while their answer is awaited). */
  private readonly asking = new Set<number>();
  /** Verbs whose output is paused while the other side reads. */
  private readonly paused = new Set<ChildProcess>();
  /** Host channels that wait for the other side to read (they read no more from their host meanwhile). */
  private readonly blocked = new Set<() => void>();
  private ended = false;

  constructor(private readonly io: BridgeIo) {
    io.output.on('drain', () => {
      for (const c of this.paused) {
        c.stdout?.resume();
        c.stderr?.resume();
      }
      this.paused.clear();
      for (const go of this.blocked) go();
      this.blocked.clear();
    });
  }

  /** Says hello, then serves each request as it comes, until the input ends or breaks the protocol. */
  serve(): Promise<void> {
    const { io } = this;
    this.say({ type: 'hello', role: 'bridge', pid: process.pid, version: io.version, ops: BRIDGE_OPS });
    const decoder = new LineDecoder(MAX_LINK_MESSAGE);
    return new Promise((resolve) => {
      const finish = (why?: string): void => {
        if (this.ended) return;
        if (why) this.say({ type: 'closed', ch: 0, error: why });
        this.end();
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
          this.handle(req);
        }
      });
      io.input.once('end', () => finish());
      io.input.once('error', () => finish());
    });
  }

  /** Ends what it started for the other side (the jobs run on under this machine's daemon). */
  private end(): void {
    this.ended = true;
    for (const go of this.blocked) go();
    this.blocked.clear();
    for (const c of this.children.values()) c.kill('SIGTERM');
    for (const c of this.hosts.values()) c.close();
    for (const w of this.watches.values()) w.stop();
  }

  /** Sends a message; past MAX_PENDING unread, the verbs' output is paused until the other side reads. */
  private say(ev: BridgeEvent | object): void {
    if (this.ended) return;
    this.io.output.write(encode(ev));
    if (!this.over()) return;
    for (const c of this.children.values()) {
      if (this.paused.has(c)) continue;
      this.paused.add(c);
      c.stdout?.pause();
      c.stderr?.pause();
    }
  }

  private over(): boolean {
    return (this.io.output.writableLength ?? 0) > MAX_PENDING;
  }

  /** Resolves once what waits for the other side is under MAX_PENDING again, or the bridge ends. */
  private drained(): Promise<void> {
    return this.over() && !this.ended ? new Promise((resolve) => this.blocked.add(resolve)) : Promise.resolve();
  }

  /** How many channels are open. */
  private open(): number {
    return this.children.size + this.hosts.size + this.watches.size + this.asking.size;
  }

  private handle(req: BridgeRequest): void {
    switch (req.op) {
      case 'ping':
        return this.say({ type: 'pong', ch: 0 });
      case 'list':
        return this.list(req.ch);
      case 'msg':
        this.hosts.get(req.ch)?.send(req.msg);
        return;
      case 'close':
        return this.close(req.ch);
    }
    // The others open a channel: at most MAX_CHANNELS at once.
    if (this.open() >= MAX_CHANNELS)
      return this.say({ type: 'closed', ch: req.ch, error: `${MAX_CHANNELS} channels are open` });
    switch (req.op) {
      case 'watch':
        return this.watch(req.ch);
      case 'verb':
        return this.verb(req);
      case 'host':
        void this.host(req);
        return;
      case 'daemon':
        void this.daemon(req);
        return;
      case 'run':
        void this.run(req);
        return;
    }
  }

  /** Lists this machine's jobs once. */
  private list(ch: number): void {
    void listedJobs(jobsDir(this.io.env)).then(
      (jobs) => this.say({ type: 'jobs', ch, jobs }),
      (err: unknown) =>
        this.say({
          type: 'closed',
          ch,
          error: `cannot list the jobs: ${err instanceof Error ? err.message : String(err)}`,
        }),
    );
  }

  /** Follows this machine's jobs: their list now and after each change, paced. */
  private watch(ch: number): void {
    let stopped = false;
    let sentJobs = 0;
    const newest = newestPaced(
      (jobs: ListedJob[]) => {
        if (stopped) return;
        sentJobs = jobs.length;
        this.say({ type: 'jobs', ch, jobs });
      },
      () => listGapMs(sentJobs),
    );
    const watch = new JobsWatch(
      jobsDir(this.io.env),
      wholeLists((jobs) => newest.put(jobs)),
      { debug: () => undefined },
    );
    this.watches.set(ch, {
      stop: () => {
        stopped = true;
        newest.cancel();
        void watch.stop();
      },
    });
    watch.start();
  }

  /** Closes a channel: its verb ended, its host connection closed, its watch stopped. */
  private close(ch: number): void {
    this.children.get(ch)?.kill('SIGTERM');
    const conn = this.hosts.get(ch);
    this.hosts.delete(ch);
    conn?.close();
    this.watches.get(ch)?.stop();
    this.watches.delete(ch);
  }

  /** Runs `mado VERB …` here: its output as it comes, then its exit status. */
  private verb(req: Extract<BridgeRequest, { op: 'verb' }>): void {
    const { io } = this;
    const child = spawn(process.execPath, [io.script, ...req.argv], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // This side's environment, and what the other side's job named of its own (never MadoHub's settings).
      env: verbEnv(io.env, req),
      cwd: req.cwd ? expandHome(req.cwd, io.env) : undefined,
    });
    this.children.set(req.ch, child);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (data: string) => this.say({ type: 'out', ch: req.ch, fd: 1, data }));
    child.stderr!.on('data', (data: string) => this.say({ type: 'out', ch: req.ch, fd: 2, data }));
    child.stdin!.on('error', () => {
      // It ended before reading: its exit tells.
    });
    child.stdin!.end(req.stdin ?? '');
    let exited = false;
    const exit = (code: number): void => {
      if (exited) return;
      exited = true;
      this.children.delete(req.ch);
      this.paused.delete(child);
      this.say({ type: 'exit', ch: req.ch, code });
    };
    child.once('error', (err) => {
      this.say({ type: 'out', ch: req.ch, fd: 2, data: `mado bridge: cannot run mado: ${err.message}\n` });
      exit(127);
    });
    // 'close': its output has all been read by then.
    child.once('close', (code, signal) => exit(code ?? (signal ? 128 + 9 : 1)));
  }

  /** Channel `ch`'s one answer, to come: it counts as open until `answer` says it, then closes. */
  private answerOnce(ch: number): (msg: object) => void {
    this.asking.add(ch);
    return (msg) => {
      this.asking.delete(ch);
      this.say({ type: 'msg', ch, msg: { ...msg, proto: PROTO } });
      this.say({ type: 'closed', ch });
    };
  }

  /** One request of the job service for this machine's daemon: its reply, as it gave it. */
  private async daemon(req: Extract<BridgeRequest, { op: 'daemon' }>): Promise<void> {
    const answer = this.answerOnce(req.ch);
    const request = daemonRequestThere(req, this.io.env);
    if (typeof request === 'string') return answer({ type: 'error', error: request });
    try {
      answer(await localDaemon(quietIo(this.io.env, this.io.script))(request, SERVICE_MS[request.op]));
    } catch (err) {
      answer({ type: 'error', error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** An operation of this machine's registry, run here as `mado NAME` runs it: its result is data. */
  private async run(req: Extract<BridgeRequest, { op: 'run' }>): Promise<void> {
    const { io } = this;
    const answer = this.answerOnce(req.ch);
    const op = opNamed(req.name);
    if (!op) return answer({ type: 'error', error: `mado ${io.version} has no operation ${JSON.stringify(req.name)}` });
    try {
      const cwd = req.cwd ? path.resolve(expandHome(req.cwd, io.env)) : undefined;
      answer({ type: 'result', result: await op.run({ io: quietIo(io.env, io.script), cwd }, req.args) });
    } catch (err) {
      answer({ type: 'error', error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Connects to a job's host here and passes its messages both ways, as fast as the other side reads. */
  private async host(req: Extract<BridgeRequest, { op: 'host' }>): Promise<void> {
    const dir = jobsDir(this.io.env);
    const refused = (error: string): void =>
      this.say({ type: 'msg', ch: req.ch, msg: { type: 'error', error, proto: PROTO } });
    const m = findJob(dir, req.id);
    if (!m.ok) return refused(m.error);
    const info = readHostInfo(path.join(dir, m.short));
    if (!info || !hostRuns(info))
      return refused(`job ${m.short} is not running (mado respawn ${m.short} starts it again)`);
    let conn: Conn;
    let hello: object;
    try {
      ({ conn, hello } = await Conn.open(info.socket, undefined, MAX_HOST_MESSAGE));
    } catch (err) {
      return this.say({
        type: 'closed',
        ch: req.ch,
        error: `cannot reach the host of job ${m.short}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
    if (this.ended) return conn.close();
    this.hosts.set(req.ch, conn);
    this.say({ type: 'msg', ch: req.ch, msg: hello });
    for (;;) {
      // A slow reader there pauses the source here: the job's host is not read (its socket fills, and it
      // bounds what waits for a client), nothing piles up in this process.
      await this.drained();
      if (this.ended) return;
      try {
        const reply = await conn.next(0);
        this.say({ type: 'msg', ch: req.ch, msg: reply });
      } catch (err) {
        if (this.hosts.delete(req.ch))
          this.say({
            type: 'closed',
            ch: req.ch,
            ...(err instanceof ReachError && err.reason !== 'closed' ? { error: err.message } : {}),
          });
        return;
      }
    }
  }
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
