// One PTY host per job: owns the agent's PTY, keeps a terminal model of it (@xterm/headless), runs
// the detectors on it and writes what they say to the job's file (job.json), keeps the recent output,
// and serves attach/text/stop/kill on its own socket. It runs in a session of its own, so that the
// job outlives the daemon, Neovim and the terminal that started it.
//
// It never dies because a write failed (the failure is told once, in host.log and in the job file
// when that can be written); it always exits once its agent has ended; it ends its agent and exits
// when its job's folder is removed under it.
import { existsSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';
import path from 'node:path';
import { Terminal } from '@xterm/headless';
import { menuAnswer } from '../../agents/menu-answer.js';
import { menuSince } from '../../detect/question.js';
import { boundScreen } from '../../detect/index.js';
import { agentModule, detectScreen, FALLBACK_AGENT, useUserRules } from '../../agents/index.js';
import { rulesDir } from '../../agents/user-rules.js';
import type { Detection } from '../../detect/index.js';
import type { AgentState } from '../../shared/types.js';
import { processStamp } from '../../proc/stamp.js';
import { processSource } from '../../proc/shared.js';
import { writeAtomic } from '../../shared/files.js';
import type { Chain } from '../chain-record.js';
import type { HostInfo } from '../hostinfo.js';
import { appendEntry } from '../joblog.js';
import { hostSocket, runtimeDir } from '../paths.js';
import { PROTO } from '../protocol/codec.js';
import { SCROLLBACK, screenOf } from '../screen-text.js';
import { signalGroup } from '../signals.js';
import { readJob, updateJob } from '../store.js';
import type { JobFile, JobStatus } from '../types.js';
import { endOf } from './ending.js';
import { JobWriter } from './job-writer.js';
import { listenPrivately } from './listen.js';
import type { JobChange } from './job-writer.js';
import { HostReplies } from './replies.js';
import { SessionLearner } from './session-learner.js';
import { JobStartup, STARTING_MS, TYPED_TAKEN_MS } from './startup.js';
import { ChainKeeper } from './chain-keeper.js';
import { readEnvFromStdin, readLaunch } from './launch.js';
import { spawnAgent } from './spawn.js';
import { OutputLog, outputLog } from './output-log.js';
import { agentsOwnWord } from './own-word.js';
import { serveHost } from './server.js';
import { ChangeWaiters } from '../../shared/change-waiters.js';

const DETECT_MS = 100;
/** A notice's screen is read afresh at most this often (see the OSC handlers). */
const NOTICE_READ_MS = 20;
/** How often a job's file is written for a change of its detail alone (a spinner's frame). */
export const DETAIL_EVERY_MS = 2000;
/** How often the host looks whether its job's folder is still there. */
const FOLDER_CHECK_MS = 1000;
/** After an interrupt, a graceful stop sends SIGTERM, then SIGKILL, to the agent's process group. */
const STOP_TERM_MS = 1000;
const STOP_KILL_MS = 4000;

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
  process.on('unhandledRejection', (err) =>
    say(`unexpected: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
  );

  // The user's screen rules (|madohub-rules|), as the Neovim side reads them; what a file refused goes to
  // the host's log.
  useUserRules(rulesDir({ ...process.env, ...env }), (rules) => {
    for (const f of rules.files) for (const e of f.errors) say(`${f.file}: ${e}`);
  });

  const writer = new JobWriter(jobsDir, short, say);
  const writeJob = (change: JobChange): Promise<void> => writer.write(change);
  const tell = (kind: string, why: string): void => writer.tell(kind, why);

  const term = new Terminal({ cols: launch.cols, rows: launch.rows, scrollback: SCROLLBACK, allowProposedApi: true });
  let title = '';
  term.onTitleChange((t) => {
    title = t.slice(0, 1024);
  });

  // The agent's own word, where its module knows how to ask for it (issue 17 §4): its hooks, through a
  // settings file of the job's own and an events file the host follows, or its server's event stream.
  const own = await agentsOwnWord(launch, env, jobDir, say, () => {
    detectTimer ??= setTimeout(() => void runDetect(), DETECT_MS);
  });
  const spawnLaunch = own.launch;
  const pushState = own.state;
  // The desktop notifications the agent asks its terminal for (OSC 9, 777, 99): its own word, where its
  // module reads them.
  // Each is read with the screen's state as the output before it left it (its place among the screen's
  // changes): read afresh at most every NOTICE_READ_MS, so that an agent's flood of notices costs no
  // more than its screens do (an agent notifies once a turn or a question, never twice in that time).
  let noticeRead: { at: number; state: AgentState } | undefined;
  const screenAtNotice = (): AgentState => {
    const now = Date.now();
    if (noticeRead && now - noticeRead.at < NOTICE_READ_MS) return noticeRead.state;
    const { lines, cursor } = boundScreen({ ...screenOf(term), title });
    noticeRead = { at: now, state: detectScreen({ lines, title, cursor }, previous).state };
    return noticeRead.state;
  };
  for (const code of [9, 777, 99]) {
    term.parser.registerOscHandler(code, (data) => {
      own.osc(`${code};${data.slice(0, 1024)}`, screenAtNotice);
      return true;
    });
  }

  const child = await spawnAgent(spawnLaunch, { ...env, ...own.env });
  if ('error' in child) {
    say(child.error);
    await writeJob({ status: 'errored', tempo: 'idle', detail: child.error });
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
  say(`started ${spawnLaunch.argv.join(' ').slice(0, 400)} pid ${child.pid}`);

  const output = new OutputLog(outputLog(jobDir), (why) => tell('output.log', why));
  const chain = new ChainKeeper(jobDir, say, () => {
    const read = readJob(path.dirname(jobDir), path.basename(jobDir));
    return read.ok ? read.job.turnsEnded : undefined;
  });
  /** Answers that wait for their menu, poked by each detection; since when the screen shows a menu. */
  const detected = new ChangeWaiters();
  let menuAt: number | undefined;
  let previous: Pick<Detection, 'agent' | 'state'> | undefined;
  let written = '';
  /** The last patch written but for its detail, and when. */
  let writtenRest = '';
  let writtenAt = 0;
  /** The status last written: a `done` after another status is a turn's end, counted in the file. */
  let writtenStatus: JobFile['status'] | undefined;
  let paceTimer: NodeJS.Timeout | undefined;
  let detectTimer: NodeJS.Timeout | undefined;
  let ending: JobStatus | undefined;
  const startup = new JobStartup(launch, Date.now());

  const tree = processSource();
  const sessions = new SessionLearner(
    () => ({ pids: tree.walk(child.pid).map((p) => p.pid), cwd: launch.cwd, startedAt: info.startedAt - 1000 }),
    env,
    (id, file) => {
      void writeJob({ resumeSessionId: id });
      say(`session ${id} (${file})`);
    },
  );
  const replies = new HostReplies({
    write: (data) => child.write(data),
    bracketed: () => term.modes.bracketedPasteMode,
    lines: () => screenOf(term).lines,
    reading: () => ({ state: previous?.state ?? 'idle', agent: previous?.agent ?? FALLBACK_AGENT }),
    writeJob,
    say,
    replied: (c) => chain.replied(c),
  });
  const send = (
    text: string,
    terms: { waitMenus?: boolean; busyMs?: number; chain?: Chain },
  ): { pending: string } | { error: string } => replies.send(text, terms, ending !== undefined);
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
    // A watch can miss an append: the agent's events are read with each screen too (at most one read a detection).
    own.poke();
    const screenReading = detectScreen({ lines, title, cursor }, previous);
    previous = { agent: screenReading.agent, state: screenReading.state };
    // The screen's reading is of the output that came at `outputAt`: what the agent said while that
    // output was parsed (a notification in it) is no older than it.
    const d = pushState.combine(screenReading, outputAt);
    try {
      sessions.look(agentModule(d.agent));
    } catch (err) {
      say(`${d.agent} session: ${String(err)}`);
    }
    if (startup.typeDue(d, Date.now())) {
      replies.deliver(launch.typePrompt ?? '');
      // Read again once the task is taken (a screen that stays idle shows no change to read on).
      setTimeout(() => (detectTimer ??= setTimeout(() => void runDetect(), DETECT_MS)), TYPED_TAKEN_MS + 50).unref();
    }
    replies.flush(d.state, d.agent, lines);
    menuAt = menuSince(menuAt, lines, Date.now());
    detected.poke();
    const patch = startup.patch(d, lines, Date.now());
    const key = JSON.stringify(patch);
    if (key === written) return Promise.resolve();
    // A change of its detail alone (a spinner's frame, its seconds and tokens) is written at most every
    // DETAIL_EVERY_MS, its last one after: the file's readers are told what they use, not each frame.
    const { detail: _detail, ...rest } = patch;
    const restKey = JSON.stringify(rest);
    const now = Date.now();
    if (restKey === writtenRest && now - writtenAt < DETAIL_EVERY_MS) {
      paceTimer ??= setTimeout(
        () => {
          paceTimer = undefined;
          detectTimer ??= setTimeout(() => void runDetect(), 0);
        },
        writtenAt + DETAIL_EVERY_MS - now,
      );
      return Promise.resolve();
    }
    written = key;
    writtenRest = restKey;
    writtenAt = now;
    const ended = patch.status === 'done' && writtenStatus !== undefined && writtenStatus !== 'done';
    writtenStatus = patch.status ?? writtenStatus;
    // A job between turns is `done` and runs again when its agent works; a stopped one stays so.
    return writeJob((job) =>
      !ending && (job.status === 'running' || job.status === 'done')
        ? { ...patch, ...(ended ? { turnsEnded: job.turnsEnded + 1 } : {}) }
        : {},
    );
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
  // An agent that notifies only without focus (Codex) is told it has none: at once, and when its last client leaves.
  let focusAsked = false;
  /** When the output last came (see runDetect). */
  let outputAt = Date.now();
  const unfocus = (): void => {
    if (own.unfocused && term.modes.sendFocusMode && clients.attachedCount() === 0) child.write('\x1b[O');
  };
  const clients = serveHost({
    term,
    child,
    output,
    info,
    title: () => title,
    stop,
    send,
    input,
    choose,
    log: say,
    detached: () => unfocus(),
  });
  const server: Server = clients.server;

  // A job that never drew again after STARTING_MS is read once more then (it is idle, not starting).
  if (launch.starting)
    setTimeout(() => (detectTimer ??= setTimeout(() => void runDetect(), DETECT_MS)), STARTING_MS + 50).unref();
  child.onData((data) => {
    outputAt = Date.now();
    term.write(data, () => {
      detectTimer ??= setTimeout(() => void runDetect(), DETECT_MS);
      if (!focusAsked && term.modes.sendFocusMode) {
        focusAsked = true;
        unfocus();
      }
    });
    output.append(data);
    clients.broadcast(data);
  });

  own.start(() => tree.walk(child.pid));
  await listenPrivately(server, socketPath, say);
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
      own.stop();
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
        clearTimeout(paceTimer);
        await runDetect();
        await writeJob(endOf(ending, exitCode, signal));
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
