// What MadoHub knows of one agent, in one place: src/agents/<name>.ts. The detectors, the process
// classifier, the record watchers, the job templates and environments, and (through the Node
// process) the Lua side read it from there.
import type { ProcessIdentity } from '../detect/process.js';
import type { TermNotification } from '../detect/osc.js';
import type { AgentRules } from '../detect/types.js';
import type { RecordLog } from '../records/follow.js';
import type { FolderWatcher } from '../records/folders.js';
import type { UsageFeed } from '../records/usage-feed.js';
import type { AgentUsage } from '../usage/types.js';
import type { AgentId, PushSignal, RecordSignal } from '../shared/types.js';

export type { ProcessIdentity };

/** Whether a job runs in a git worktree of its own. */
export type Isolation = 'worktree' | 'none';
export const ISOLATIONS: readonly Isolation[] = ['worktree', 'none'];

/** How a background job runs an agent: a template (the agent's own, or one of the user's templates.json). */
export interface Template {
  name: string;
  description: string;
  /** The program and its fixed arguments. */
  command: string[];
  /** How the first prompt reaches the agent: as the last argument, or typed once it is up. */
  prompt: 'arg' | 'type';
  /** Arguments that resume a session (`{id}` is replaced), continue the last one, fork it. */
  resume?: string[];
  continue?: string[];
  fork?: string[];
  /** Arguments that make a new session take the job's own session id (`{session}` is replaced). */
  sessionId?: string[];
  /** `worktree`: its jobs run in a git worktree of their own unless a dispatch says `none`. */
  isolation?: Isolation;
}

/** What follows an agent's records for one terminal. */
export interface RecordFollower {
  start(): void;
  stop(): void;
  poke(): void;
  /** The session its records name (to resume it elsewhere). */
  readonly sessionId?: string;
  /** The record file that holds its answers (Claude Code's transcript, Codex's rollout), once known. */
  readonly recordFile?: string;
}

export interface RecordContext {
  env: NodeJS.ProcessEnv;
  /** The agent's process, and every process of the terminal (one of which may hold its files open). */
  pid: number;
  pids: readonly number[];
  /** The agent process's arguments (a session it resumes), when known. */
  argv?: readonly string[];
  folders: FolderWatcher;
  /** Record files other terminals follow already. */
  claims: Set<string>;
  emit(signal: RecordSignal): void;
  log: RecordLog;
  /** What counts the agent's spending from the records followed (its module's `usage`), when counted. */
  usage?: UsageFeed;
}

/** What a job knows of its session: where to find the record file that holds its answers. */
export interface JobSessionRef {
  cwd: string;
  /** The session id the job gave its agent (`--session-id`), and the one its host learnt or it resumed. */
  sessionId: string;
  resumeSessionId: string | null;
}

/** A job's agent, as its host sees it: the processes from its agent down, its folder, when it started. */
export interface JobProcess {
  pids: readonly number[];
  cwd: string;
  startedAt: number;
}

/** One of an agent's sessions running on this machine outside MadoHub's terminals and jobs. */
export interface SessionElsewhere {
  pid: number;
  sessionId: string;
  cwd: string;
  signal: RecordSignal;
  /** The session's name, when it has one. */
  name?: string;
  /** The id `attachCommand` takes, for a session that runs in the background. */
  attachId?: string;
}

/** Where an agent's running sessions are told: one small file per process in a folder. */
export interface SessionsFolder {
  folder(env: NodeJS.ProcessEnv): string;
  /** The names of its files that are session files (the pid before `.json`). */
  file: RegExp;
  /** A session file's JSON: the session it tells, or null when it is none. */
  read(value: unknown): SessionElsewhere | null;
}

/**
 * What a job's launch adds for its agent to tell its state itself: arguments put before the
 * template's (or variables), naming one settings file in the job's folder (never the user's own settings), whose
 * hooks append each event to the job's events file; and what one event says.
 */
export interface JobPush {
  /**
   * The arguments, the settings file's text and the variables that name it, given where the settings
   * file and the events go and the agent's environment.
   */
  launch(
    files: { settings: string; events: string },
    env: NodeJS.ProcessEnv,
  ): { args: string[]; settings: string; env?: Record<string, string> };
  /** What one event says, or undefined (a sub-agent's, one that tells no state, one not understood). */
  signal(event: unknown): PushSignal | undefined;
}

/** A job's agent that serves its events on the loopback address: how to ask it to, and how to read them. */
export interface JobStream {
  /** The arguments, put before the template's, that make it serve on `port` at 127.0.0.1. */
  args(port: number): string[];
  /** The stream's path on its server. */
  path: string;
  /** The event a genuine server opens with. */
  greeting(event: unknown): boolean;
  /** A reader of one job's events: what each says, or undefined. */
  reader(): (event: unknown) => PushSignal | undefined;
}

