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

/**
 * Every state, once, in the order the glossary gives them, with its facts: its word (the default of
 * the `words` setting), its glyph in the picker, its group there (`needs`, `working`, `done`, `idle`,
 * `ended`), the standard highlight group its `Mado*` group links to, whether a change to it is told by
 * default (`notify.states`), and what it counts as in what needs you (`waiting`, `done`, `failed`).
 * Every list of states — here, the generated lua/madohub/states.lua, the doc — is made from this one.
 */
export const STATE_FACTS = {
  working: { word: 'Working', glyph: '●', group: 'working', link: 'DiagnosticInfo', told: false, counts: '' },
  idle: { word: 'Idle', glyph: '○', group: 'idle', link: 'Comment', told: false, counts: '' },
  waiting: { word: 'Waiting', glyph: '◆', group: 'needs', link: 'DiagnosticWarn', told: true, counts: 'waiting' },
  // Not ✓: that is the winbar's (and the row's) mark of a state confirmed from the agent's records.
  stopped: { word: 'Stopped', glyph: '◉', group: 'done', link: 'DiagnosticHint', told: true, counts: 'done' },
  completed: { word: 'Completed', glyph: '◉', group: 'done', link: 'DiagnosticOk', told: true, counts: 'done' },
  failed: { word: 'Failed', glyph: '✗', group: 'ended', link: 'DiagnosticError', told: true, counts: 'failed' },
  exited: { word: 'Exited', glyph: '■', group: 'ended', link: 'NonText', told: true, counts: '' },
} as const satisfies Record<
  string,
  {
    word: string;
    glyph: string;
    group: string;
    link: string;
    told: boolean;
    counts: '' | 'waiting' | 'done' | 'failed';
  }
>;

/** What that program is doing. */
export type AgentState = keyof typeof STATE_FACTS;

/** Every state, in the order the glossary gives them. */
export const AGENT_STATES: readonly AgentState[] = Object.keys(STATE_FACTS).filter((k): k is AgentState =>
  Object.hasOwn(STATE_FACTS, k),
);

const STATE_SET: ReadonlySet<string> = new Set(AGENT_STATES);

export const isAgentState = (v: unknown): v is AgentState => typeof v === 'string' && STATE_SET.has(v);

/** A turn is under way: the agent works, or asks something in it (Working, Waiting). */
export const inTurn = (s: AgentState | null | undefined): boolean => s === 'working' || s === 'waiting';

/**
 * Every source of a state, once, with its facts: `confirms` — a state it says is the agent's own word
 * (✓ in the winbar), the one rule of "confirmed"; `ofJobs` — a job's host may read a job's state from
 * it (a job's file names it). The screen (`pty-scrape`), the terminal's exit (`terminal`), and the
 * confirmed ones: an agent's session file, its transcript, rollout or chat (`jsonl-watcher`), its
 * session database (`session-db`: OpenCode's), its server's event stream (`event-stream`: OpenCode's),
 * its own hooks (`hook`: what a job's agent tells as it happens), the notifications it asks its
 * terminal for (`notification`: OSC 9, 777, 99).
 */
const SOURCE_FACTS = {
  'pty-scrape': { confirms: false, ofJobs: true },
  terminal: { confirms: false, ofJobs: false },
  'session-file': { confirms: true, ofJobs: true },
  'jsonl-watcher': { confirms: true, ofJobs: true },
  'session-db': { confirms: true, ofJobs: true },
  'event-stream': { confirms: true, ofJobs: true },
  hook: { confirms: true, ofJobs: true },
  notification: { confirms: true, ofJobs: true },
} as const satisfies Record<string, { confirms: boolean; ofJobs: boolean }>;

/** The source of a state: where a reading came from (SOURCE_FACTS). */
export type StateSource = keyof typeof SOURCE_FACTS;

/** A source a job's state may come from. */
export type JobStateSource = {
  [K in StateSource]: (typeof SOURCE_FACTS)[K]['ofJobs'] extends true ? K : never;
}[StateSource];

/** Whether `v` names a source. */
export const isStateSource = (v: unknown): v is StateSource => typeof v === 'string' && Object.hasOwn(SOURCE_FACTS, v);

/** Every source (one list: a peer's entry names one of these or none). */
export const STATE_SOURCES: readonly StateSource[] = Object.keys(SOURCE_FACTS).filter(isStateSource);

/** The sources a job's state may come from (a job's file names one of these). */
export const JOB_STATE_SOURCES: readonly JobStateSource[] = STATE_SOURCES.filter(
  (s): s is JobStateSource => SOURCE_FACTS[s].ofJobs,
);

/** Whether `v` names a source a job's state may come from. */
export const isJobStateSource = (v: unknown): v is JobStateSource => isStateSource(v) && SOURCE_FACTS[v].ofJobs;

/** Whether a state read from `source` is confirmed by the agent's own records (the one place that says so). */
export function isConfirmed(source: unknown): boolean {
  return isStateSource(source) && SOURCE_FACTS[source].confirms;
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
  /** An end the screen must show before it is told (RecordSignal.tentative). */
  tentative?: boolean;
}

/** What one of an agent's records says about a terminal's state. */
export interface RecordSignal {
  state: AgentState;
  source: Extract<StateSource, 'session-file' | 'jsonl-watcher' | 'session-db' | 'event-stream'>;
  detail: string;
  /** When the record was written (epoch ms), when it says so. */
  at?: number;
  /**
   * An end the agent may yet go on from (Gemini CLI's response with text, whose tool call, asked on
   * the screen, is recorded only once it ran): held until the screen shows the turn ended.
   */
  tentative?: boolean;
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
