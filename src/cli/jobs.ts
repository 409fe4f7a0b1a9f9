// The job verbs of `mado`: --bg, agents, logs, attach, stop, kill, respawn, rm.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from '../jobs/client.js';
import type { Reply } from '../jobs/client.js';
import type { DispatchRequest } from '../jobs/daemon.js';
import { socketLive } from '../jobs/daemon.js';
import { DETACH_KEY } from '../jobs/host.js';
import { hostAlive, readHostInfo } from '../jobs/hostinfo.js';
import { matchId, newSessionId, newShortId } from '../jobs/ids.js';
import { startDetached } from '../jobs/detached.js';
import { lastEntry } from '../jobs/joblog.js';
import { daemonSocket, runtimeDir } from '../jobs/paths.js';
import { encode, LineDecoder } from '../jobs/protocol.js';
import { jobsDir, listJobs } from '../jobs/store.js';
import type { JobState } from '../jobs/types.js';
import { agents } from './agents.js';
import { hintBlock, parseBgArgs, withStdin } from './bg.js';
import { UsageError } from './detect.js';
import { agentViewDisabled } from './switch.js';

/** A failure the CLI reports with exit status 1 (not a usage error). */
export class JobError extends Error {}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdin(): string | undefined;
  env: NodeJS.ProcessEnv;
  /** The `mado` script (to start the daemon with). */
  script: string;
}

