// One PTY host per job: owns the agent's PTY, keeps a screen model of it (@xterm/headless), runs the
// detectors on it and writes what they say to the job's state.json, keeps the recent output, and
// serves attach/logs/stop/kill on its own socket. It runs in its own session, so that the job
// outlives the daemon, Neovim and the terminal that started it.
import { appendFileSync, chmodSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import path from 'node:path';
import { Terminal } from '@xterm/headless';
import type { IPty } from 'node-pty';
import { detect } from '../detect/index.js';
import type { Detection } from '../detect/index.js';
import { ProcessTree } from '../proc/tree.js';
import { codexHome, findRollout, readMeta } from '../records/codex.js';
import type { HostInfo } from './hostinfo.js';
import { appendEntry } from './joblog.js';
import { hostSocket, runtimeDir } from './paths.js';
import { checkProto, encode, LineDecoder } from './protocol.js';
import { jobPatch } from './screen.js';
import { updateJob, writeAtomic } from './store.js';
import type { JobState } from './types.js';

/** What the daemon hands a host: `<job>/launch.json`. */
export interface Launch {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** A prompt to type once the agent is up (templates whose prompt is not an argument). */
  typePrompt?: string;
  /** Started with no prompt and no agent: blocked on the user until it first works. */
  awaitingPrompt?: boolean;
}

export const RING_BYTES = 256 * 1024;
export const LOG_MAX_BYTES = 8 * 1024 * 1024;
const DETECT_MS = 100;
/** Detaches an attached client (Ctrl-]). */
export const DETACH_KEY = '\x1d';

function screenOf(term: Terminal): { lines: string[]; cursor: number } {
  const b = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < term.rows; i++) lines.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  const cursor = b.cursorY;
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return { lines, cursor };
}

