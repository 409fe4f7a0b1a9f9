// What a job's agent tells of its state itself, beside its screen (issue 17 §4), where its module
// knows how to ask for it: its hooks (a settings file of the job's own, never the user's, whose hooks
// append to an events file the host follows), its server's event stream (a port the host chooses),
// its notifications, else its records (session files, chats) followed as a terminal's are.
// Only the agent's own program gets them: a template may run anything, even under an agent's name.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { agentModule, agentOfProcess, agentOfTree, FALLBACK_AGENT } from '../../agents/index.js';
import type { AgentModule, RecordFollower } from '../../agents/types.js';
import { FolderWatcher } from '../../records/folders.js';
import { paced } from '../../shared/debounce.js';
import { oscNotification } from '../../detect/osc.js';
import { EventStream } from '../../records/event-stream.js';
import { listeningPorts } from '../../proc/listening.js';
import { freePort } from '../../proc/free-port.js';
import { PUSH_EVENTS, PUSH_SETTINGS, PushEvents, resetEventsFile } from '../../records/push-file.js';
import { writeAtomic } from '../../shared/files.js';
import type { AgentId, AgentState, ProcessInfo, PushSignal, RecordSignal } from '../../shared/types.js';
import { UsageFeed } from '../../records/usage-feed.js';
import type { UsageTally } from '../../usage/tally.js';
import { PushState } from '../../state/push-state.js';
import type { Told } from '../../state/push-state.js';
import type { Launch } from './launch.js';

export interface OwnWord {
  /** The launch with what asks the agent for its word, and the variables it adds to the agent's. */
  launch: Launch;
  env: Record<string, string>;
  /** What it said, combined with each screen's reading. */
  state: PushState;
  /**
   * A notification the agent asked its terminal (the host) for, as its OSC sequence, with the screen's
   * state as the output before it left it (read only for a notification this agent tells); whether the
   * agent notifies only without focus.
   */
  osc(sequence: string, screen: () => AgentState): void;
  unfocused: boolean;
  /** Its word is its records' (followed as a terminal's): what it spends is counted by that follower. */
  followsRecords: boolean;
  /**
   * Starts following once the agent runs (`procs`: the job's processes, the agent's among them),
   * reads what came (with each screen: a watch can miss), stops.
   */
  start(procs: () => readonly ProcessInfo[]): void;
  poke(): void;
  stop(): void;
}

const none = (launch: Launch): OwnWord => ({
  launch,
  env: {},
  state: new PushState(),
  osc: () => undefined,
  unfocused: false,
  followsRecords: false,
  start: () => undefined,
  poke: () => undefined,
  stop: () => undefined,
});

/** How the host of the job in `jobDir` asks its agent for its own word; `heard` runs when it says something. */
/**
 * What the job's agent tells itself, and what it spends (`spent`: its tally each time it changed),
 * counted from its records: by the follower of its records where that tells its state, else by one
 * that follows them for what it spends alone.
 */
export async function agentsOwnWord(
  launch: Launch,
  env: NodeJS.ProcessEnv,
  jobDir: string,
  say: (line: string) => void,
  heard: () => void,
  spent?: (tally: UsageTally) => void,
): Promise<OwnWord> {
  const module = agentModule(agentOfLaunch(launch) ?? FALLBACK_AGENT);
  const folders = new FolderWatcher();
  const usage =
    module.usage && spent ? new UsageFeed(module.usage, folders, spent, (m) => say(m.slice(0, 300))) : undefined;
  const word = await ownWordOf(launch, env, jobDir, say, heard, folders, usage);
  if (!usage || word.followsRecords) return word;
  const follow = new AgentRecords(module, env, folders, () => undefined, usage, say);
  return {
    ...word,
    start: (procs) => {
      word.start(procs);
      follow.start(procs);
    },
    poke: () => {
      word.poke();
      follow.poke();
    },
    stop: () => {
      word.stop();
      follow.stop();
      void folders.close();
    },
  };
}

