// What MadoHub knows of one agent, in one place: src/agents/<name>.ts. The detectors, the process
// classifier, the record watchers, the job templates and environments, and (through the Node
// process) the Lua side read it from there.
import type { RecordSignal } from '../detect/records.js';
import type { AgentId, AgentRules } from '../detect/types.js';
import type { Template } from '../jobs/templates.js';
import type { RecordLog } from '../records/claude.js';
import type { FolderWatcher } from '../records/folders.js';

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

/** How /proc shows the agent: its executable's names, and the script Node runs for it. */
export interface ProcessIdentity {
  names: readonly string[];
  script: RegExp;
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
  folders: FolderWatcher;
  /** Record files other terminals follow already. */
  claims: Set<string>;
  emit(signal: RecordSignal): void;
  log: RecordLog;
}

export interface AgentModule {
  id: AgentId;
  /** Its name in the winbar, the messages and the picker. */
  displayName: string;
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
  prompt?: PromptRule;
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
   * menu appears reach what was there before. Undefined: MENU_SETTLE_MS.
   */
  menuSettleMs?: number;
  /** How its answer reads on its screen (for a route when no record holds it). */
  answer?: ScreenAnswerRule;
  /**
   * The last finished answer its records hold (parsed lines of one file, oldest first): its text
   * only, no thinking, no tool calls, no sub-agent's records; undefined when none.
   */
  answerOf?(records: readonly unknown[]): string | undefined;
}
