// The words every layer speaks: which program runs in a terminal, what it is doing, where that was
// read, and what one screen, one record and one process are. Types and the few constants that
// define them; no agent is named here (each is its own module, src/agents/<id>.ts).

/**
 * Which program runs in a terminal: an agent module's id (src/agents/<id>.ts). Data read from a
 * file or a peer is checked with `AGENT_ID` and then looked up in the registry (an unknown id reads
 * as the fallback agent, the shell).
 */
export type AgentId = string;

/** What an agent id read from a file or a peer may look like ('' is NO_AGENT). */
export const AGENT_ID = /^(?:[a-z][a-z0-9-]{0,31})?$/;

/** No agent known (a job whose file cannot be read, one not started yet): it reads as the fallback agent. */
export const NO_AGENT: AgentId = '';

/** What a session id given to `--resume` may look like: no option, no space, no control character. */
export const SESSION_REF = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The detail of a Failed state that is the user's interrupt (every agent's rules and records say it so). */
export const INTERRUPTED = 'interrupted';

/** What that program is doing. */
export type AgentState = 'working' | 'idle' | 'waiting' | 'stopped' | 'completed' | 'failed' | 'exited';

/** Every state, in the order the glossary gives them. */
export const AGENT_STATES: readonly AgentState[] = [
  'working',
  'idle',
  'waiting',
  'stopped',
  'completed',
  'failed',
  'exited',
];

const STATE_SET: ReadonlySet<string> = new Set(AGENT_STATES);

export const isAgentState = (v: unknown): v is AgentState => typeof v === 'string' && STATE_SET.has(v);

/**
 * The source of a state: where a reading came from. The screen (`pty-scrape`), the terminal's exit
 * (`terminal`), and the confirmed ones: an agent's session file, its transcript, rollout or chat
 * (`jsonl-watcher`), its session database (`session-db`: OpenCode's), its server's event stream
 * (`event-stream`: OpenCode's), its own hooks (`hook`: what a
 * job's agent tells as it happens), the notifications it asks its terminal for (`notification`: OSC
 * 9, 777, 99).
 */
export type StateSource =
  | 'pty-scrape'
  | 'terminal'
  | 'session-file'
  | 'jsonl-watcher'
  | 'session-db'
  | 'event-stream'
  | 'hook'
  | 'notification';

/** Every source (one list: a peer's entry names one of these or none). */
export const STATE_SOURCES: readonly StateSource[] = [
  'pty-scrape',
  'terminal',
  'session-file',
  'jsonl-watcher',
  'session-db',
  'event-stream',
  'hook',
  'notification',
];

/** The sources that are the agent's own word: a state they say is confirmed (✓ in the winbar). */
const CONFIRMED_SOURCES: ReadonlySet<string> = new Set<StateSource>([
  'session-file',
  'jsonl-watcher',
  'session-db',
  'event-stream',
  'hook',
  'notification',
]);

/** Whether a state read from `source` is confirmed by the agent's own records (the one place that says so). */
export function isConfirmed(source: string): boolean {
  return CONFIRMED_SOURCES.has(source);
}

/** What a terminal shows now: its visible rows (trailing blank rows trimmed) and its title. */
export interface Screen {
  lines: readonly string[];
  title: string;
  /** 0-based row of the terminal cursor within `lines`, when known. */
  cursor?: number;
}

export interface PreviousReading {
  agent: AgentId;
  state: AgentState;
}

/** What one reading of a screen says. */
export interface Detection {
  agent: AgentId;
  state: AgentState;
  source: StateSource;
  /** A short human text: the line that decided the state, trimmed. */
  detail: string;
  /** The screen rule or shape that decided (`claude/spinner`, `shape/choice-menu`); none when kept. */
  rule?: string;
  /** For `stopped` by a completion line: its key (see `completionKey`), so that it counts once. */
  completion?: string;
  /** No line or title of the screen told the state: it is the one read before (Idle at first). */
  kept?: true;
}

/**
 * A state an agent tells itself as it happens (a hook of a job's agent). `repeat`: it repeats what
 * an earlier event of the turn said (Claude Code's permission Notification after its
 * PermissionRequest), and tells nothing once that was answered.
 */
export interface PushSignal {
  state: AgentState;
  detail: string;
  repeat?: true;
}

/** What one of an agent's records says about a terminal's state. */
export interface RecordSignal {
  state: AgentState;
  source: Extract<StateSource, 'session-file' | 'jsonl-watcher' | 'session-db' | 'event-stream'>;
  detail: string;
  /** When the record was written (epoch ms), when it says so. */
  at?: number;
}

/** One process as /proc describes it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** /proc/<pid>/comm: the first 15 bytes of the executable's name (or a title the program set). */
  comm: string;
  /** /proc/<pid>/cmdline split at NULs. */
  argv: readonly string[];
  /** The target of /proc/<pid>/exe, or '' when it cannot be read. */
  exe: string;
}

/** A remote host's name (hosts.json, `--host`, `NAME:ID`): letters, digits, `.`, `_`, `-`; at most 32. */
export const HOST_NAME_PART = '[A-Za-z0-9][A-Za-z0-9._-]{0,31}';
export const HOST_NAME = new RegExp(`^${HOST_NAME_PART}$`);