export interface AgentModule {
  id: AgentId;
  /** Its name in the winbar, the messages and the picker. */
  displayName: string;
  /** The fallback agent (one, the shell): what a terminal runs when no agent's process or screen shows. */
  fallback?: true;
  /** The agent a job or a dispatch runs when none is named and no setting names one (one agent says so). */
  default?: true;
  /**
   * Whether text is pasted into it between the bracketed-paste marks (its program asks for them:
   * every TUI agent does). In a Neovim terminal the mode cannot be read, so this says it; a job's
   * host reads the mode from its screen. False: text arrives on one line, as plain characters.
   */
  bracketedPaste: boolean;
  /** Its screen rules (markers, lines, titles): pure data, applied by src/detect/index.ts. */
  screen: AgentRules;
  /** None for the shell: a terminal runs a shell when no agent's process runs in it. */
  process?: ProcessIdentity;
  /** How a background job runs it: its command line, how it is resumed. */
  template: Omit<Template, 'name'>;
  /** The variables it reads for its own configuration, which its jobs get. */
  env: { names: readonly string[]; prefixes: readonly string[] };
  /** Follows its records (session files, transcripts, rollouts) for a terminal, where it writes any. */
  records?(ctx: RecordContext): RecordFollower;
  /**
   * How a choice of its menus (an approval, a trust dialog) is made: the keys that pick choice
   * `choice` when `highlighted` is marked. Undefined: not known for this agent.
   */
  menuKeys?(choice: number, highlighted: number): string;
  /**
   * How long its menu must have been on the screen before keys answer it (ms): keys pressed as a
   * menu appears reach what was there before. Undefined: MENU_STAND_MS.
   */
  menuStandMs?: number;
  /** The record file that holds a job's answers (Claude Code's transcript, Codex's rollout), when it can be told. */
  jobRecordFile?(job: JobSessionRef, env: NodeJS.ProcessEnv): string | undefined;
  /**
   * How a job's session is learnt when the agent cannot be given one (Codex: from the rollout its
   * process writes): the session's id and the file that told it, or undefined while not known.
   */
  learnJobSession?(proc: JobProcess, env: NodeJS.ProcessEnv): { id: string; file: string } | undefined;
  /**
   * How a job of it tells its state itself, as it happens (its hooks), beside its screen: what the
   * job's launch adds and what one event says.
   */
  push?: JobPush;
  /** How a job of it serves its own event stream (OpenCode's server), which its host follows. */
  jobStream?: JobStream;
  /**
   * How a job of it is asked for its desktop notifications, which its host (its terminal) reads
   * with `notification`: the arguments put before the template's. Such an agent notifies only while
   * its terminal has no focus: the host says it has none, and again when its last client leaves.
   */
  jobNotifications?: {
    args: readonly string[];
    /**
     * False when a session it resumes must not get them: the arguments would part it from what
     * holds that session (the job then follows its records instead).
     */
    onResume?: boolean;
  };
  /**
   * What a desktop notification it asks its terminal for says (OSC 9, 777, 99, caught with
   * |TermRequest|), or undefined when it tells no state.
   */
  notification?(n: TermNotification): PushSignal | undefined;
  /** Its sessions that run elsewhere on this machine, told by files of its own. */
  sessions?: SessionsFolder;
  /** The command that attaches a terminal to one of its background sessions (SessionElsewhere.attachId). */
  attachCommand?(attachId: string): string[];
  /**
   * The answer of the last prompt its records hold (parsed lines of one file, oldest first): its text
   * only, no thinking, no tool calls, no sub-agent's records, with when that prompt was written;
   * undefined when the last prompt has no finished answer yet (or there is none).
   */
  answerOf?(records: readonly unknown[]): RecordedAnswer | undefined;
  /** How its records tell what it spends (tokens, cost, context); none: it records no usage. */
  usage?: AgentUsage;
  /** What :checkhealth says of it beyond its program (what this machine lets it read), in its own words. */
  health?(): AgentHealthNote[];
}

/** A line :checkhealth shows of an agent: `ok`, or `info` for its users (no warning for everyone). */
export interface AgentHealthNote {
  level: 'ok' | 'info';
  text: string;
}

/**
 * A turn's answer as an agent's records hold it: its text, and when the prompt it answers was
 * recorded (epoch ms, the record's own time; undefined when the records say no time, or the prompt
 * is no longer in the part read). A route takes it only when that prompt is of the turn that ended.
 */
export interface RecordedAnswer {
  text: string;
  promptAt: number | undefined;
}
