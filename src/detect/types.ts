import { AGENT_IDS } from '../agents/ids.js';
import type { AgentId } from '../agents/ids.js';

/** Which program runs in a terminal. */
export type { AgentId };

/** What that program is doing. */
export type AgentState = 'working' | 'idle' | 'waiting' | 'stopped' | 'completed' | 'failed' | 'exited';

/**
 * The source of a state: where a reading came from. The screen (`pty-scrape`), the terminal's exit
 * (`terminal`), and the confirmed ones: an agent's session file, its transcript, rollout or chat
 * (`jsonl-watcher`), its session database (`session-db`: OpenCode's).
 */
export type StateSource = 'pty-scrape' | 'terminal' | 'session-file' | 'jsonl-watcher' | 'session-db';

/** The sources that are the agent's own records: a state they say is confirmed (✓ in the winbar). */
const CONFIRMED_SOURCES: ReadonlySet<string> = new Set<StateSource>(['session-file', 'jsonl-watcher', 'session-db']);

/** Whether a state read from `source` is confirmed by the agent's own records (the one place that says so). */
export function isConfirmed(source: string): boolean {
  return CONFIRMED_SOURCES.has(source);
}

export const AGENTS: readonly AgentId[] = AGENT_IDS;

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

export interface Detection {
  agent: AgentId;
  state: AgentState;
  source: StateSource;
  /** A short human text: the line that decided the state, trimmed. */
  detail: string;
  /** For `stopped` by a completion line: its key (see `completionKey`), so that it counts once. */
  completion?: string;
}

/**
 * What a rule tests a line or a title with: a regular expression, or a function that finds the same
 * in linear time where a regular expression would backtrack (see `ordered` in common.ts).
 */
export interface Matcher {
  test(text: string): boolean;
}

/** A state a line of the screen points to. Rules are tried in order; the first that matches a line wins. */
export interface LineRule {
  state: AgentState;
  test: Matcher;
  /**
   * A hint is chrome that is always drawn (a footer, an input placeholder): it decides the state only
   * when no event line (work, a question, a completion, an interrupt) is on the screen.
   */
  hint?: boolean;
  /** This line ends a turn: the state becomes `stopped` and a completion event fires once. */
  completion?: boolean;
  /**
   * The line is the agent's chrome (a footer that says `esc to interrupt` while it works): it tells
   * the state, and the nearest line above it that a rule of the same state matches, not chrome (the
   * spinner row), is the detail; `detail` when there is none.
   */
  chrome?: boolean;
  detail?: string;
}

/** A state the terminal title points to. The title tells what is happening now. */
export interface TitleRule {
  state: AgentState;
  test: Matcher;
  detail?: string;
}

/** The screen rules of one agent. Pure data; `src/detect/index.ts` applies them. */
export interface AgentRules {
  id: AgentId;
  /** Markers that show this agent runs here. A line or the title matching any is enough. */
  markers: readonly RegExp[];
  titleMarkers: readonly RegExp[];
  lines: readonly LineRule[];
  titles: readonly TitleRule[];
}