/** The daemon's socket, starting the daemon (detached) when none answers. */
async function daemon(io: Io): Promise<string> {
  let runtime: string;
  let sock: string;
  try {
    runtime = runtimeDir(io.env);
    sock = daemonSocket(runtime);
  } catch (err) {
    throw new JobError(`cannot reach the mado daemon: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (await socketLive(sock)) return sock;
  const started = startDetached(io.script, ['__daemon'], io.env);
  // A cold start (node-pty and the terminal emulator read from a cold disk, a busy machine) can take
  // seconds; a daemon that dies is told at once. One that leaves because another won the race is fine.
  const deadline = Date.now() + daemonStartMs(io.env);
  while (started.ended() === undefined && Date.now() < deadline) {
    await sleep(30);
    if (await socketLive(sock)) return sock;
  }
  if (await socketLive(sock)) return sock;
  const log = path.join(runtime, 'daemon.log');
  const why = lastEntry(log);
  const ended = started.ended();
  throw new JobError(
    `cannot reach the mado daemon at ${sock}: it did not start` +
      (ended ? ` (it ${ended}${why ? `; its log says: ${why}` : ''})` : ` in ${daemonStartMs(io.env)} ms`) +
      `. See ${log}, or run \`node ${io.script} __daemon\` in a terminal to see its errors.`,
  );
}

/** How long a client waits for a daemon it started to listen (`$MADOHUB_DAEMON_START_MS`, for tests). */
const daemonStartMs = (env: NodeJS.ProcessEnv): number => Number(env.MADOHUB_DAEMON_START_MS) || 20000;

/** How long a dispatch waits for the daemon's answer (`$MADOHUB_ACK_MS`, for tests). */
const ackMs = (env: NodeJS.ProcessEnv): number => Number(env.MADOHUB_ACK_MS) || 30000;

async function ask(io: Io, message: object, timeoutMs = ackMs(io.env)): Promise<Reply> {
  let reply: Reply | undefined;
  for (let attempt = 0; !reply; attempt++) {
    const sock = await daemon(io);
    try {
      reply = await request(sock, message, timeoutMs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ETIMEDOUT') throw err;
      // Not delivered: the daemon left (idle) between the check and the request. Once more, with a new one.
      if ((code === 'ENOENT' || code === 'ECONNREFUSED') && attempt === 0) continue;
      throw new JobError(`cannot reach the mado daemon at ${sock}: ${err instanceof Error ? err.message : String(err)}. See ${path.join(path.dirname(sock), 'daemon.log')}.`);
    }
  }
  if (reply.type === 'error') throw new JobError(String(reply.error));
  return reply;
}

/** A job's short id from an id or a unique prefix (read from the job folders, no daemon needed). */
function resolveId(io: Io, query: string | undefined): string {
  if (!query) throw new UsageError('a job id is needed');
  const m = matchId(listJobs(jobsDir(io.env)).map((v) => v.job.short), query);
  if (!m.ok) throw new JobError(m.error);
  return m.short;
}

async function bg(io: Io, argv: string[]): Promise<void> {
  const args = withStdin(parseBgArgs(argv), io.stdin());
  for (const w of args.warnings) io.err(`mado: ${w}\n`);
  const short = newShortId();
  const request: DispatchRequest = {
    op: 'dispatch',
    short,
    sessionId: newSessionId(),
    createdAt: Date.now(),
    source: 'shell',
    cwd: process.cwd(),
    launch:
      args.resume?.mode === 'id'
        ? { mode: 'resume', sessionId: args.resume.id, fork: args.forkSession, flagArgs: [] }
        : { mode: 'prompt', args: args.prompt ? [args.prompt] : [] },
    respawnFlags: args.resume?.mode === 'continue' ? ['--continue'] : [],
    env: io.env as Record<string, string>,
    worktree: args.worktree,
    agent: args.agent,
    seed: { intent: args.prompt, name: args.name },
    cols: process.stdout.columns,
    rows: process.stdout.rows,
  };
  let reply: Reply | undefined;
  for (let attempt = 0; attempt < 2 && !reply; attempt++) {
    try {
      reply = await ask(io, request);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ETIMEDOUT') throw err;
      // No ack in time: a success if the job is listed; else try once more.
      const listed = await ask(io, { op: 'list' });
      if ((listed.jobs as JobState[]).some((j) => j.short === short)) reply = { type: 'ok', short };
    }
  }
  if (!reply) throw new JobError(`the daemon did not answer the dispatch of ${short}`);
  if (typeof reply.warning === 'string') io.err(`mado: ${reply.warning}\n`);
  io.out(hintBlock(short));
}

async function logs(io: Io, argv: string[]): Promise<void> {
  const short = resolveId(io, argv[0]);
  const jobDir = path.join(jobsDir(io.env), short);
  const info = readHostInfo(jobDir);
  if (info && hostAlive(jobDir)) {
    const reply = await request(info.socket, { op: 'logs' });
    io.out(String(reply.data ?? ''));
    return;
  }
  try {
    io.out(readFileSync(path.join(jobDir, 'output.log'), 'utf8').slice(-256 * 1024));
  } catch {
    io.out('');
  }
}

/** `mado attach ID`: the job's screen in this terminal; Ctrl-] detaches and leaves it running. */
async function attach(io: Io, argv: string[]): Promise<void> {
  const short = resolveId(io, argv[0]);
  const jobDir = path.join(jobsDir(io.env), short);
  const info = readHostInfo(jobDir);
  if (!info || !hostAlive(jobDir)) throw new JobError(`job ${short} is not running (mado respawn ${short} starts it again)`);
  await new Promise<void>((resolve, reject) => {
    const socket = connect(info.socket);
    const decoder = new LineDecoder();
    const stdin = process.stdin;
    const size = (): { cols: number; rows: number } => ({ cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 });
    const done = (): void => {
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      process.stdout.off('resize', onResize);
      socket.end();
      resolve();
    };
    const onResize = (): void => {
      socket.write(encode({ op: 'resize', ...size() }));
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(encode({ op: 'attach', ...size() }));
      if (stdin.isTTY) stdin.setRawMode(true);
      stdin.resume();
      stdin.on('data', (d: Buffer) => {
        const text = d.toString('utf8');
        const cut = text.indexOf(DETACH_KEY);
        if (cut >= 0) {
          if (cut > 0) socket.write(encode({ op: 'input', data: text.slice(0, cut) }));
          io.err(`\r\n[detached from ${short}; it keeps running]\r\n`);
          done();
          return;
        }
        socket.write(encode({ op: 'input', data: text }));
      });
      process.stdout.on('resize', onResize);
    });
    socket.on('data', (chunk: string) => {
      for (const raw of decoder.push(chunk)) {
        const m = raw as { type: string; data?: string; lines?: string[]; cursor?: { x: number; y: number }; code?: number };
        if (m.type === 'screen') {
          io.out(`\x1b[H\x1b[2J${(m.lines ?? []).join('\r\n')}\x1b[${(m.cursor?.y ?? 0) + 1};${(m.cursor?.x ?? 0) + 1}H`);
        } else if (m.type === 'output') {
          io.out(m.data ?? '');
        } else if (m.type === 'exit') {
          io.err(`\r\n[${short} exited with status ${m.code ?? '?'}]\r\n`);
          done();
        }
      }
    });
    socket.on('error', (err) => reject(new JobError(`cannot attach to ${short}: ${err.message}`)));
    socket.on('close', () => done());
  });
}

async function simple(io: Io, op: 'stop' | 'kill' | 'respawn', argv: string[]): Promise<void> {
  const short = resolveId(io, argv[0]);
  await ask(io, { op, short });
  const word = { stop: 'stopping', kill: 'killed', respawn: 'respawned' }[op];
  io.out(`${word} ${short}\n`);
}

async function rm(io: Io, argv: string[]): Promise<void> {
  const force = argv.includes('--force') || argv.includes('-f');
  const short = resolveId(io, argv.find((a) => !a.startsWith('-')));
  await ask(io, { op: 'remove', short, force });
  io.out(`removed ${short}\n`);
}

export const JOB_VERBS = ['--bg', '--background', 'agents', 'logs', 'attach', 'stop', 'kill', 'respawn', 'rm'];

/** Runs a job verb. */
export async function runJobVerb(io: Io, verb: string, argv: string[]): Promise<void> {
  if (agentViewDisabled(io.env)) {
    throw new JobError('the agent view is off (MADOHUB_DISABLE_AGENT_VIEW=1 or agent_view = false in settings.json)');
  }
  switch (verb) {
    case '--bg':
    case '--background':
      return bg(io, argv);
    case 'agents':
      return agents(io.env, io.out, argv);
    case 'logs':
      return logs(io, argv);
    case 'attach':
      return attach(io, argv);
    case 'stop':
    case 'kill':
    case 'respawn':
      return simple(io, verb, argv);
    case 'rm':
      return rm(io, argv);
    default:
      throw new UsageError(`unknown command '${verb}'`);
  }
}