export async function runHost(jobsDir: string, short: string): Promise<void> {
  const jobDir = path.join(jobsDir, short);
  const hostLog = path.join(jobDir, 'host.log');
  const say = (m: string): void => appendEntry(hostLog, m);
  const launch = JSON.parse(readFileSync(path.join(jobDir, 'launch.json'), 'utf8')) as Launch;
  const pty = (await import('node-pty')) as typeof import('node-pty');

  const term = new Terminal({ cols: launch.cols, rows: launch.rows, scrollback: 1000, allowProposedApi: true });
  let title = '';
  term.onTitleChange((t) => {
    title = t;
  });

  let child: IPty;
  try {
    child = pty.spawn(launch.argv[0]!, launch.argv.slice(1), {
      name: 'xterm-256color',
      cols: launch.cols,
      rows: launch.rows,
      cwd: launch.cwd,
      env: { ...launch.env, TERM: 'xterm-256color' },
    });
  } catch (err) {
    const detail = `could not start ${launch.argv[0]}: ${err instanceof Error ? err.message : String(err)}`;
    updateJob(jobsDir, short, { state: 'errored', tempo: 'idle', detail });
    say(detail);
    return;
  }
  const socketPath = hostSocket(runtimeDir(), short);
  const info: HostInfo = { proto: 1, pid: process.pid, ptyPid: child.pid, socket: socketPath, startedAt: Date.now() };
  say(`started ${launch.argv.join(' ')} pid ${child.pid}`);

  // Recent output: a bounded ring in memory, and a log file that is rotated at LOG_MAX_BYTES.
  let ring = '';
  const logFile = path.join(jobDir, 'output.log');
  const log = (data: string): void => {
    ring = (ring + data).slice(-RING_BYTES);
    try {
      if ((statSync(logFile, { throwIfNoEntry: false })?.size ?? 0) > LOG_MAX_BYTES) renameSync(logFile, `${logFile}.1`);
      appendFileSync(logFile, data);
    } catch (err) {
      say(`output.log: ${String(err)}`);
    }
  };

  const clients = new Set<Socket>();
  let previous: Pick<Detection, 'agent' | 'state'> | undefined;
  let written = '';
  let detectTimer: NodeJS.Timeout | undefined;
  let prompted = launch.typePrompt === undefined;
  let stopRequested = false;
  let awaitingPrompt = launch.awaitingPrompt === true;

  // Codex cannot be told a session id: its rollout names the one to resume (issue 3's matching).
  let codexSession: string | undefined;
  let codexLookedAt = 0;
  const tree = new ProcessTree();
  const learnCodexSession = (): void => {
    if (codexSession || Date.now() - codexLookedAt < 2000) return;
    codexLookedAt = Date.now();
    const pids = tree.walk(child.pid).map((p) => p.pid);
    const rollout = findRollout(codexHome(launch.env), { pids, cwd: launch.cwd, startedAt: info.startedAt - 1000 }, new Set());
    const id = rollout ? readMeta(rollout)?.sessionId : undefined;
    if (!id) return;
    codexSession = id;
    updateJob(jobsDir, short, { resumeSessionId: id });
    say(`codex session ${id} (${rollout})`);
  };

  const runDetect = (): void => {
    detectTimer = undefined;
    const { lines, cursor } = screenOf(term);
    const d = detect({ lines, title, cursor }, previous);
    previous = { agent: d.agent, state: d.state };
    if (d.agent === 'codex') {
      try {
        learnCodexSession();
      } catch (err) {
        say(`codex session: ${String(err)}`);
      }
    }
    if (!prompted && (d.state === 'idle' || d.state === 'stopped')) {
      prompted = true;
      child.write(`${launch.typePrompt}\r`);
    }
    if (d.state === 'working') awaitingPrompt = false;
    const patch: Partial<JobState> =
      awaitingPrompt && d.state !== 'waiting' ? { ...jobPatch(d, lines), tempo: 'blocked', needs: 'a prompt' } : jobPatch(d, lines);
    const key = JSON.stringify(patch);
    if (key === written) return;
    written = key;
    try {
      // A job between turns is `done` and runs again when its agent works; a stopped one stays so.
      updateJob(jobsDir, short, (job: JobState) => (!stopRequested && (job.state === 'running' || job.state === 'done') ? patch : {}));
    } catch (err) {
      say(`state.json: ${String(err)}`);
    }
  };

  child.onData((data) => {
    term.write(data, () => {
      detectTimer ??= setTimeout(runDetect, DETECT_MS);
    });
    log(data);
    const msg = encode({ type: 'output', data });
    for (const c of clients) c.write(msg);
  });

  const server = createServer((socket) => {
    const decoder = new LineDecoder();
    let attached = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      let messages: unknown[];
      try {
        messages = decoder.push(chunk);
        for (const m of messages) checkProto(m, 'this client');
      } catch (err) {
        socket.end(encode({ type: 'error', error: err instanceof Error ? err.message : String(err) }));
        return;
      }
      for (const raw of messages) {
        const m = raw as { op?: string; data?: string; cols?: number; rows?: number };
        if (m.op === 'attach' || m.op === 'resize') {
          if (m.cols && m.rows && (m.cols !== term.cols || m.rows !== term.rows)) {
            child.resize(m.cols, m.rows);
            term.resize(m.cols, m.rows);
          }
          if (m.op === 'attach' && !attached) {
            attached = true;
            const { lines } = screenOf(term);
            const b = term.buffer.active;
            socket.write(encode({ type: 'screen', lines, title, cursor: { x: b.cursorX, y: b.cursorY } }));
            clients.add(socket);
          }
        } else if (m.op === 'input' && typeof m.data === 'string') {
          child.write(m.data);
        } else if (m.op === 'logs') {
          socket.end(encode({ type: 'logs', data: ring }));
        } else if (m.op === 'status') {
          socket.end(encode({ type: 'status', ...info, clients: clients.size }));
        } else if (m.op === 'stop') {
          stopRequested = true;
          // The agent's own interrupt first, then SIGTERM, then SIGKILL.
          child.write('\x03');
          setTimeout(() => child.kill('SIGTERM'), 1000).unref();
          setTimeout(() => child.kill('SIGKILL'), 4000).unref();
          socket.end(encode({ type: 'ok' }));
        } else if (m.op === 'kill') {
          stopRequested = true;
          child.kill('SIGKILL');
          socket.end(encode({ type: 'ok' }));
        } else {
          socket.end(encode({ type: 'error', error: `unknown op ${String(m.op)}` }));
        }
      }
    });
    socket.on('close', () => clients.delete(socket));
    socket.on('error', () => clients.delete(socket));
  });

  try {
    unlinkSync(socketPath);
  } catch {
    // No stale socket.
  }
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  chmodSync(socketPath, 0o600);
  writeAtomic(path.join(jobDir, 'host.json'), JSON.stringify(info));

  child.onExit(({ exitCode, signal }) => {
    const now = Date.now();
    // Tells a dispatch of the same id, while the last state is written, that this session is ending.
    writeAtomic(path.join(jobDir, 'host.json'), JSON.stringify({ ...info, endedAt: now }));
    if (detectTimer) clearTimeout(detectTimer);
    runDetect();
    const end: Partial<JobState> = stopRequested
      ? { state: 'stopped', detail: 'stopped' }
      : exitCode === 0
        ? { state: 'done' }
        : { state: 'errored', detail: `exited with status ${exitCode}${signal ? ` (signal ${signal})` : ''}` };
    try {
      updateJob(jobsDir, short, { ...end, tempo: 'idle', needs: null, block: null });
    } catch (err) {
      say(`state.json: ${String(err)}`);
    }
    say(`exited ${exitCode} signal ${signal ?? 0}`);
    const bye = encode({ type: 'exit', code: exitCode });
    for (const c of clients) c.end(bye);
    server.close();
    try {
      unlinkSync(path.join(jobDir, 'host.json'));
    } catch {
      // Already gone.
    }
    setTimeout(() => process.exit(0), 200).unref();
  });
}

/** Writes the launch file of a job (the daemon, before it starts the host). */
export function writeLaunch(jobDir: string, launch: Launch): void {
  writeFileSync(path.join(jobDir, 'launch.json'), JSON.stringify(launch), { mode: 0o600 });
}
