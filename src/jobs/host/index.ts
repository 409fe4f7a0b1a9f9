// One PTY host per job: owns the agent's PTY, keeps a terminal model of it (@xterm/headless), runs
// the detectors on it and writes what they say to the job's file (job.json), keeps the recent output,
// and serves attach/text/stop/kill on its own socket. It runs in a session of its own, so that the
// job outlives the daemon, Neovim and the terminal that started it.
//
// It never dies because a write failed (the failure is told once, in host.log and in the job file
// when that can be written); it always exits once its agent has ended; it ends its agent and exits
// when its job's folder is removed under it.
import { chmodSync, existsSync, lstatSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';
import path from 'node:path';
import { Terminal } from '@xterm/headless';
import type { IPty } from 'node-pty';
import { menuAnswer } from '../../agents/menu-answer.js';
import { menuSince } from '../../detect/question.js';
import { boundScreen } from '../../detect/index.js';
import { agentModule, detectScreen, FALLBACK_AGENT } from '../../agents/index.js';
import type { AgentModule } from '../../agents/types.js';
import { pendingWord, screenVerdict } from '../../agents/reply-verdict.js';
import type { Detection } from '../../detect/index.js';
import { processStamp } from '../../proc/stamp.js';
import { processSource } from '../../proc/shared.js';
import { writeAtomic } from '../../shared/files.js';
import type { Chain } from '../chain-record.js';
import type { HostInfo } from '../hostinfo.js';
import { appendEntry } from '../joblog.js';
import { hostSocket, runtimeDir } from '../paths.js';
import { PROTO } from '../protocol/codec.js';
import { jobPatch } from '../screen.js';
import { SCROLLBACK, screenOf } from '../screen-text.js';
import { signalGroup, signalName } from '../signals.js';
import { updateJob } from '../store.js';
import type { JobState, JobStatus } from '../types.js';
import { ChainKeeper } from './chain-keeper.js';
import { readEnvFromStdin, readLaunch } from './launch.js';
import { OutputLog, outputLog } from './output-log.js';
import { serveHost } from './server.js';
import { pasteBytes } from '../../shared/paste.js';
import { ChangeWaiters } from '../../shared/change-waiters.js';

const DETECT_MS = 100;
/** How long a job started with a task reads as Working (`starting`) before its agent first works. */
const STARTING_MS = 15_000;
/** A typed task is taken when the screen still reads idle this long after it was typed. */
const TYPED_SETTLE_MS = 1000;
/** How often the host looks whether its job's folder is still there. */
const FOLDER_CHECK_MS = 1000;
/** After an interrupt, a graceful stop sends SIGTERM, then SIGKILL, to the agent's process group. */
const STOP_TERM_MS = 1000;
const STOP_KILL_MS = 4000;

/** `setpriv --pdeathsig KILL`, where util-linux has it: the agent dies with its host even when it ignores SIGHUP. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

export async function runHost(jobsDir: string, short: string): Promise<number> {
  const jobDir = path.join(jobsDir, short);
  const hostLog = path.join(jobDir, 'host.log');
  const say = (m: string): void => {
    appendEntry(hostLog, m);
  };
  const launch = readLaunch(jobDir);
  if (typeof launch === 'string') {
    say(launch);
    await updateJob(jobsDir, short, { status: 'errored', tempo: 'idle', detail: launch }).catch(() => undefined);
    return 1;
  }
  const env = await readEnvFromStdin(process.stdin);
  // Nothing that goes wrong in the host's own work may take the agent down with it.
  process.on('uncaughtException', (err) => say(`unexpected: ${err.stack ?? err.message}`));
  process.on('unhandledRejection', (err) => say(`unexpected: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));

  // A failure to write is told once per kind of file: in host.log, and as the job's `problem`, written
  // with the next change of the job file that succeeds (the disk may be full for that too).
  const told = new Set<string>();
  let untold: string | undefined;
  let retry: NodeJS.Timeout | undefined;
  /** Tries again, every second, to write a problem that could not be written (a disk that fills up frees up). */
  const retryProblem = (): void => {
    if (untold === undefined || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void writeJob({});
    }, 1000);
  };
  const writeJob = (change: Partial<JobState> | ((job: JobState) => Partial<JobState>)): Promise<void> => {
    const problem = untold;
    const withProblem = (job: JobState): Partial<JobState> => ({
      ...(typeof change === 'function' ? change(job) : change),
      ...(problem === undefined ? {} : { problem }),
    });
    return updateJob(jobsDir, short, withProblem).then(
      () => {
        told.delete('job.json');
        if (untold === problem) untold = undefined;
      },
      (err: unknown) => {
        tell('job.json', `cannot write job.json: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        retryProblem();
      },
    );
  };
  const tell = (kind: string, why: string): void => {
    if (told.has(kind)) return;
    told.add(kind);
    say(why);
    // A job file that could not be written is told in host.log only: once written, it has healed.
    if (kind === 'job.json') return;
    untold ??= why;
    void writeJob({});
  };

  const pty = (await import('node-pty')) as typeof import('node-pty');
  const term = new Terminal({ cols: launch.cols, rows: launch.rows, scrollback: SCROLLBACK, allowProposedApi: true });
  let title = '';
  term.onTitleChange((t) => {
    title = t.slice(0, 1024);
  });

  let child: IPty;
  try {
    const argv = SETPRIV ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...launch.argv] : launch.argv;
    child = pty.spawn(argv[0]!, argv.slice(1), {
      name: 'xterm-256color',
      cols: launch.cols,
      rows: launch.rows,
      cwd: launch.cwd,
      env: { ...env, TERM: 'xterm-256color' },
    });
  } catch (err) {
    const detail = `could not start ${launch.argv[0]}: ${err instanceof Error ? err.message : String(err)}`;
    say(detail);
    await writeJob({ status: 'errored', tempo: 'idle', detail });
    return 1;
  }
  const socketPath = hostSocket(runtimeDir(), short);
  const info: HostInfo = {
    proto: PROTO,
    pid: process.pid,
    pidStart: processStamp(process.pid) ?? '',
    ptyPid: child.pid,
    ptyStart: processStamp(child.pid) ?? '',
    socket: socketPath,
    startedAt: Date.now(),
  };
  say(`started ${launch.argv.join(' ').slice(0, 400)} pid ${child.pid}`);

  const output = new OutputLog(outputLog(jobDir), (why) => tell('output.log', why));
  const chain = new ChainKeeper(jobDir, say);
  /** Answers that wait for their menu, poked by each detection; since when the screen shows a menu. */
  const detected = new ChangeWaiters();
  let menuAt: number | undefined;
  let previous: Pick<Detection, 'agent' | 'state'> | undefined;
  let written = '';
  let detectTimer: NodeJS.Timeout | undefined;
  let prompted = launch.typePrompt === undefined;
  let ending: JobStatus | undefined;
  let awaitingPrompt = launch.awaitingPrompt === true;
  // Until its agent first works or asks, a job shows no finish (a resumed session's old completion
  // line is no turn of this job) and, started with a task, no Idle either (it is coming up).
  let seenWork = false;
  const startedAt = Date.now();
  let typedAt: number | undefined;

  // Codex cannot be told a session id: its rollout names the one to resume.
  // The session of an agent that cannot be given one (its module says how it is learnt), looked
  // for at most every 2 s while its screen shows it, until found.
  let learntSession: string | undefined;
  let sessionLookedAt = 0;
  const tree = processSource();
  const learnSession = (agent: AgentModule): void => {
    if (!agent.learnJobSession || learntSession || Date.now() - sessionLookedAt < 2000) return;
    sessionLookedAt = Date.now();
    const pids = tree.walk(child.pid).map((p) => p.pid);
    const found = agent.learnJobSession({ pids, cwd: launch.cwd, startedAt: info.startedAt - 1000 }, env);
    if (!found) return;
    learntSession = found.id;
    void writeJob({ resumeSessionId: found.id });
    say(`${agent.id} session ${found.id} (${found.file})`);
  };

  // A reply: pasted (bracketed when the agent asked for it), then Enter apart (a newline inside a
  // paste is text to an agent). It waits while the agent works (for the end of its turn) and while a
  // draft stands in the agent's input line (someone attached typed it), by the rule terminals follow.
  let waitingReply: { text: string; waitMenus: boolean; expires?: number; timer?: NodeJS.Timeout } | undefined;
  const deliver = (text: string): void => {
    child.write(pasteBytes(text, term.modes.bracketedPasteMode));
    setTimeout(() => child.write('\r'), 50);
  };
  /** Sends the reply that waits when it may go; drops it once it has waited too long. */
  const flushReply = (state: Detection['state'], agent: Detection['agent'], lines: readonly string[]): void => {
    const r = waitingReply;
    if (!r) return;
    const verdict = screenVerdict(state, agent, lines, r);
    if (verdict === 'send' || verdict === 'refuse' || (r.expires !== undefined && Date.now() >= r.expires)) {
      clearTimeout(r.timer);
      waitingReply = undefined;
      void writeJob({ pendingReply: null });
      if (verdict === 'send') deliver(r.text);
      else say(`a reply that waited ${verdict === 'refuse' ? 'for an agent that exited' : 'too long'} was dropped`);
    }
  };
  const send = (text: string, terms: { waitMenus?: boolean; busyMs?: number; chain?: Chain }): { pending: string } | { error: string } => {
    if (ending) return { error: 'the job is ending' };
    if (waitingReply !== undefined) return { error: 'a reply waits to be sent already' };
    const { lines } = screenOf(term);
    const verdict = screenVerdict(previous?.state ?? 'idle', previous?.agent ?? FALLBACK_AGENT, lines, terms);
    if (verdict === 'refuse') return { error: 'the agent has exited' };
    chain.replied(terms.chain);
    if (verdict === 'send') {
      deliver(text);
      return { pending: '' };
    }
    waitingReply = { text, waitMenus: terms.waitMenus === true };
    // The job's row shows that a reply waits, and why.
    void writeJob({ pendingReply: pendingWord(verdict) });
    if (terms.busyMs !== undefined) {
      waitingReply.expires = Date.now() + terms.busyMs;
      waitingReply.timer = setTimeout(() => {
        const now = screenOf(term).lines;
        flushReply(previous?.state ?? 'idle', previous?.agent ?? FALLBACK_AGENT, now);
      }, terms.busyMs + 10);
    }
    return { pending: pendingWord(verdict) };
  };
  /**
   * Answers the menu on the screen with choice `choice`, read from the screen as it is now; a menu
   * not drawn yet (the job's row said Waiting from its agent's record first) is waited for a moment.
   */
  const choose = async (choice: number): Promise<{ option: string } | { error: string }> => {
    if (ending) return { error: 'the job is ending' };
    const keys = await menuAnswer(
      {
        waitingAgent: () => (!ending && previous?.state === 'waiting' ? previous.agent : undefined),
        lines: () => screenOf(term).lines,
        menuSince: () => menuAt,
        changes: detected,
      },
      choice,
    );
    if (ending) return { error: 'the job is ending' };
    if ('error' in keys) return { error: keys.error };
    child.write(keys.keys);
    return { option: keys.option };
  };

  const runDetect = (): Promise<void> => {
    detectTimer = undefined;
    const { lines, cursor } = boundScreen({ ...screenOf(term), title });
    const d = detectScreen({ lines, title, cursor }, previous);
    previous = { agent: d.agent, state: d.state };
    try {
      learnSession(agentModule(d.agent));
    } catch (err) {
      say(`${d.agent} session: ${String(err)}`);
    }
    if (!prompted && (d.state === 'idle' || d.state === 'stopped')) {
      prompted = true;
      deliver(launch.typePrompt ?? '');
      typedAt = Date.now();
      setTimeout(() => (detectTimer ??= setTimeout(() => void runDetect(), DETECT_MS)), TYPED_SETTLE_MS + 50).unref();
    }
    if (d.state === 'working') awaitingPrompt = false;
    if (d.state === 'working' || d.state === 'waiting') seenWork = true;
    flushReply(d.state, d.agent, lines);
    menuAt = menuSince(menuAt, lines, Date.now());
    detected.poke();
    let patch: Partial<JobState> =
      awaitingPrompt && d.state !== 'waiting' ? { ...jobPatch(d, lines), tempo: 'blocked', needs: 'a prompt' } : jobPatch(d, lines);
    if (!seenWork && d.state !== 'waiting' && d.state !== 'exited' && patch.tempo !== 'blocked') {
      // A typed task has been taken once the screen reads idle a while after it was typed (a shell's
      // command runs and is done without a Working to see).
      const typing = typedAt === undefined || Date.now() - typedAt < TYPED_SETTLE_MS;
      const starting = launch.starting === true && Date.now() - startedAt < STARTING_MS && (launch.typePrompt === undefined || typing);
      patch = { ...patch, status: 'running', tempo: starting ? 'active' : 'idle', ...(starting ? { detail: 'starting' } : {}) };
    }
    const key = JSON.stringify(patch);
    if (key === written) return Promise.resolve();
    written = key;
    // A job between turns is `done` and runs again when its agent works; a stopped one stays so.
    return writeJob((job) => (!ending && (job.status === 'running' || job.status === 'done') ? patch : {}));
  };

  const stop = (graceful: boolean): void => {
    // A kill during a graceful stop makes the job killed.
    ending = graceful ? (ending ?? 'stopped') : 'killed';
    if (!graceful) return signalGroup(child.pid, 'SIGKILL');
    // The agent's own interrupt first, then SIGTERM, then SIGKILL.
    child.write('\x03');
    setTimeout(() => signalGroup(child.pid, 'SIGTERM'), STOP_TERM_MS).unref();
    setTimeout(() => signalGroup(child.pid, 'SIGKILL'), STOP_KILL_MS).unref();
  };
  const input = (data: string): void => {
    child.write(data);
    chain.typed(data);
  };
  const clients = serveHost({ term, child, output, info, title: () => title, stop, send, input, choose, log: say });
  const server: Server = clients.server;

  // A job that never drew again after STARTING_MS is read once more then (it is idle, not starting).
  if (launch.starting) setTimeout(() => (detectTimer ??= setTimeout(() => void runDetect(), DETECT_MS)), STARTING_MS + 50).unref();
  child.onData((data) => {
    term.write(data, () => {
      detectTimer ??= setTimeout(() => void runDetect(), DETECT_MS);
    });
    output.append(data);
    clients.broadcast(data);
  });

  try {
    if (lstatSync(socketPath).isSocket()) rmSync(socketPath); // a socket of this job's last host
  } catch {
    // None there.
  }
  const listening = await new Promise<string | null>((resolve) => {
    server.once('error', (err) => resolve(err.message));
    server.listen(socketPath, () => resolve(null));
  });
  if (listening) say(`cannot listen on ${socketPath}: ${listening}`);
  else {
    try {
      chmodSync(socketPath, 0o600);
    } catch (err) {
      say(`cannot make ${socketPath} private: ${String(err)}`);
    }
  }
  try {
    writeAtomic(path.join(jobDir, 'host.json'), JSON.stringify(info));
  } catch (err) {
    tell('host.json', `cannot write host.json: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }

  // A job whose folder was removed under it (by hand, or a remove that raced a respawn) is nobody's:
  // its agent is ended and the host leaves.
  const folderCheck = setInterval(() => {
    if (existsSync(jobDir)) return;
    clearInterval(folderCheck);
    stop(false);
    setTimeout(() => process.exit(0), 500).unref();
  }, FOLDER_CHECK_MS);

  return new Promise<number>((resolve) => {
    child.onExit(({ exitCode, signal }) => {
      clearInterval(folderCheck);
      // Whatever fails below, the host leaves.
      setTimeout(() => resolve(0), 3000).unref();
      const finish = async (): Promise<void> => {
        try {
          // Tells a dispatch of the same id, while the last state is written, that this session is ending.
          writeAtomic(path.join(jobDir, 'host.json'), JSON.stringify({ ...info, endedAt: Date.now() }));
        } catch {
          // The folder is gone or the disk full: nothing to tell with.
        }
        if (detectTimer) clearTimeout(detectTimer);
        await runDetect();
        // Killed by a signal (SIGKILL, the OOM killer): node-pty says status 0 and the signal. That
        // is no finish.
        const end: Partial<JobState> = ending
          ? { status: ending, detail: ending }
          : signal
            ? { status: 'errored', detail: `killed by ${signalName(signal)}` }
            : exitCode === 0
              ? { status: 'done' }
              : { status: 'errored', detail: `exited with status ${exitCode}` };
        await writeJob({ ...end, tempo: 'idle', needs: null, block: null, pendingReply: null });
        say(`exited ${exitCode} signal ${signal ?? 0}`);
        clients.close(exitCode);
      };
      finish()
        .catch((err: unknown) => say(`while ending: ${String(err)}`))
        .finally(() => {
          try {
            rmSync(path.join(jobDir, 'host.json'), { force: true });
          } catch {
            // Already gone.
          }
          setTimeout(() => resolve(0), 200);
        });
    });
  });
}