/** The agent a launch runs, from its program (undefined: none MadoHub knows). */
function agentOfLaunch(launch: Launch): AgentId | undefined {
  const argv0 = launch.argv[0]!;
  return agentOfProcess({ pid: 0, ppid: 0, comm: path.basename(argv0).slice(0, 15), argv: launch.argv, exe: '' });
}

async function ownWordOf(
  launch: Launch,
  env: NodeJS.ProcessEnv,
  jobDir: string,
  say: (line: string) => void,
  heard: () => void,
  folders: FolderWatcher,
  usage: UsageFeed | undefined,
): Promise<OwnWord> {
  const argv0 = launch.argv[0]!;
  const program = agentOfLaunch(launch);
  const module = program ? agentModule(program) : undefined;
  // The agent's own flags go after its entry point (`node …/cli.js --settings …`), never to its interpreter.
  const entry = entryPoint(launch.argv);
  const withArgs = (args: readonly string[]): Launch => ({
    ...launch,
    argv: [...launch.argv.slice(0, entry + 1), ...args, ...launch.argv.slice(entry + 1)],
  });
  if (module && entry < 0) {
    say(
      `the agent runs as ${path.basename(argv0)} with no script named (${launch.argv.slice(1, 3).join(' ')} …): no flags of its own are added, the screen and its records tell`,
    );
    return none(launch);
  }
  try {
    if (module?.push) {
      const push = module.push;
      const state = new PushState('hook');
      const events = path.join(jobDir, PUSH_EVENTS);
      const settings = path.join(jobDir, PUSH_SETTINGS);
      resetEventsFile(events);
      const added = push.launch({ settings, events }, env);
      writeAtomic(settings, added.settings);
      const follower = new PushEvents(events, (event) => tell(state, push.signal(event), heard), say);
      return {
        ...none(withArgs(added.args)),
        env: added.env ?? {},
        state,
        start: () => follower.start(),
        poke: () => void follower.read(),
        stop: () => follower.stop(),
      };
    }
    if (module?.jobStream) {
      const js = module.jobStream;
      const state = new PushState('event-stream');
      const port = await freePort();
      const read = js.reader();
      let procs: (() => readonly ProcessInfo[]) | undefined;
      const stream = new EventStream({
        port,
        path: js.path,
        greeting: js.greeting,
        onEvent: (event) => tell(state, read(event), heard),
        log: say,
        // The port is on the agent's command line, for any user to read: a server of someone else's there
        // is no agent's.
        owned: () => !canSeeListeners() || (procs?.() ?? []).some((p) => listeningPorts(p.pid).includes(port)),
      });
      return {
        ...none(withArgs(js.args(port))),
        state,
        start: (p) => {
          procs = p;
          stream.start();
        },
        stop: () => stream.stop(),
      };
    }
    if (
      module?.jobNotifications &&
      module.notification &&
      (launch.resumes !== true || module.jobNotifications.onResume !== false)
    ) {
      const read = module.notification;
      const state = new PushState('notification');
      const osc = (sequence: string, screen: () => AgentState): void => {
        const n = oscNotification(sequence);
        const signal = n && read(n);
        if (signal) tell(state, signal, heard, { screen: screen() });
      };
      return { ...none(withArgs(module.jobNotifications.args)), state, osc, unfocused: true };
    }
    if (program && module?.records) return recordsWord(launch, module, env, say, heard, folders, usage);
  } catch (err) {
    say(
      `the agent's own word is not asked for: ${(err as NodeJS.ErrnoException).code ?? String(err)}; the screen alone tells`,
    );
  }
  return none(launch);
}

/**
 * Whether this system tells which process listens on a port (Linux's /proc): elsewhere the stream is taken
 * as the agent's.
 */
function canSeeListeners(): boolean {
  return existsSync('/proc/net/tcp');
}

