// One PTY host per job: owns the agent's PTY, keeps a terminal model of it (@xterm/headless), runs
// the detectors on it and writes what they say to the job's file (job.json), keeps the recent output,
// and serves attach/text/stop/kill on its own socket. It runs in a session of its own, so that the
// job outlives the daemon, Neovim and the terminal that started it.
//
// It never dies because a write failed (the failure is told once, in host.log and in the job file
// when that can be written); it always exits once its agent has ended; it ends its agent and exits
// when its job's folder is removed under it.
import { existsSync, rmSync } from 'node:fs';
import type { IPty } from 'node-pty';
import path from 'node:path';
import { Terminal } from '@xterm/headless';
import { menuAnswer } from '../../agents/menu-answer.js';
import { menuSince } from '../../detect/question.js';
import { boundScreen } from '../../detect/index.js';
import { agentModule, agentOfTree, detectScreen, FALLBACK_AGENT, useUserRules } from '../../agents/index.js';
import { rulesDir } from '../../agents/user-rules.js';
import type { Detection } from '../../detect/index.js';
import type { AgentId, AgentState } from '../../shared/types.js';
import { processStamp } from '../../proc/stamp.js';
import { processSource } from '../../proc/shared.js';
import { writeAtomic } from '../../shared/files.js';
import type { HostInfo } from '../hostinfo.js';
import { appendEntry } from '../joblog.js';
import { hostSocket, runtimeDir } from '../paths.js';
import { PROTO } from '../protocol/codec.js';
import { LIVE_SCROLLBACK, screenOf } from '../screen-text.js';
import { signalGroup } from '../signals.js';
import { readJob, updateJob } from '../store.js';
import type { JobFile, JobStatus } from '../types.js';
import { endOf } from './ending.js';
import { JobWriter } from './job-writer.js';
import { listenPrivately } from './listen.js';
import { HostReplies } from './replies.js';
import { SessionLearner } from './session-learner.js';
import { newestPaced } from '../../shared/debounce.js';
import type { UsageTally } from '../../usage/tally.js';
import { priceTally } from '../../usage/view.js';
import { loadPricesFile, priceOf } from '../../agents/prices.js';
import { JobStartup, STARTING_MS, TYPED_TAKEN_MS } from './startup.js';
import { ChainKeeper } from './chain-keeper.js';
import { readEnvFromStdin, readLaunch } from './launch.js';
import { parseSpareJob, readSpareInput } from './spare.js';
import type { Launch } from './launch.js';
import { spawnAgent } from './spawn.js';
import { AtRest } from '../../shared/at-rest.js';
import { OutputLog, outputLog } from './output-log.js';
import { agentsOwnWord } from './own-word.js';
import { SettlingIdle } from '../../state/settle.js';
import type { OwnWord } from './own-word.js';
import { QUIET_SPELL_MS, readingDue } from './reading-pace.js';
import { serveHost } from './server.js';
import type { HostServer } from './server.js';
import { ChangeWaiters } from '../../shared/change-waiters.js';
import { reviewKey } from '../../shared/fleet-id.js';
import { reviewDir } from '../../shared/xdg.js';
import { turnEdge } from '../../review/edges.js';
import { Checkpoints } from '../../review/checkpoint.js';
import { endGitRuns } from '../../review/git.js';

/** A notice's screen is read afresh at most this often (see the OSC handlers). */
const NOTICE_READ_MS = 20;

/** The job's process tree is looked at for its agent at most this often, until it is found. */
const PROCESS_LOOK_MS = 1000;
/** How often a job's file is written for a change of its detail alone (a spinner's frame). */
export const DETAIL_EVERY_MS = 2000;
/**
 * How often the host looks whether its job's folder is still there, while nobody watches its job (a
 * watcher, the daemon or Neovim's Node process, sees the folder go and kills the job: job-feeds.ts).
 */
const FOLDER_CHECK_MS = 1000;
/** After an interrupt, a graceful stop sends SIGTERM, then SIGKILL, to the agent's process group. */
const STOP_TERM_MS = 1000;
const STOP_KILL_MS = 4000;
/** A job's usage tally is written at most this often (its readers want what it spent, not each line of it). */
const USAGE_WRITE_MS = 1000;

