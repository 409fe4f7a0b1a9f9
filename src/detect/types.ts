// The rules the detect engine applies: pure data, each agent's own in its module.
import type { AgentId, AgentState } from '../shared/types.js';

export type { AgentId, AgentState, Detection, PreviousReading, Screen, StateSource } from '../shared/types.js';
export { isConfirmed } from '../shared/types.js';

/**
 * What a rule tests a line or a title with: a regular expression, or a function that finds the same
 * in linear time where a regular expression would backtrack (see `ordered` in common.ts).
 */
export interface Matcher {
  test(text: string): boolean;
}

/** A state a line of the screen points to. Rules are tried in order; the first that matches a line wins. */
export interface LineRule {
  /**
   * What `--explain` and `mado detect` call it: unique among its agent's rules (`spinner`), read as
   * `<agent>/<name>`; a rule every agent shares is named `shared/<name>`, a user's `user/<name>`.
   */
  name: string;
  state: AgentState;
  test: Matcher;
  /** The file a user's rule came from (none for a built-in one). */
  origin?: string;
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
  /**
   * A question that holds the agent while its busy line still shows (a dialog over a spinner that
   * keeps turning): a few rows above a working line, in the current turn, it wins over that line.
   */
  overWork?: boolean;
  /**
   * A screen drawn over the agent that nothing runs under (Claude Code's session picker, which opens
   * only between turns): its line in the current turn decides over every other line, wherever it stands.
   */
  overlay?: boolean;
  detail?: string;
}

/** A state the terminal title points to. The title tells what is happening now. */
export interface TitleRule {
  /** As a line rule's name. */
  name: string;
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
  /** How it echoes a submitted prompt: where the current turn starts, the job's intent, a draft. */
  prompt?: PromptRule;
  /**
   * The border over its input box, for an agent whose echoed prompts cannot be told from its answers
   * (Pi): the current turn is the last block of lines above the box (back to a blank line), where its
   * spinner, its interrupt or its error stands.
   */
  inputBox?: RegExp;
  /**
   * Its work shows in the latest block of lines over its input box (Claude Code draws its spinner right
   * above the box): a working line higher up, a blank line and other output under it, is a frame left
   * behind and tells nothing.
   */
  workInLatestBlock?: true;
  /** How its finished answer reads on its screen (for a route when no record holds it). */
  answer?: ScreenAnswerRule;
  /**
   * How full its context is, as its screen says it (|madohub-usage|): the line's first group is a per
   * cent, of the context used, or of what is left when `left`.
   */
  context?: { line: RegExp; left?: true };
}

/**
 * Every agent's screen rules, and the id of the fallback agent: what a terminal runs when no agent's
 * markers are on its screen, or its shell prompt is back.
 */
export interface RuleSet {
  /** Order breaks ties when two agents' markers stand on the same row. */
  agents: readonly AgentRules[];
  fallback: AgentId;
}

/** How an agent echoes a submitted prompt above its answer (the intent of a job made from its terminal). */
export interface PromptRule {
  /**
   * A line that echoes a submitted prompt; group 1 is the prompt (its trailing blanks are taken off
   * after the match: a lazy group before `\s*$` costs a square of the line's length).
   */
  line: RegExp;
  /** What the next non-blank line must look like for the prompt to be submitted (not being typed). */
  answered: RegExp;
  /** Placeholders that are not prompts. */
  not?: RegExp;
  /** Lines passed over, like blank ones, on the way to the next line (a box's empty rows). */
  skip?: RegExp;
  /**
   * Where the input line is a box's row: the line that ends that box, below a draft (past `skip`
   * rows). A prompt line without it under it is another box's (a permission's, a tool's).
   */
  inputEnd?: RegExp;
  /**
   * The input line holding a draft, where it looks unlike a sent prompt (Amp: `│ fix it │` in its
   * input box, ` ┃ fix it` once sent); group 1 is the draft. Default: `line`.
   */
  draft?: RegExp;
}

/**
 * How an agent's finished answer reads on its screen: below the last prompt it echoed, above the
 * line that ends the turn, each answer item marked (`● `, `• `), tool calls and their output left out.
 */
export interface ScreenAnswerRule {
  /** The line that echoes the prompt (default: the module's prompt rule); the answer is below the last one. */
  start?: RegExp;
  /** The line that ends the turn (its completion line); without one on the screen, the answer runs to its bottom. */
  end?: RegExp;
  /** A line that starts an item of the answer (a paragraph, a tool call); group 1 is its text. */
  item: RegExp;
  /** An item that is a tool call: it and the lines under it are left out. */
  tool: RegExp;
  /** The agent's own chrome (input box, footers, spinners, boxes around tool calls): left out. */
  chrome: RegExp;
  /** What a line under an item starts with (its indent), taken off. */
  indent: RegExp;
}