/** Interpreters an agent may run in (`node …/cli.js`): its flags go after the script they run. */
const INTERPRETERS = new Set(['node', 'nodejs', 'bun']);
/** The interpreters' options that take the next argument as their value. */
const VALUED = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--env-file',
  '--title',
  '--cpu-prof-dir',
  '--heap-prof-dir',
  '--diagnostic-dir',
  '--redirect-warnings',
  '--stack-size',
]);
/** Options by which the interpreter runs a text, no script: the agent has no entry point of its own. */
const EVAL = new Set(['-e', '--eval', '-p', '--print']);

/**
 * Where an agent's own flags go in `argv`: after this index (the program itself, or the script its
 * interpreter runs); -1 when the interpreter runs no script (`node -e …`).
 */
export function entryPoint(argv: readonly string[]): number {
  if (!INTERPRETERS.has(path.basename(argv[0] ?? ''))) return 0;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (EVAL.has(a)) return -1;
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    // `bun run x.js`: the script is after its verb.
    if (a === 'run' && i === 1 && path.basename(argv[0]!) === 'bun') continue;
    if (VALUED.has(a)) i++;
    else if (!a.startsWith('-')) return i;
  }
  return -1;
}

/** How often the job's processes are looked through for its agent while its records are not followed. */
const FIND_AGENT_MS = 1000;

/**
 * An agent that tells nothing to its job but writes records (Copilot CLI's events, Qwen Code's chat,
 * Pi's session): they are followed as for a terminal, from its process, once the job's tree runs it.
 */
function recordsWord(
  launch: Launch,
  module: AgentModule,
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
  heard: () => void,
  folders: FolderWatcher,
  usage: UsageFeed | undefined,
): OwnWord {
  const state = new PushState('jsonl-watcher');
  const follow = new AgentRecords(
    module,
    env,
    folders,
    (signal) => tell(state, signal, heard, { source: signal.source }),
    usage,
    say,
  );
  return {
    ...none(launch),
    state,
    followsRecords: true,
    start: (p) => follow.start(p),
    poke: () => follow.poke(),
    stop: () => {
      follow.stop();
      void folders.close();
    },
  };
}

/**
 * Follows the records of a job's agent as a terminal's are followed, once the job's tree runs it
 * (looked for with each screen, at most once a FIND_AGENT_MS): what they say of its state, what it spends.
 */
class AgentRecords {
  private procs?: () => readonly ProcessInfo[];
  private follower?: RecordFollower;
  private stopped = false;
  private readonly pace = paced(() => this.find(), FIND_AGENT_MS);

  constructor(
    private readonly module: AgentModule,
    private readonly env: NodeJS.ProcessEnv,
    private readonly folders: FolderWatcher,
    private readonly emit: (signal: RecordSignal) => void,
    private readonly usage: UsageFeed | undefined,
    private readonly say: (line: string) => void,
  ) {}

  start(procs: () => readonly ProcessInfo[]): void {
    this.procs = procs;
    this.find();
  }

  poke(): void {
    if (this.follower) this.follower.poke();
    else this.find();
  }

  stop(): void {
    this.stopped = true;
    this.pace.cancel();
    this.follower?.stop();
    this.usage?.stop();
  }

  private find(): void {
    if (this.follower || this.stopped || !this.procs || !this.pace.due()) return;
    const all = this.procs();
    const found = agentOfTree(all);
    if (found?.agent !== this.module.id) return;
    this.follower = this.module.records?.({
      env: this.env,
      pid: found.pid,
      pids: all.map((p) => p.pid),
      argv: all.find((p) => p.pid === found.pid)?.argv,
      folders: this.folders,
      claims: new Set(),
      emit: this.emit,
      log: { debug: () => undefined },
      usage: this.usage,
    });
    this.follower?.start();
    if (this.follower) this.say(`following the records of ${this.module.displayName} (pid ${found.pid})`);
  }
}

function tell(state: PushState, signal: PushSignal | undefined, heard: () => void, told: Told = {}): void {
  if (!signal) return;
  state.record(signal, Date.now(), told);
  heard();
}