/**
 * A spare host (spare.ts): loads what a host needs, waits for its job on standard input, then is its
 * host, named `__host JOBSDIR SHORT` as a fresh one is. 0 when it was let go with no job.
 */
export async function runSpare(jobsDir: string): Promise<number> {
  await import('node-pty');
  const text = await readSpareInput(process.stdin);
  if (text === undefined) return 0;
  const job = parseSpareJob(text);
  if (typeof job === 'string') {
    appendEntry(path.join(runtimeDir(), 'daemon.log'), `spare host: ${job}`);
    return 1;
  }
  process.title = [process.argv[0], process.argv[1], '__host', jobsDir, job.short].join(' ');
  try {
    process.chdir(job.cwd);
  } catch (err) {
    const why = `cannot start in ${job.cwd}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
    appendEntry(path.join(jobsDir, job.short, 'host.log'), why);
    await updateJob(jobsDir, job.short, { status: 'errored', tempo: 'idle', detail: why }).catch(() => undefined);
    return 1;
  }
  return runHost(jobsDir, job.short, job.env);
}

/** A job's host; `given`: its agent's environment (a spare's, handed), else read from standard input. */
export async function runHost(jobsDir: string, short: string, given?: Record<string, string>): Promise<number> {
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
  const env = given ?? (await readEnvFromStdin(process.stdin));
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

  // The user's prices (|madohub-usage|): what the job's tally is priced at; what the file refused goes to the log.
  for (const problem of await loadPricesFile({ ...process.env, ...env })) say(problem.slice(0, 300));

  const writer = new JobWriter(jobsDir, short, say);
  // The agent's own word, where its module knows how to ask for it (issue 17 §4): its hooks, through a
  // settings file of the job's own and an events file the host follows, or its server's event stream.
  let host: JobHost | undefined;
  // What the agent spends, counted from its records, goes in the job file at most once a USAGE_WRITE_MS
  // (its last tally as the job ends).
  let lastTally: UsageTally | undefined;
  // Priced as it is written (not at each record read).
  const writeUsage = (tally: UsageTally): Promise<void> => writer.write({ usage: priceTally(tally, priceOf) });
  const usageWrites = newestPaced((tally: UsageTally) => void writeUsage(tally), USAGE_WRITE_MS);
  const own = await agentsOwnWord(
    launch,
    env,
    jobDir,
    say,
    () => host?.detectSoon(),
    (tally) => {
      lastTally = tally;
      usageWrites.put(tally);
    },
  );
  const child = await spawnAgent(own.launch, { ...env, ...own.env });
  if ('error' in child) {
    say(child.error);
    await writer.write({ status: 'errored', tempo: 'idle', detail: child.error });
    return 1;
  }
  host = new JobHost({ jobDir, short, launch, env, say, writer, own, child });
  const code = await host.run();
  usageWrites.cancel();
  if (lastTally) await writeUsage(lastTally);
  return code;
}

/** What a job's host is made of once its agent has started. */
interface JobHostParts {
  jobDir: string;
  short: string;
  launch: Launch;
  env: Record<string, string>;
  say(line: string): void;
  writer: JobWriter;
  own: OwnWord;
  child: IPty;
}

/** A running job's host: its agent's PTY read into a terminal model, detected, written and served. */
class JobHost {
  private readonly jobDir: string;
  private readonly short: string;
  private readonly launch: Launch;
  private readonly say: (line: string) => void;
  private readonly writer: JobWriter;
  private readonly own: OwnWord;
  private readonly child: IPty;
  private readonly term: Terminal;
  private title = '';
  private readonly info: HostInfo;
  private readonly output: OutputLog;
  /** Its garbage collected once its agent has been quiet a while (a turn's output over). */
  private readonly atRest = new AtRest();
  private readonly chain: ChainKeeper;
  private readonly tree = processSource();
  private readonly sessions: SessionLearner;
  private readonly replies: HostReplies;
  private readonly clients: HostServer;
  private readonly startup: JobStartup;
  /** Answers that wait for their menu, poked by each detection; since when the screen shows a menu. */
  private readonly detected = new ChangeWaiters();
  private menuAt: number | undefined;
  /** The screen's reading last told. */
  private previous: Detection | undefined;
  /** An Idle right after Working, held until the screen has stood so; the reading again when it is due. */
  private readonly settling = new SettlingIdle<Detection>();
  private settleTimer: NodeJS.Timeout | undefined;
  /**
   * The agent its process tree runs, once found (looked for at most every PROCESS_LOOK_MS, with a
   * screen to read): it reads the screen with its own rules, as a terminal's process agent does. Its
   * screen alone may show another agent's marks (Continue CLI's `● ` and `⎿` are Claude Code's too).
   */
  private processAgent: AgentId | undefined;
  private processLookAt = Number.NEGATIVE_INFINITY;
  /** The patch last written, and the last but for its detail, and when. */
  private written = '';
  private writtenRest = '';
  private writtenAt = 0;
  /** The status last written: a `done` after another status is a turn's end, counted in the file. */
  private writtenStatus: JobFile['status'] | undefined;
  private paceTimer: NodeJS.Timeout | undefined;
  /** The look whether the job's folder is still there (while nobody watches the job: see FOLDER_CHECK_MS). */
  private folderTimer: NodeJS.Timeout | undefined;
  /** The agent has exited: its folder is no more looked at. */
  private exited = false;
  private detectTimer: NodeJS.Timeout | undefined;
  /** When the screen was last read; when it first changed since, and when its reading is due. */
  private detectedAt = 0;
  private changedAt: number | undefined;
  private detectDue = 0;
  private ending: JobStatus | undefined;
  /** A notice's screen, read afresh at most every NOTICE_READ_MS (see screenAtNotice). */
  private noticeRead: { at: number; state: AgentState } | undefined;
  /** An agent that notifies only without focus (Codex) is told it has none: whether it was yet. */
  private focusAsked = false;
  /** When the output last came (see runDetect). */
  private outputAt = Date.now();
  /** A change since the last reading came after a quiet spell (it is read at once: reading-pace.ts). */
  private afterQuiet = false;
  /** Each turn's folder at its start and end, for the review (issue 29); the state its edges are read on. */
  private readonly turns = new Checkpoints(reviewDir(process.env), process.env);
  private turnState: AgentState | undefined;

  constructor(parts: JobHostParts) {
    const { jobDir, short, launch, env, say, writer, own, child } = parts;
    this.jobDir = jobDir;
    this.short = short;
    this.launch = launch;
    this.say = say;
    this.writer = writer;
    this.own = own;
    this.child = child;
    this.term = new Terminal({
      cols: launch.cols,
      rows: launch.rows,
      scrollback: LIVE_SCROLLBACK,
      allowProposedApi: true,
    });
    this.term.onTitleChange((t) => {
      this.title = t.slice(0, 1024);
    });
    // The desktop notifications the agent asks its terminal for (OSC 9, 777, 99): its own word, where its
    // module reads them, each with the screen's state as the output before it left it.
    for (const code of [9, 777, 99]) {
      this.term.parser.registerOscHandler(code, (data) => {
        own.osc(`${code};${data.slice(0, 1024)}`, () => this.screenAtNotice());
        return true;
      });
    }
    this.info = {
      proto: PROTO,
      pid: process.pid,
      pidStart: processStamp(process.pid) ?? '',
      ptyPid: child.pid,
      ptyStart: processStamp(child.pid) ?? '',
      socket: hostSocket(runtimeDir(), short),
      startedAt: Date.now(),
    };
    say(`started ${own.launch.argv.join(' ').slice(0, 400)} pid ${child.pid}`);
    this.output = new OutputLog(outputLog(jobDir), (why) => writer.tell('output.log', why));
    this.chain = new ChainKeeper(jobDir, say, () => {
      const read = readJob(path.dirname(jobDir), path.basename(jobDir));
      return read.ok ? read.job.turnsEnded : undefined;
    });
    this.startup = new JobStartup(launch, Date.now());
    this.sessions = new SessionLearner(
      () => ({
        pids: this.tree.walk(child.pid).map((p) => p.pid),
        cwd: launch.cwd,
        startedAt: this.info.startedAt - 1000,
      }),
      env,
      (id, file) => {
        void writer.write({ resumeSessionId: id });
        say(`session ${id} (${file})`);
      },
    );
    this.replies = new HostReplies({
      write: (data) => child.write(data),
      bracketed: () => this.term.modes.bracketedPasteMode,
      lines: () => screenOf(this.term).lines,
      reading: () => ({ state: this.previous?.state ?? 'idle', agent: this.previous?.agent ?? FALLBACK_AGENT }),
      writeJob: (change) => writer.write(change),
      say,
      replied: (c) => this.chain.replied(c),
    });
    this.clients = serveHost({
      term: this.term,
      child,
      info: this.info,
      title: () => this.title,
      stop: (graceful) => this.stop(graceful),
      send: (text, terms) => this.replies.send(text, terms, this.ending !== undefined),
      input: (data) => this.input(data),
      choose: (choice) => this.choose(choice),
      log: say,
      job: () => writer.last,
      detached: () => this.unfocus(),
      watchers: (count) => this.folderCheck(count === 0),
    });
    writer.written = (job) => this.clients.jobWritten(job);
  }

  /** Serves the job until its agent has ended: its exit status (0: the host did its work). */
  async run(): Promise<number> {
    const { launch, child, term } = this;
    // A job that never drew again after STARTING_MS is read once more then (it is idle, not starting).
    if (launch.starting) setTimeout(() => this.detectSoon(), STARTING_MS + 50).unref();
    child.onData((data) => {
      const now = Date.now();
      const afterQuiet = now - this.outputAt >= QUIET_SPELL_MS;
      this.outputAt = now;
      term.write(data, () => {
        this.detectSoon(afterQuiet);
        if (!this.focusAsked && term.modes.sendFocusMode) {
          this.focusAsked = true;
          this.unfocus();
        }
      });
      this.output.append(data);
      this.clients.broadcast(data);
      this.atRest.worked();
    });
    this.own.start(() => this.tree.walk(child.pid));
    await listenPrivately(this.clients.server, this.info.socket, this.say);
    try {
      writeAtomic(path.join(this.jobDir, 'host.json'), JSON.stringify(this.info));
    } catch (err) {
      this.writer.tell('host.json', `cannot write host.json: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    this.folderCheck(this.clients.watcherCount() === 0);
    return new Promise<number>((resolve) => {
      child.onExit(({ exitCode, signal }) => {
        this.exited = true;
        this.folderCheck(false);
        this.own.stop();
        this.atRest.stop();
        // Whatever fails below, the host leaves.
        setTimeout(() => resolve(0), 3000).unref();
        this.finish(exitCode, signal)
          .catch((err: unknown) => this.say(`while ending: ${String(err)}`))
          .finally(() => {
            try {
              rmSync(path.join(this.jobDir, 'host.json'), { force: true });
            } catch {
              // Already gone.
            }
            setTimeout(() => resolve(0), 200);
          });
      });
    });
  }

  /**
   * Reads the screen soon (reading-pace.ts): once the output has been quiet QUIET_MS (what an agent
   * writes right after its screen, a notice, is read with it), at most DETECT_MS after the first change
   * since the last reading; output that keeps coming no sooner than DETECT_MS after the last reading
   * (many changes in that time make one reading), output after a quiet spell (`afterQuiet`) at once. A
   * job's change is told about as soon as a terminal's (issue 31), not DETECT_MS after each change.
   */
  detectSoon(afterQuiet = false): void {
    const now = Date.now();
    this.changedAt ??= now;
    this.afterQuiet ||= afterQuiet;
    const due = readingDue({
      now,
      changedAt: this.changedAt,
      detectedAt: this.detectedAt,
      afterQuiet: this.afterQuiet,
    });
    if (this.detectTimer && due <= this.detectDue) return;
    clearTimeout(this.detectTimer);
    this.detectDue = due;
    this.detectTimer = setTimeout(() => void this.runDetect(), due - now);
  }

  /**
   * Looks every FOLDER_CHECK_MS whether the job's folder is still there (`on`), or stops looking. A job
   * whose folder was removed under it (by hand, or a remove that raced a respawn) is nobody's: its
   * agent is ended and the host leaves.
   */
  private folderCheck(on: boolean): void {
    if (!on || this.exited) {
      clearInterval(this.folderTimer);
      this.folderTimer = undefined;
      return;
    }
    this.folderTimer ??= setInterval(() => {
      if (existsSync(this.jobDir)) return;
      this.folderCheck(false);
      this.stop(false);
      setTimeout(() => void endGitRuns().finally(() => process.exit(0)), 500).unref();
    }, FOLDER_CHECK_MS);
  }

  /** Its agent has ended: its last state and how it ended written, its clients told. */
  private async finish(exitCode: number, signal: number | undefined): Promise<void> {
    try {
      // Tells a dispatch of the same id, while the last state is written, that this session is ending.
      writeAtomic(path.join(this.jobDir, 'host.json'), JSON.stringify({ ...this.info, endedAt: Date.now() }));
    } catch {
      // The folder is gone or the disk full: nothing to tell with.
    }
    if (this.detectTimer) clearTimeout(this.detectTimer);
    clearTimeout(this.paceTimer);
    clearTimeout(this.settleTimer);
    await this.runDetect();
    await this.writer.write(endOf(this.ending, exitCode, signal));
    this.say(`exited ${exitCode} signal ${signal ?? 0}`);
    this.clients.close(exitCode);
  }

  /**
   * The screen's state for a notice the agent sent, as the output before it left it: read afresh at
   * most every NOTICE_READ_MS, so that an agent's flood of notices costs no more than its screens do
   * (an agent notifies once a turn or a question, never twice in that time).
   */
  private screenAtNotice(): AgentState {
    const now = Date.now();
    if (this.noticeRead && now - this.noticeRead.at < NOTICE_READ_MS) return this.noticeRead.state;
    const { lines, cursor } = boundScreen({ ...screenOf(this.term), title: this.title });
    this.noticeRead = {
      at: now,
      state: detectScreen({ lines, title: this.title, cursor }, this.previous, this.agentOfProcess()).state,
    };
    return this.noticeRead.state;
  }

  /**
   * Answers the menu on the screen with choice `choice`, read from the screen as it is now; a menu
   * not drawn yet (the job's row said Waiting from its agent's record first) is waited for a moment.
   */
  private async choose(choice: number): Promise<{ option: string } | { error: string }> {
    if (this.ending) return { error: 'the job is ending' };
    const keys = await menuAnswer(
      {
        waitingAgent: () => (!this.ending && this.previous?.state === 'waiting' ? this.previous.agent : undefined),
        lines: () => screenOf(this.term).lines,
        menuSince: () => this.menuAt,
        changes: this.detected,
      },
      choice,
    );
    if (this.ending) return { error: 'the job is ending' };
    if ('error' in keys) return { error: keys.error };
    this.child.write(keys.keys);
    return { option: keys.option };
  }

  /** Reads the screen: its state combined with the agent's word, delivered replies, the job file written. */
  private runDetect(): Promise<void> {
    clearTimeout(this.detectTimer);
    this.detectTimer = undefined;
    this.detectedAt = Date.now();
    this.changedAt = undefined;
    this.afterQuiet = false;
    const { term, title } = this;
    const { lines, cursor } = boundScreen({ ...screenOf(term), title });
    // A watch can miss an append: the agent's events are read with each screen too (at most one read a detection).
    this.own.poke();
    const screenReading = this.settled(
      detectScreen({ lines, title, cursor }, this.previous, this.agentOfProcess()),
      lines,
    );
    this.previous = screenReading;
    // The screen's reading is of the output that came at `outputAt`: what the agent said while that
    // output was parsed (a notification in it) is no older than it.
    const d = this.own.state.combine(screenReading, this.outputAt);
    const edge = turnEdge(this.turnState, d.state);
    this.turnState = d.state;
    // A shell's commands are no agent's turns: only agents are checkpointed.
    if (edge && d.agent !== FALLBACK_AGENT) this.checkpointTurn(edge, d.agent);
    try {
      this.sessions.look(agentModule(d.agent));
    } catch (err) {
      this.say(`${d.agent} session: ${String(err)}`);
    }
    if (this.startup.typeDue(d, Date.now())) {
      this.replies.deliver(this.launch.typePrompt ?? '');
      // Read again once the task is taken (a screen that stays idle shows no change to read on).
      setTimeout(() => this.detectSoon(), TYPED_TAKEN_MS + 50).unref();
    }
    this.replies.flush(d.state, d.agent, lines);
    this.menuAt = menuSince(this.menuAt, lines, Date.now());
    this.detected.poke();
    const patch = this.startup.patch(d, lines, Date.now());
    const key = JSON.stringify(patch);
    if (key === this.written) return Promise.resolve();
    // A change of its detail alone (a spinner's frame, its seconds and tokens) is written at most every
    // DETAIL_EVERY_MS, its last one after: the file's readers are told what they use, not each frame.
    const { detail: _detail, ...rest } = patch;
    const restKey = JSON.stringify(rest);
    const now = Date.now();
    if (restKey === this.writtenRest && now - this.writtenAt < DETAIL_EVERY_MS) {
      this.paceTimer ??= setTimeout(
        () => {
          this.paceTimer = undefined;
          this.detectTimer ??= setTimeout(() => void this.runDetect(), 0);
        },
        this.writtenAt + DETAIL_EVERY_MS - now,
      );
      return Promise.resolve();
    }
    this.written = key;
    this.writtenRest = restKey;
    this.writtenAt = now;
    const ended = patch.status === 'done' && this.writtenStatus !== undefined && this.writtenStatus !== 'done';
    this.writtenStatus = patch.status ?? this.writtenStatus;
    // A job between turns is `done` and runs again when its agent works; a stopped one stays so.
    return this.writer.write((job) =>
      !this.ending && (job.status === 'running' || job.status === 'done')
        ? { ...patch, ...(ended ? { turnsEnded: job.turnsEnded + 1 } : {}) }
        : {},
    );
  }

  /**
   * The screen's reading to tell: an Idle right after Working waits for the screen to stand so (see
   * SettlingIdle; it is read again when due), unless a record's end waits for it (the agent's word and
   * its screen then agree), or the agent has ended.
   */
  private settled(reading: Detection, lines: readonly string[]): Detection {
    const now = Date.now();
    if (this.settling.read(reading, this.previous, lines, now) || !this.previous) return reading;
    if (this.ending || this.exited || this.own.state.endWaits) {
      this.settling.drop();
      return reading;
    }
    const due = this.settling.dueAt();
    if (due !== undefined) {
      clearTimeout(this.settleTimer);
      this.settleTimer = setTimeout(() => this.detectSoon(true), due - now + 5).unref();
    }
    return this.previous;
  }

  /** The agent its process tree runs (see processAgent); undefined while none MadoHub knows is found. */
  private agentOfProcess(): AgentId | undefined {
    const pid = this.child.pid;
    const now = Date.now();
    if (this.processAgent !== undefined || pid === undefined || now - this.processLookAt < PROCESS_LOOK_MS)
      return this.processAgent;
    this.processLookAt = now;
    this.processAgent = agentOfTree(this.tree.walk(pid))?.agent;
    return this.processAgent;
  }

  /** A checkpoint of the job's folder at a turn's edge, in the background (it never holds the agent). */
  private checkpointTurn(edge: 'began' | 'ended', agent: string): void {
    const read = readJob(path.dirname(this.jobDir), this.short);
    const key = reviewKey({ kind: 'job', short: this.short, host: '' }) ?? '';
    const who = { key, agent, name: read.job.name || agent, folder: this.launch.cwd };
    if (edge === 'began') return void this.turns.began(who);
    // The files the turn changed go in the job file: its row says how many until the user has seen it.
    void this.turns.ended(who).then((n) => (n === null ? undefined : this.writer.write({ turnChanged: n })));
  }

  /** Ends the agent: gracefully (its own interrupt, then SIGTERM, then SIGKILL), or killed at once. */
  private stop(graceful: boolean): void {
    const pid = this.child.pid;
    // A kill during a graceful stop makes the job killed.
    this.ending = graceful ? (this.ending ?? 'stopped') : 'killed';
    if (!graceful) return signalGroup(pid, 'SIGKILL');
    this.child.write('\x03');
    setTimeout(() => signalGroup(pid, 'SIGTERM'), STOP_TERM_MS).unref();
    setTimeout(() => signalGroup(pid, 'SIGKILL'), STOP_KILL_MS).unref();
  }

  /** What an attached client types. */
  private input(data: string): void {
    this.child.write(data);
    this.chain.typed(data);
  }

  /** Tells an agent that notifies only without focus that it has none, when no client is attached. */
  private unfocus(): void {
    if (this.own.unfocused && this.term.modes.sendFocusMode && this.clients.attachedCount() === 0)
      this.child.write('\x1b[O');
  }
}
